"""Pictures of the board: one drawing per kind of game, from the public view only.

A drawing takes the board a report carries (the rules' ``public_state`` of the
state after a turn, :func:`bot.core.turns.resolution.report_outcomes`) and
gives a :class:`Picture`: SVG text (shown on the web page) and its alt text
(what the picture shows, in words).  :func:`png` rasterises it for Discord
and mail attachments.  Drawings are deterministic: the same board draws the
same bytes.  They never see a seat's secrets, since they are only given the
public view.  The words drawn (caption, legend) and the alt text are in the language
:func:`draw` is given (the reader's: the web page's, a mail's or DM's recipient's), English by
default; the same board in the same language draws the same bytes.

The drawings are listed in :data:`bot.pictures.registry.DRAWINGS` (kind ->
drawing), as :mod:`adjudicator.registry` lists the engines; a kind without
an entry has no picture, and every caller copes with ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.basics.translation import speaking
from bot.pictures.picture import Picture, png
from bot.pictures.registry import DRAWINGS

__all__ = ["Picture", "draw", "png"]


def draw(kind: str, board: Mapping[str, Any] | None, language: str | None = None) -> Picture | None:
    """The picture of ``board`` (a public view of a ``kind`` game) with its words in ``language`` (None:
    English), or None: no board yet, or no drawing for that kind."""
    drawing = DRAWINGS.get(kind)
    if drawing is None or board is None:
        return None
    with speaking(language):
        return drawing(board)
