"""Every order is in: the seats (and the game's public place) hear when the turn will resolve early.

The last seat to order is told in its reply (``early_planned``); the others, who ordered
earlier and believe the turn waits for its deadline, get this notice once per turn.
"""

from __future__ import annotations

from datetime import datetime

from bot.core.commands.context import CommandContext
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer, ToPublic
from bot.core.people.identities import find_player
from bot.store.models import Game


def tell_early_resolution(ctx: CommandContext, game: Game, turn: int, at: datetime) -> None:
    """Tell every seat but the sender's, and the public place, that turn ``turn`` resolves at ``at``."""
    sender = find_player(ctx.session, ctx.envelope.sender)
    data = {"game": game.slug, "turn": turn, "at": at.isoformat(), "time_zone": game.time_zone,
            "deadline": game.deadline_at.isoformat() if game.deadline_at else None}  # fmt: skip
    message = Message("early_planned", data)
    key = f"early:{game.slug}:{game.generation}:{turn}"
    ctx.delivery.send(Outcome(ToPublic(game.id), message, NOTICE, key, game.id, turn))
    for seat in game.seats:
        if seat.resigned or (sender is not None and seat.player_id == sender.id):
            continue
        ctx.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), message, NOTICE, key, game.id, turn))
