"""A game master's command that exists only in the tests: its dataclass and declaration (file 1 of 4).

``NOTE <game> [TURN <turn>] <text>`` with a reason: a note in the game's log, which the players hear
of in the next report, in the words its declaration names (``announced``: the phrase ``announce_note``
of its phrases, file 3).  See tests/core/test_new_command.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.model import commands as c


@dataclass(frozen=True)
class NoteInLog(c.Declared):
    """GM: write a note in the game's log (about turn ``turn``, if given)."""

    declaration = c.Declaration(
        "NOTE", c.Permission.GAME_MASTER, summary="write a note in the game's log",
        announced=c.Announcement("announce_note", ("text", "turn")),
        forms=(c.Form("NOTE <game> [TURN <turn>] <text>",
                      help=("NOTE <game> [TURN <n>] <text>  a note in the log  REASON needed",)),),
    )  # fmt: skip

    game: str
    text: str
    reason: str
    turn: int | None = None
