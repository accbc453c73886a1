"""What every drawing shares: the page, the seats' marks, names clipped to a width, the template.

Seats are told apart by three things at once, never by colour alone: a colour
of the Okabe-Ito palette (safe for the common colour-blindnesses), a shape,
and a short label (the seat's number, or a game's own letter) inside the mark;
the name is written beside it.  Text is set in the package's fixed-width font
(:data:`bot.pictures.picture.FONT_FAMILY`), so a name is clipped by its display
columns (East Asian wide letters take two) and can never run into its
neighbour.  The SVG comes from ``templates/<kind>/board.svg.j2`` with
autoescape on: seat names are chosen by players and may hold markup.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import jinja2

from bot.core.basics.display_width import clip, display_width
from bot.core.basics.translation import gettext, mark, ngettext, npgettext, pgettext
from bot.pictures.picture import FONT_FAMILY
from bot.resources import TEMPLATES_DIR

_ = gettext

WIDTH = 800
"""Every picture is 800 px wide: Discord's embed and a phone show it without scaling much."""

CHAR_WIDTH = 0.6021
"""The advance of one column of DejaVu Sans Mono, in ems (1233 of 2048 units)."""

INK = "#000000"
PAPER = "#ffffff"
FAINT = "#d9d9d9"

PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
"""Okabe-Ito's colours (black left for ink), in seat order."""

DARK = frozenset({"#009E73", "#0072B2", "#D55E00"})
"""Colours dark enough that a mark's label is written on them in white."""

SHAPES = ("circle", "square", "triangle", "diamond", "hexagon")

ALT_LIMIT = 1500
"""The most characters an alt text may have (a screen reader reads it all)."""


@dataclass(frozen=True)
class Mark:
    """How one seat is drawn: colour, shape (an SVG path around 0,0), and the label inside it."""

    colour: str
    shape: str
    path: str
    label: str
    label_colour: str


def shape_path(shape: str, radius: float) -> str:
    """An SVG path of ``shape`` centred on 0,0, about ``radius`` from the centre."""
    r = radius
    if shape == "circle":
        return f"M{-r:g},0a{r:g},{r:g} 0 1,0 {2 * r:g},0a{r:g},{r:g} 0 1,0 {-2 * r:g},0z"
    if shape == "square":
        s = round(r * 0.9, 2)
        return f"M{-s:g},{-s:g}h{2 * s:g}v{2 * s:g}h{-2 * s:g}z"
    corners = {"triangle": 3, "diamond": 4, "hexagon": 6}[shape]
    scale = {"triangle": 1.3, "diamond": 1.2, "hexagon": 1.08}[shape]
    turn = {"triangle": -90.0, "diamond": -90.0, "hexagon": 0.0}[shape]
    points = [
        (round(r * scale * math.cos(math.radians(turn + 360 * i / corners)), 2),
         round(r * scale * math.sin(math.radians(turn + 360 * i / corners)), 2) + (r * 0.25 if corners == 3 else 0))
        for i in range(corners)
    ]  # fmt: skip
    return "M" + "L".join(f"{x:g},{y:g}" for x, y in points) + "z"


def seat_mark(index: int, radius: float = 11, label: str | None = None) -> Mark:
    """The mark of the seat at ``index`` (seat order, from 0): colour, shape and label all differ
    from the seat before it; the label is the seat's number unless a game gives its own."""
    colour = PALETTE[index % len(PALETTE)]
    shape = SHAPES[index % len(SHAPES)]
    return Mark(
        colour=colour,
        shape=shape,
        path=shape_path(shape, radius),
        label=label if label is not None else str(index + 1),
        label_colour=PAPER if colour in DARK else INK,
    )


def columns(width_px: float, font_size: float) -> int:
    """How many display columns of text fit in ``width_px`` at ``font_size``."""
    return max(1, int(width_px // (font_size * CHAR_WIDTH)))


def fit(text: str, width_px: float, font_size: float) -> str:
    """``text`` clipped (with a ``~``) to what fits in ``width_px`` at ``font_size``, no padding."""
    return clip(text, columns(width_px, font_size)).rstrip(" ")


def text_width(text: str, font_size: float) -> float:
    """How wide ``text`` is drawn at ``font_size``, in px."""
    return display_width(text) * font_size * CHAR_WIDTH


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``11th``, ``23rd``; in the language being spoken, its own short form (``1er``,
    ``2e``, ``1.``: the catalogues' ``1st`` for the first place and ``%(place)sth`` for the others,
    context ``place``)."""
    if n == 1:
        first = pgettext("place", FIRST)
        if first != FIRST:
            return first
    said = pgettext("place", PAST_TENTH)
    if said != PAST_TENTH:
        return said % {"place": n}
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


FIRST = mark("place", "1st")
"""The first place, which some languages write apart (French ``1er``, not ``1e``)."""
PAST_TENTH = mark("place", "%(place)sth")
"""A place as a number (the same message as the reports' places past the tenth)."""


def plural(n: int, noun: str) -> str:
    """``1 gem``, ``2 gems``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def joined(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (``et``, ``und`` in the language being spoken)."""
    if len(items) < 2:
        return items[0] if items else ""
    return _("%(some)s and %(last)s") % {"some": ", ".join(items[:-1]), "last": items[-1]}


def alt_text(sentences: Iterable[str], names: Sequence[str] = (), limit: int = ALT_LIMIT) -> str:
    """The sentences joined, at most ``limit`` characters (cut at a sentence with an ellipsis)."""
    text = ""
    for sentence in sentences:
        candidate = f"{text} {sentence}".strip()
        if len(candidate) > limit - 1:
            return (text + " …").strip()
        text = candidate
    return text


def alt_name(name: str) -> str:
    """A seat's name as the alt text says it: at most 24 columns, no line breaks or controls."""
    flat = "".join(ch if ch.isprintable() else " " for ch in name)
    return clip(flat, 24).rstrip(" ")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The pictures' jinja2 environment: autoescape always on (names are hostile), strict undefineds."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
    )
    # A board's words ({% trans %}, _("...")) in the language the picture is drawn in (bot.pictures.draw).
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext, ngettext, newstyle=True, pgettext=pgettext, npgettext=npgettext
    )
    env.globals.update(WIDTH=WIDTH, FONT=FONT_FAMILY, INK=INK, PAPER=PAPER, FAINT=FAINT)
    return env


def render(kind: str, **data: object) -> str:
    """``templates/<kind>/board.svg.j2`` filled with ``data``; the words it marks (``_("finish")``) in the
    language being spoken."""
    return environment().get_template(f"{kind}/board.svg.j2").render(**data)
