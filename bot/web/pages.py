"""The web channel's form: HTML pages from ``templates/web/*.html.j2`` (jinja2, autoescaped).

Every name on a page (games, seats, reasons, report text) is someone's input,
so the environment escapes everything; no template marks anything safe.  A
page needs no script: times are written in UTC and the game's zone, inside
``<time datetime>``, which ``local-time.js`` (if it runs) rewrites to the
reader's own zone.  Each table has a list beside it saying the same in words
(the linear text alternative), shown to screen readers and on a narrow screen.
"""

from __future__ import annotations

from functools import lru_cache

import jinja2

from bot.core.messaging.rendering import Rendered, render_message
from bot.core.views.pages import ClubPage, GamePage, PublicReport
from bot.pictures import Picture
from bot.resources import TEMPLATES_DIR


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """Autoescaping on for every template, undefined names an error."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR / "web")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


MAX_REPORTS = 400
"""The most reports one page shows (the newest); the record holds every turn: a page stays bounded."""
TEXT_FORM = "email"
"""The form a page shows reports in: the plain text mail carries (78 columns), the same template and
data as the public copy the channels sent."""


def report_text(report: PublicReport) -> Rendered:
    """``report`` as the channels' plain text: its title line and its body."""
    return render_message(TEXT_FORM, "report", report.data)


def joins_for(joining: tuple[str, ...], slug: str) -> list[str]:
    """The join lines of one game (``{game}`` replaced by its name; nothing else is formatted)."""
    return [line.replace("{game}", slug) for line in joining]


def index_html(club: ClubPage, joining: tuple[str, ...] = ()) -> str:
    """``/``: the club's games, running, forming (with how to join) and over."""
    return (
        environment().get_template("index.html.j2").render(root="./", club=club, joining=joining, joins_for=joins_for)
    )


def game_html(page: GamePage, picture: Picture | None, joining: tuple[str, ...] = ()) -> str:
    """``/games/<slug>``: one game as everyone may see it."""
    return (
        environment()
        .get_template("game.html.j2")
        .render(
            root="../",
            page=page,
            line=page.line,
            picture=picture,
            joins=joins_for(joining, page.line.slug),
            reports=[(report, report_text(report)) for report in list(reversed(page.reports))[:MAX_REPORTS]],
            reports_left_out=max(0, len(page.reports) - MAX_REPORTS),
        )
    )


def not_found_html(message: str = "There is no such page.") -> str:
    return environment().get_template("not_found.html.j2").render(root="/", message=message)
