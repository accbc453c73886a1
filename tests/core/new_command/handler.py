"""The handler of the tests' NOTE command (file 2 of 4): registered like every real handler."""

from __future__ import annotations

from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, Result, handles
from tests.core.new_command.command import NoteInLog


@handles(NoteInLog)
def note_in_log(ctx: CommandContext, command: NoteInLog) -> Result:
    game = ctx.granted.game
    assert game is not None  # Permission.GAME_MASTER
    if not command.text.strip():
        ctx.reply.problem(f"NOTE {game.slug}", "note_empty", game=game.slug)
        return REFUSED
    ctx.reply.add("noted", game=game.slug, text=command.text.strip(), turn=command.turn)
    return DONE
