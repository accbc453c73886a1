"""The web channel's form: HTML pages from ``templates/web/*.html.j2`` (jinja2, autoescaped).

Every name on a page (games, seats, reasons, report text) is someone's input,
so the environment escapes everything; no template marks anything safe, and
every text is shown :func:`~bot.core.basics.free_text.visible` (one stored
before every input was cleaned can hold no control or bidi character here).  The
one HTML not written by a template is a rules page's body, rendered from the
project's own ``docs/rules/<kind>.md`` by markdown-it-py with raw HTML off
(:mod:`bot.web.markdown_html`).  A
page needs no script: times are written in UTC and the game's zone, inside
``<time datetime>``, which ``local-time.js`` (if it runs) rewrites to the
reader's own zone.  Each table has a list beside it saying the same in words
(the linear text alternative), shown to screen readers and on a narrow screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import jinja2

from adjudicator import registry
from bot.channels.contract import Hints
from bot.core.basics.free_text import visible
from bot.core.messaging.rendering import Rendered, render_message
from bot.core.views.pages import ClubPage, GamePage, PublicReport, SeatOffer
from bot.pictures import Picture
from bot.resources import TEMPLATES_DIR, rules_page
from bot.web.markdown_html import markdown_html


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """Autoescaping on for every template, undefined names an error, every text shown visible."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR / "web")),
        autoescape=True,
        finalize=_visible,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _visible(value: object) -> object:
    """What an expression of a page shows: a text :func:`~bot.core.basics.free_text.visible`, anything else
    as it is (then escaped)."""
    return visible(value) if isinstance(value, str) else value


MAX_REPORTS = 400
"""The most reports one page shows (the newest); the record holds every turn: a page stays bounded."""
TEXT_FORM = "text"
"""The form a page shows reports in: the channel-neutral plain text (78 columns, ``templates/text/``), the
same data as the public copy the channels sent, without a channel's way of answering (mail's "reply with
ORDERS", which ``templates/email/report.txt.j2`` adds to it)."""


def report_text(report: PublicReport) -> Rendered:
    """``report`` as the channels' plain text: its title line and its body."""
    return render_message(TEXT_FORM, "report", report.data)


PLACEHOLDER = re.compile(r"\{(game|seat|kind)\}")


def filled(lines: tuple[str, ...], **values: str) -> list[str]:
    """``lines`` (a channel's hints) with ``{game}``, ``{seat}``, ``{kind}`` replaced by ``values``, in one
    pass: a seat named ``{game}`` stays as it is written."""
    return [PLACEHOLDER.sub(lambda m: values.get(m[1], m[0]), line) for line in lines]


def joins_for(joining: tuple[str, ...], slug: str) -> list[str]:
    """The join lines of one game (``{game}`` replaced by its name; nothing else is formatted)."""
    return filled(joining, game=slug)


@dataclass(frozen=True)
class Offers:
    """The seats up for a substitute a page lists, each with how to take it, and how to be offered the
    next ones of the same kinds (``STANDBY``)."""

    seats: list[tuple[SeatOffer, list[str]]]
    standby: list[tuple[str, list[str]]]
    """Per kind of game among the seats, (kind, the lines); none when no channel says how."""
    trial_turns: int


def offers_of(offered: tuple[SeatOffer, ...], hints: Hints, trial_turns: int) -> Offers:
    """``offered`` with each channel's line to take each seat (``STAND IN`` by mail), and its ``STANDBY`` line for each kind."""
    kinds = sorted({seat.kind for seat in offered})
    return Offers(
        seats=[(seat, filled(hints.take, game=seat.slug, seat=seat.seat)) for seat in offered],
        standby=[(kind, lines) for kind in kinds if (lines := filled(hints.standby, kind=kind))],
        trial_turns=trial_turns,
    )


@dataclass(frozen=True)
class RulesLink:
    """A kind of game whose rules page the site shows (``/rules/<kind>``)."""

    kind: str
    title: str


def rules_links() -> list[RulesLink]:
    """Every kind of game this referee runs that has a rules page, in the registry's order."""
    return [RulesLink(kind, registry.get_rules(kind).title) for kind in registry.kinds() if rules_page(kind)]


def has_rules(kind: str) -> bool:
    """Whether ``/rules/<kind>`` is a page: a kind the registry runs, with its page of ``docs/rules/``."""
    return kind in registry.kinds() and rules_page(kind) is not None


def index_html(club: ClubPage, hints: Hints | None = None) -> str:
    """``/``: the seats up for a substitute (if any), the club's games, running, forming (with how to
    join) and over, and the rules of each kind of game."""
    hints = hints or Hints()
    return (
        environment()
        .get_template("index.html.j2")
        .render(root="./", club=club, joining=hints.join, joins_for=joins_for,
                offers=offers_of(club.offered, hints, club.trial_turns), rules=rules_links())
    )  # fmt: skip


def rules_html(kind: str) -> str | None:
    """``/rules/<kind>``: the kind's rules as this referee applies them (its ``docs/rules/<kind>.md``),
    or None when ``kind`` is no kind with a page.  The page never changes while the process runs."""
    page = rules_page(kind) if has_rules(kind) else None
    if page is None:
        return None
    body = markdown_html(page.read_text(encoding="utf-8"))
    title = registry.get_rules(kind).title
    return environment().get_template("rules.html.j2").render(root="../", kind=kind, title=title, body=body)


def game_html(page: GamePage, picture: Picture | None, hints: Hints | None = None) -> str:
    """``/games/<slug>``: one game as everyone may see it."""
    hints = hints or Hints()
    return (
        environment()
        .get_template("game.html.j2")
        .render(
            root="../",
            page=page,
            line=page.line,
            picture=picture,
            rules=has_rules(page.line.kind),
            joins=joins_for(hints.join, page.line.slug),
            offers=offers_of(page.offered, hints, page.trial_turns),
            reports=[(report, report_text(report)) for report in list(reversed(page.reports))[:MAX_REPORTS]],
            reports_left_out=max(0, len(page.reports) - MAX_REPORTS),
        )
    )


def not_found_html(message: str = "There is no such page.") -> str:
    return environment().get_template("not_found.html.j2").render(root="/", message=message)
