"""Reminders before a deadline, and the late notice at one: to the seats that owe orders and have none in.

Each reminder of a turn is sent at most once: a row in ``reminders_sent``
keyed (game, generation, turn, offset) is written in the same transaction as
the outbox rows, so neither a restart nor a second worker can send it twice
(a second insert fails on the key).  A reminder whose moment has passed by
more than a few minutes (the bot was down, the deadline moved closer) is
recorded as stale and never sent late (:func:`bot.core.reminders.check_reminders`).
Reminders state the deadline as an absolute time (UTC and the game's zone in
the email form; a Discord timestamp there).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.core.delivery import Delivery
from bot.core.games import RUNNING, current_orders, phase_of, phase_opened_at
from bot.core.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.reminders import check_reminders, parse_reminders
from bot.store.models import Game, ReminderSent

if TYPE_CHECKING:
    from bot.core.service import ServiceConfig


def remind(session: Session, game: Game, now: datetime, config: ServiceConfig) -> int:
    """Send ``game``'s reminder that is due now, if any; returns how many seats it went to."""
    if game.status != RUNNING or game.deadline_at is None or game.reminders in ("", "none"):
        return 0
    phase = phase_of(game)
    if phase is None:
        return 0
    turn = phase.number
    done = session.scalars(
        select(ReminderSent.offset_minutes).where(
            ReminderSent.game_id == game.id, ReminderSent.generation == game.generation,
            ReminderSent.turn_number == turn,
        )
    ).all()  # fmt: skip
    check = check_reminders(
        game.deadline_at, parse_reminders(game.reminders), {timedelta(minutes=m) for m in done}, now,
        opened_at=phase_opened_at(session, game, turn) or game.created_at,
    )  # fmt: skip
    for stale in check.stale:
        session.add(_row(game, turn, stale.offset, now, sent=False))
    if check.due is None:
        return 0
    session.add(_row(game, turn, check.due.offset, now, sent=True))
    session.flush()  # the key refuses a second copy of this reminder here
    ordered = set(current_orders(session, game, turn))
    missing = [s for s in game.seats if s.name in phase.owing and s.name not in ordered and not s.resigned]
    delivery = Delivery(session, config, now)
    minutes = int(check.due.offset.total_seconds() // 60)
    for seat in missing:
        data = {"game": game.slug, "seat": seat.name, "turn": turn, "phase": phase.title,
                "deadline": game.deadline_at.isoformat(), "time_zone": game.time_zone, "before_minutes": minutes}  # fmt: skip
        delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("reminder", data), NOTICE,
                              f"reminder:{game.slug}:{game.generation}:{turn}:{minutes}", game.id, turn))  # fmt: skip
    return len(missing)


def _row(game: Game, turn: int, offset: timedelta, now: datetime, sent: bool) -> ReminderSent:
    return ReminderSent(game_id=game.id, generation=game.generation, turn_number=turn,
                        offset_minutes=int(offset.total_seconds() // 60), at=now, sent=sent)  # fmt: skip


def start_grace(session: Session, game: Game, now: datetime, config: ServiceConfig) -> bool:
    """At the deadline of a game with grace: if seats have no orders in, wait for them and tell them.

    Returns True when the game now waits (``grace_until``); the late seats get
    a late notice; at the end of the grace the game's own no-moves-received
    rule applies to whoever is still missing.
    """
    if game.grace_minutes <= 0 or game.grace_until is not None or game.deadline_at is None:
        return False
    phase = phase_of(game)
    if phase is None:
        return False
    ordered = set(current_orders(session, game, phase.number))
    late = [s for s in game.seats if s.name in phase.owing and s.name not in ordered and not s.resigned]
    if not late:
        return False
    game.grace_until = game.deadline_at + timedelta(minutes=game.grace_minutes)
    game.resolve_at = game.grace_until
    delivery = Delivery(session, config, now)
    for seat in late:
        data = {"game": game.slug, "seat": seat.name, "turn": phase.number, "deadline": game.deadline_at.isoformat(),
                "grace_until": game.grace_until.isoformat(), "time_zone": game.time_zone}  # fmt: skip
        delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("late_notice", data), NOTICE,
                              f"late:{game.slug}:{game.generation}:{phase.number}", game.id, phase.number))  # fmt: skip
    return True
