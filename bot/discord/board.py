"""The board picture on a game's report post: the report's board drawn (:mod:`bot.pictures`) as ``board.png``.

Every report copy carries ``kind`` and ``board`` (the public view of the
state after the turn, :func:`bot.core.turns.resolution.report_outcomes`); the
game's forum post shows it as a PNG attached to the report's first message,
the picture's alt text as the attachment's description (what a screen reader
says).  A kind with no drawing, or a report with no board, posts its text as
before.  DMs carry no picture: the post is where everyone looks at the board.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.messaging.rendering import READER_LANGUAGE
from bot.pictures import draw, png

log = logging.getLogger(__name__)

FILENAME = "board.png"
DESCRIPTION_LIMIT = 1024
"""Discord's limit on an attachment's description."""
SIZE_LIMIT = 10 * 1024 * 1024
"""Discord's limit on an upload to a guild without boosts (10 MiB): a larger picture is left out."""
REPORT = "report"
"""The template of a turn's report (the copies that carry a board)."""


@dataclass(frozen=True)
class BoardPicture:
    """A drawn board, ready to attach: the PNG and its alt text (bounded)."""

    png: bytes
    alt: str

    def file(self) -> discord.File:
        """A fresh attachment (a ``discord.File`` is read once per send)."""
        return discord.File(io.BytesIO(self.png), filename=FILENAME, description=self.alt)


def board_picture(template: str, data: Mapping[str, Any]) -> BoardPicture | None:
    """The picture of a report's board, or None: not a report, no board, no drawing for its kind, too large.

    A drawing that raises is a bug in the drawing, not in the report: it is
    logged and the report goes out without its picture.
    """
    kind, board = data.get("kind"), data.get("board")
    if template != REPORT or not isinstance(kind, str) or not isinstance(board, Mapping):
        return None
    try:
        picture = draw(kind, board, data.get(READER_LANGUAGE))  # the recipient's language, as the DM's
        if picture is None:
            return None
        drawn = png(picture)
    except Exception:
        log.exception("the board of %s turn %s could not be drawn; its report goes without it",
                      data.get("game"), data.get("turn"))  # fmt: skip
        return None
    if len(drawn) > SIZE_LIMIT:
        log.warning("the board of %s turn %s is %d bytes, over Discord's %d: its report goes without it",
                    data.get("game"), data.get("turn"), len(drawn), SIZE_LIMIT)  # fmt: skip
        return None
    return BoardPicture(drawn, picture.alt.strip()[:DESCRIPTION_LIMIT])
