"""Every order is in: the seats (and the game's public place) hear when the turn will resolve early.

Whoever completed the turn by a command is told in its reply (``early_planned``); the others, who
ordered earlier and believe the turn waits for its deadline, get this notice once per plan (a plan taken back by a WAIT or a pause and made again is
told again).  When
the deadline worker completes a turn (a pause that ended), every seat gets it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from bot.core.messaging.delivery import Delivery
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer, ToPublic
from bot.core.people.identities import find_player
from bot.store.models import Game


def tell_early_resolution(
    session: Session,
    delivery: Delivery,
    game: Game,
    turn: int,
    at: datetime,
    cause: str,
    sender: c.Sender | None = None,
) -> None:
    """Tell every seat but ``sender``'s, and the public place, that turn ``turn`` resolves at ``at``.

    ``cause`` names what planned it (the envelope's source id, or the worker's pass): a plan taken
    back and made again, even for the same moment, is told again."""
    told = find_player(session, sender) if sender is not None else None
    data = {"game": game.slug, "turn": turn, "at": at.isoformat(), "time_zone": game.time_zone,
            "deadline": game.deadline_at.isoformat() if game.deadline_at else None}  # fmt: skip
    message = Message("early_planned", data)
    key = f"early:{game.slug}:{game.generation}:{turn}:{cause}"
    delivery.send(Outcome(ToPublic(game.id), message, NOTICE, key, game.id, turn))
    for seat in game.seats:
        if seat.resigned or (told is not None and seat.player_id == told.id):
            continue
        delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), message, NOTICE, key, game.id, turn))
