"""A game master's command that exists only in the tests: its dataclass and declaration (file 1 of 4).

``NOTE <game> [TURN <turn>] <text>`` with a reason: a note in the game's log, which the players hear
of in the next report.  See tests/core/test_new_command.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.model import commands as c


@dataclass(frozen=True)
class NoteInLog(c.Declared):
    """GM: write a note in the game's log (about turn ``turn``, if given)."""

    declaration = c.Declaration(
        "NOTE", c.Permission.GAME_MASTER, announced=True, summary="write a note in the game's log",
        forms=(c.Form("NOTE <game> [TURN <turn>] <text>",
                      help=("NOTE <game> [TURN <n>] <text>  a note in the log  REASON needed",)),),
    )  # fmt: skip

    game: str
    text: str
    reason: str
    turn: int | None = None
