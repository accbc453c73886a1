"""Ready checks: once a game fills, each seat confirms within a window that it will play, or is freed.

Games stall before turn one when someone joins and never plays.  A game
created with a ready check (``READY 24h`` by mail, ``--ready-check 24h``,
``/gm create ready_check:``; off by default) asks every seat not yet
confirmed, the moment its last seat is taken (:func:`begin_ready_check`),
to confirm within the window: ``READY <game>``, ``/ready``, the button on the
Discord DM, or a game master for them (``READY <game> FOR <seat>``, logged).

The window's end is a column on the game (``ready_deadline_at``), not a
timer in memory: the deadline worker frees whoever has not confirmed once it
passes (:func:`expire_ready_check`, under the game's row lock, clearing the
column in the same transaction), so a restart across it loses nothing and
frees each seat exactly once.  The freed player is told why, the game
masters who was freed, and the game's public place that it is open again;
when it fills again, a new check asks only the new seats (whoever confirmed
stays confirmed).

The product's games are started by their game master (``START``), so when
every seat has confirmed the game masters are told it is ready to start
(:func:`settle_if_all_ready`); START is refused while a check runs.  A game
with open seating (``MAX n``) that its GM starts before it fills has no check.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.core.games.stored import FORMING, rules_of
from bot.core.messaging.delivery import Delivery
from bot.core.model.outcomes import NOTICE, REPORT, Message, Outcome, ToGameMasters, ToPlayer, ToPublic
from bot.core.people.reliability import RESIGNED, leave_seat
from bot.store.models import Game, Seat

READY_BATCH = 25
"""Expired checks claimed and settled in one transaction by the deadline worker."""


def has_ready_check(game: Game) -> bool:
    """Whether the game was created with a ready check."""
    return game.ready_check_minutes > 0


def check_running(game: Game) -> bool:
    """Whether a ready check is open now (the game filled and not every seat has confirmed)."""
    return game.status == FORMING and game.ready_deadline_at is not None


def unconfirmed(game: Game) -> list[Seat]:
    """The seats that have not confirmed, in seat order."""
    return [seat for seat in game.seats if seat.ready_at is None]


def _base(game: Game) -> dict[str, object]:
    return {
        "game": game.slug, "title": rules_of(game).title, "time_zone": game.time_zone, "round": game.ready_round,
        "deadline": game.ready_deadline_at.isoformat() if game.ready_deadline_at else None,
        "ready": [s.name for s in game.seats if s.ready_at is not None], "waiting": [s.name for s in unconfirmed(game)],
    }  # fmt: skip


def begin_ready_check(game: Game, now: datetime, delivery: Delivery) -> None:
    """The game has just filled: open a check until ``now`` + the window and ask every unconfirmed seat
    (on every channel of its player).  Nothing happens for a game without a check."""
    if not has_ready_check(game) or game.status != FORMING:
        return
    waiting = unconfirmed(game)
    if not waiting:
        return
    game.ready_round += 1
    game.ready_deadline_at = now + timedelta(minutes=game.ready_check_minutes)
    data = _base(game)
    for seat in waiting:
        message = Message("ready_request", {**data, "seat": seat.name})
        key = f"ready:{game.slug}:{game.ready_round}:{seat.name}"
        delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), message, NOTICE, key, game.id))


def settle_if_all_ready(game: Game, delivery: Delivery) -> bool:
    """Close the check when every seat has confirmed and tell the game masters the game is ready to
    start; returns whether it closed."""
    if not check_running(game) or unconfirmed(game):
        return False
    game.ready_deadline_at = None
    data = {**_base(game), "seats": [s.name for s in game.seats]}
    delivery.send(Outcome(ToGameMasters(game.id), Message("game_ready", data), NOTICE,
                          f"ready-all:{game.slug}:{game.ready_round}", game.id))  # fmt: skip
    return True


def cancel_ready_check(game: Game) -> None:
    """A seat left while the check ran: the game is no longer full, so the check stops (those who
    confirmed stay confirmed; the next fill opens a new one)."""
    game.ready_deadline_at = None


def expire_ready_check(game: Game, now: datetime, delivery: Delivery, session: Session) -> list[str]:
    """Free every seat that did not confirm by the end of the window (the caller holds the game's row
    lock); returns the names freed.  Once done the check is closed, so a second call frees nothing."""
    if not check_running(game) or game.ready_deadline_at is None or game.ready_deadline_at > now:
        return []
    data = _base(game)
    freed = unconfirmed(game)
    names = [seat.name for seat in freed]
    game.ready_deadline_at = None
    for seat in freed:
        message = Message("ready_freed", {**data, "seat": seat.name})
        delivery.send(Outcome(ToPlayer(seat.player_id), message, NOTICE,
                              f"ready-freed:{game.slug}:{game.ready_round}:{seat.name}", game.id))  # fmt: skip
        leave_seat(session, game, seat.name, now, RESIGNED)  # before the start: the holding is forgotten
        game.seats.remove(seat)
        session.delete(seat)
    for position, seat in enumerate(game.seats):
        seat.position = position
    session.flush()
    if names:
        reopened = {**data, "freed": names, "seats": [s.name for s in game.seats], "open": game.joining_open}
        key = f"ready-expired:{game.slug}:{game.ready_round}"
        delivery.send(Outcome(ToGameMasters(game.id), Message("ready_expired", reopened), NOTICE, key, game.id))
        if game.joining_open:
            delivery.send(Outcome(ToPublic(game.id), Message("ready_reopened", reopened), REPORT, key, game.id))
    return names


def claim_expired(session: Session, now: datetime, limit: int = READY_BATCH) -> Sequence[Game]:
    """The forming games whose ready check has ended, locked (``FOR UPDATE SKIP LOCKED`` on PostgreSQL,
    so two workers never free the same seats)."""
    return session.scalars(
        select(Game)
        .where(Game.status == FORMING, Game.ready_deadline_at.is_not(None), Game.ready_deadline_at <= now)
        .order_by(Game.ready_deadline_at)
        .limit(limit)
        .with_for_update(skip_locked=True, of=Game)
    ).all()


def next_ready_deadline(session: Session) -> datetime | None:
    """The earliest end of a running ready check (for the deadline worker to sleep until)."""
    return session.scalar(
        select(Game.ready_deadline_at)
        .where(Game.status == FORMING, Game.ready_deadline_at.is_not(None))
        .order_by(Game.ready_deadline_at)
        .limit(1)
    )
