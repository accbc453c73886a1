"""Addresses a channel cannot deliver to (a player's closed direct messages), and telling the GMs once.

A channel that is refused delivery to a person for a reason the person can
change (their DMs are closed) reports it here.  The first report marks the
identity unreachable and tells the game masters of every game the person
sits in, through the outbox; further refusals change nothing and tell no one
again, until a delivery to that address succeeds (:func:`mark_reachable`), so
a GM hears of it once per episode, not once per failed message.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.games.stored import FINISHED
from bot.core.messaging.delivery import Delivery
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToGameMasters
from bot.store.db import unit_of_work
from bot.store.models import Game, Identity, Seat

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig

TEMPLATE = "unreachable"


def mark_unreachable(
    sessions: sessionmaker[Session], config: ServiceConfig, channel: str, address: str, reason: str, now: datetime
) -> bool:
    """Record that ``channel`` cannot reach ``address``; True when this is news (the GMs were told now).

    An address the referee does not know (no identity) is not news: there is no game to tell.
    """
    with unit_of_work(sessions) as session:
        identity = session.scalar(
            select(Identity).where(Identity.channel == channel, Identity.address == address).with_for_update()
        )
        if identity is None or identity.unreachable_at is not None:
            return False
        identity.unreachable_at = now
        identity.unreachable_reason = reason[:200]
        _tell_game_masters(session, config, identity, reason, now)
        return True


def mark_reachable(sessions: sessionmaker[Session], channel: str, address: str) -> None:
    """A delivery to ``address`` on ``channel`` succeeded: a later refusal is news again."""
    with unit_of_work(sessions) as session:
        session.execute(
            update(Identity)
            .where(Identity.channel == channel, Identity.address == address, Identity.unreachable_at.is_not(None))
            .values(unreachable_at=None, unreachable_reason=None)
        )


def unreachable_addresses(sessions: sessionmaker[Session], channel: str) -> set[str]:
    """The addresses on ``channel`` marked unreachable (a sender's memory across restarts)."""
    with unit_of_work(sessions) as session:
        rows = session.scalars(
            select(Identity.address).where(Identity.channel == channel, Identity.unreachable_at.is_not(None))
        ).all()
        return set(rows)


def _tell_game_masters(session: Session, config: ServiceConfig, identity: Identity, reason: str, now: datetime) -> None:
    seats = session.scalars(
        select(Seat).join(Game, Game.id == Seat.game_id)
        .where(Seat.player_id == identity.player_id, Seat.resigned.is_(False), Game.status != FINISHED)
        .order_by(Seat.game_id)
    ).all()  # fmt: skip
    delivery = Delivery(session, config, now)
    for seat in seats:
        game = seat.game
        data = {"game": game.slug, "seat": seat.name, "player": identity.player.display_name,
                "channel": identity.channel, "address": identity.address, "reason": reason}  # fmt: skip
        key = f"unreachable:{identity.channel}:{identity.address}:{game.slug}:{now.isoformat()}"
        delivery.send(Outcome(ToGameMasters(game.id), Message(TEMPLATE, data), NOTICE, key, game.id))
