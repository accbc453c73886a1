"""Fixed-width text rendering with jinja2.

Each game has ``templates/<kind>/report.txt.j2``; it is rendered with:

* ``report``: the plain data of :attr:`adjudicator.api.Resolution.report`;
* ``events``: the turn's events as lines of text;
* ``seat``: the seat the copy is for (None for the public copy);
* ``private``: that seat's private data (``Resolution.private[seat]``) or None.

``templates/common/*.txt.j2`` wrap it with a header (game, turn, deadlines in
UTC and the game's time zone, seed commitment or reveal) and a footer.
Filters for columns: ``ljust(width)``, ``rjust(width)``, ``cell(width)``
(right-aligned, ``-`` for zero when asked: ``cell(3, dash_zero=True)``),
``clip(width)`` (shorten with ``~``) and ``wrap(width, indent)`` for prose.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from bot.resources import TEMPLATES_DIR


def _ljust(value: object, width: int) -> str:
    return str(value).ljust(width)


def _rjust(value: object, width: int) -> str:
    return str(value).rjust(width)


def _cell(value: object, width: int, dash_zero: bool = False) -> str:
    text = "-" if dash_zero and value in (0, None) else str(value)
    return text.rjust(width)


def _wrap(value: object, width: int = 78, indent: str = "  ") -> str:
    """Wrap a long line of prose at ``width``, continuation lines indented."""
    return "\n".join(textwrap.wrap(str(value), width, subsequent_indent=indent, break_on_hyphens=False)) or ""


def _clip(value: object, width: int) -> str:
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "~"


@lru_cache(maxsize=4)
def environment(directory: Path = TEMPLATES_DIR) -> jinja2.Environment:
    """The shared jinja2 environment: strict undefineds, no autoescape (plain text)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(directory)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(ljust=_ljust, rjust=_rjust, cell=_cell, clip=_clip, wrap=_wrap)
    return env


def render(template: str, data: Mapping[str, Any]) -> str:
    """Render ``template`` (a path under templates/) with ``data``; trailing spaces trimmed."""
    text = environment().get_template(template).render(**data)
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def render_report_body(
    kind: str,
    report: Mapping[str, Any],
    events: Sequence[str] = (),
    seat: str | None = None,
    private: Mapping[str, Any] | None = None,
) -> str:
    """The game's own part of a turn report (``templates/<kind>/report.txt.j2``)."""
    return render(f"{kind}/report.txt.j2", {"report": report, "events": list(events), "seat": seat, "private": private})
