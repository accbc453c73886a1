"""A command's side of the one admission rule (:mod:`bot.core.people.admission`): the sender of a ``JOIN`` or a
``STAND IN`` judged by it, and its refusal put in the reply (the seat they hold, that the game is for invited
players, or their figure and the minimum)."""

from __future__ import annotations

from bot.core.commands.context import CommandContext
from bot.core.people.admission import Refusal, judge
from bot.core.people.identities import find_player
from bot.core.people.reliability import Reliability
from bot.store.models import Game, Player


def admitted(ctx: CommandContext, game: Game, line: str) -> tuple[Player, Reliability] | None:
    """The sender as a player of this referee and their record, when the rule lets them take a seat of
    ``game``; else None after the refusal.  A sender refused is not made a player."""
    sender = ctx.envelope.sender
    known = find_player(ctx.session, sender)
    judged = judge(ctx.session, game, known, [sender.address])
    if isinstance(judged, Refusal):
        ctx.reply.problem(line, judged.code, **judged.data)
        return None
    player = known or ctx.sender_player()
    return player, judged if known is not None else Reliability(player.id)
