"""The web channel's form: HTML pages from ``templates/web/*.html.j2`` (jinja2, autoescaped).

Every name on a page (games, seats, reasons, report text) is someone's input,
so the environment escapes everything; no template marks anything safe, and
every text is shown :func:`~bot.core.basics.free_text.visible` (one stored
before every input was cleaned can hold no control or bidi character here).  The
one HTML not written by a template is a rules page's body, rendered from the
project's own ``docs/rules/<kind>.md`` by markdown-it-py with raw HTML off
(:mod:`bot.web.markdown_html`), in the page's language when the
kind has a translation (:func:`bot.resources.rules_page`).  A
page needs no script: times are written in UTC and the game's zone, inside
``<time datetime>``, which ``local-time.js`` (if it runs) rewrites to the
reader's own zone.  Each table has a list beside it saying the same in words
(the linear text alternative), shown to screen readers and on a narrow screen.

Every page is built in one language (:mod:`bot.web.languages` chooses it per request): its words are
marked in the templates (jinja2's i18n extension, newstyle, the catalogues of
:mod:`bot.core.basics.translation`) and said while the page is built (``speaking``), so the moments and
reports the core's views write are in it too.  A name given to a marked message is shown visible and
escaped, as every other expression is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import jinja2
from markupsafe import Markup

from adjudicator import registry
from bot.channels.contract import Hints
from bot.core.basics.engine_words import said_text
from bot.core.basics.free_text import visible
from bot.core.basics.translation import gettext, language, ngettext, pgettext, speaking
from bot.core.messaging.rendering import READER_LANGUAGE, Rendered, render_message
from bot.core.people.languages import ENGLISH, LANGUAGES
from bot.core.views.pages import ClubPage, GamePage, PublicReport, SeatOffer
from bot.pictures import Picture
from bot.resources import TEMPLATES_DIR, rules_page
from bot.web.markdown_html import markdown_html


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """Autoescaping on for every template, undefined names an error, every text shown visible; marked
    words said in the language being spoken (:func:`bot.core.basics.translation.speaking`)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR / "web")),
        autoescape=True,
        finalize=_visible,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.newstyle_gettext = True  # type: ignore[attr-defined]
    env.globals.update(gettext=_gettext, _=_gettext, ngettext=_ngettext, pgettext=_pgettext)
    env.globals.update(languages=LANGUAGES, page_language=language)
    env.filters["said"] = said_text  # an engine's words (a phase's title) in the page's language
    return env


@jinja2.pass_context
def _gettext(context: jinja2.runtime.Context, message: str, **names: object) -> str:
    """jinja2's newstyle gettext, with every name shown visible: the translation is the site's own
    text, each name is escaped into it."""
    return Markup(context.call(gettext, message)) % _shown(names)


@jinja2.pass_context
def _ngettext(context: jinja2.runtime.Context, singular: str, plural: str, n: int, **names: object) -> str:
    """:func:`_gettext` for a message with a plural (``num`` is ``n`` unless named)."""
    names.setdefault("num", n)
    return Markup(context.call(ngettext, singular, plural, n)) % _shown(names)


@jinja2.pass_context
def _pgettext(context: jinja2.runtime.Context, where: str, message: str, **names: object) -> str:
    """:func:`_gettext` with a context."""
    return Markup(context.call(pgettext, where, message)) % _shown(names)


def _shown(names: dict[str, object]) -> dict[str, object]:
    return {name: _visible(value) for name, value in names.items()}


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


def report_text(report: PublicReport, language: str = ENGLISH) -> Rendered:
    """``report`` as the channels' plain text in ``language``: its title line and its body."""
    data = report.data if language == ENGLISH else {**report.data, READER_LANGUAGE: language}
    return render_message(TEXT_FORM, "report", data)


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


def index_html(club: ClubPage, hints: Hints | None = None, language: str = ENGLISH) -> str:
    """``/``: the seats up for a substitute (if any), the club's games, running, forming (with how to
    join) and over, and the rules of each kind of game; in ``language``."""
    hints = hints or Hints()
    with speaking(language):
        return (
            environment()
            .get_template("index.html.j2")
            .render(root="./", club=club, joining=hints.join, joins_for=joins_for,
                    offers=offers_of(club.offered, hints, club.trial_turns), rules=rules_links())
        )  # fmt: skip


def rules_html(kind: str, language: str = ENGLISH) -> str | None:
    """``/rules/<kind>``: the kind's rules as this referee applies them (its ``docs/rules/<kind>.md``, or
    the page's translation into ``language``: :func:`bot.resources.rules_page`), or None when ``kind`` is
    no kind with a page.  The page never changes while the process runs."""
    page = rules_page(kind, language) if has_rules(kind) else None
    if page is None:
        return None
    body = markdown_html(page.read_text(encoding="utf-8"))
    title = registry.get_rules(kind).title
    with speaking(language):
        template = environment().get_template("rules.html.j2")
        return template.render(root="../", kind=kind, title=title, body=body)


def game_html(page: GamePage, picture: Picture | None, hints: Hints | None = None, language: str = ENGLISH) -> str:
    """``/games/<slug>``: one game as everyone may see it, in ``language`` (its reports too)."""
    hints = hints or Hints()
    with speaking(language):
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
                reports=[
                    (report, report_text(report, language)) for report in list(reversed(page.reports))[:MAX_REPORTS]
                ],
                reports_left_out=max(0, len(page.reports) - MAX_REPORTS),
            )
        )


NOT_FOUND = "not found"
BUSY = "busy"
FAILED = "failed"


def not_found_html(reason: str = NOT_FOUND, language: str = ENGLISH) -> str:
    """The short page of a 404 (:data:`NOT_FOUND`), a 503 (:data:`BUSY`) or a 500 (:data:`FAILED`), in
    ``language``."""
    with speaking(language):
        return environment().get_template("not_found.html.j2").render(root="/", reason=reason)
