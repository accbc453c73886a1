"""Reminders before a deadline, and the late notice at one: to the seats that owe orders and have none in.

Each reminder of a turn is sent at most once: a row in ``reminders_sent``
keyed (game, generation, turn, offset) is written in the same transaction as
the outbox rows, so neither a restart nor a second worker can send it twice
(a second insert fails on the key).  A reminder whose moment has passed by
more than a few minutes (the bot was down, the deadline moved closer) is
recorded as stale and never sent late (:func:`bot.core.turns.reminder_times.check_reminders`).
Reminders state the deadline as an absolute time (UTC and the game's zone in
the email form; a Discord timestamp there).

A pass of the deadline worker asks the database only for the games where
:func:`remind` has something to write (:func:`games_to_remind`: a reminder
moment of the open turn has come and is not recorded yet), so a league
whose reminders are all sent or still to come costs two queries a pass,
whatever its size; those games are then reminded in batches
(:func:`remind_games`), one transaction each with what they read loaded
in a few queries for the batch.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import ColumnElement, exists, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from bot.core.basics.durations import TimeInputError
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.preload import remember
from bot.core.games.stored import RUNNING, current_orders, phase_of, phase_opened_at
from bot.core.messaging.delivery import Delivery
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.turns.reminder_times import OPENING_WINDOW, check_reminders, parse_reminders, reminder_moments
from bot.store.models import Game, ReminderSent

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig

log = logging.getLogger(__name__)
REMIND_BATCH = 50
"""Games reminded in one transaction by :func:`remind_games`' caller."""


def games_to_remind(session: Session, now: datetime) -> list[int]:
    """The ids (in order) of the running games :func:`remind` would write something for at ``now``.

    That is: an offset of the game's reminder settings that is not recorded
    (sent or stale) for its open turn and whose moment (deadline - offset)
    has come, before the deadline.  Two queries, whatever the number of
    games: the distinct settings of the running games, then the games.  A
    setting that no longer parses is logged and left out (its games get no
    reminder; nothing else is held up).
    """
    settings = session.scalars(
        select(Game.reminders).where(Game.status == RUNNING, Game.deadline_at > now).distinct()
    ).all()
    by_offset: dict[int, list[str]] = {}
    for setting in settings:
        if setting in ("", "none"):
            continue
        try:
            offsets = parse_reminders(setting)
        except TimeInputError as exc:
            log.warning("reminder setting %r is not understood (%s): its games get no reminder", setting, exc)
            continue
        for offset in offsets:
            by_offset.setdefault(_minutes(offset), []).append(setting)
    if not by_offset:
        return []
    terms: list[ColumnElement[bool]] = []
    for minutes, texts in sorted(by_offset.items()):
        recorded = exists().where(
            ReminderSent.game_id == Game.id, ReminderSent.generation == Game.generation,
            ReminderSent.turn_number == Game.phase_number, ReminderSent.offset_minutes == minutes,
        )  # fmt: skip
        terms.append(Game.reminders.in_(texts) & (Game.deadline_at <= now + timedelta(minutes=minutes)) & ~recorded)
    return list(
        session.scalars(
            select(Game.id).where(Game.status == RUNNING, Game.deadline_at > now, or_(*terms)).order_by(Game.id)
        ).all()
    )


def remind_games(session: Session, game_ids: Sequence[int], now: datetime, config: ServiceConfig) -> int:
    """:func:`remind` each of ``game_ids`` in the caller's transaction; returns how many seats were reminded.

    What they read is loaded first for all of them (the games, their seats, the
    orders on file, when their turns opened, the reminders recorded: five
    queries, :mod:`bot.core.games.preload`).  Each game is reminded in a savepoint: one whose reminder another
    worker recorded first (the key refuses the second copy) is rolled back
    alone and sends nothing; the others go on.  On SQLite the caller should
    hold the write lock from the start (``BEGIN IMMEDIATE``) for the savepoints.
    """
    games = session.scalars(
        select(Game).where(Game.id.in_(list(game_ids))).order_by(Game.id).options(selectinload(Game.seats))
    ).all()
    remember(session, games)  # the orders on file and when each turn opened: two queries
    done: dict[tuple[int, int, int], set[int]] = {(g.id, g.generation, g.phase_number): set() for g in games}
    if games:
        for game_id, generation, turn, minutes in session.execute(
            select(ReminderSent.game_id, ReminderSent.generation, ReminderSent.turn_number,
                   ReminderSent.offset_minutes)
            .where(ReminderSent.game_id.in_([g.id for g in games]),
                   ReminderSent.turn_number.in_({g.phase_number for g in games}))
        ).all():  # fmt: skip
            if (game_id, generation, turn) in done:
                done[(game_id, generation, turn)].add(minutes)
    sent = 0
    for game in games:
        key = (game.id, game.generation, game.phase_number)
        try:
            with session.begin_nested():
                sent += remind(session, game, now, config, (done[key], phase_opened_at(session, game, key[2])))
        except IntegrityError:
            continue  # another worker recorded this reminder first: it sent it
    return sent


def remind(
    session: Session, game: Game, now: datetime, config: ServiceConfig,
    known: tuple[set[int], datetime | None] | None = None,
) -> int:  # fmt: skip
    """Send ``game``'s reminder that is due now, if any; returns how many seats it went to.

    ``known``: the offsets (minutes) recorded for the game's open turn
    (``game.phase_number``) and when that turn opened (None for the first),
    when the caller has loaded them; read here otherwise.
    """
    if game.status != RUNNING or game.deadline_at is None or game.reminders in ("", "none"):
        return 0
    phase = phase_of(game)
    if phase is None:
        return 0
    turn = phase.number
    if known is not None and turn == game.phase_number:
        done, opened_at = known
    else:
        done = set(
            session.scalars(
                select(ReminderSent.offset_minutes).where(
                    ReminderSent.game_id == game.id, ReminderSent.generation == game.generation,
                    ReminderSent.turn_number == turn,
                )
            ).all()
        )  # fmt: skip
        opened_at = phase_opened_at(session, game, turn)
    check = check_reminders(
        game.deadline_at, parse_reminders(game.reminders), {timedelta(minutes=m) for m in done}, now,
        opened_at=opened_at or game.created_at,
    )  # fmt: skip
    for stale in check.stale:
        session.add(_row(game, turn, stale.offset, now, sent=False))
    if check.due is None:
        return 0
    session.add(_row(game, turn, check.due.offset, now, sent=True))
    session.flush()  # the key refuses a second copy of this reminder here
    ordered = set(current_orders(session, game, turn))
    missing = [s for s in game.seats if s.name in phase.owing and s.name not in ordered and not s.resigned]
    minutes = _minutes(check.due.offset)
    outcomes = []
    for seat in missing:
        data = {"game": game.slug, "seat": seat.name, "turn": turn, "phase": phase.title,
                "deadline": game.deadline_at.isoformat(), "time_zone": game.time_zone, "before_minutes": minutes}  # fmt: skip
        outcomes.append(Outcome(ToPlayer(seat.player_id, seat.name), Message("reminder", data), NOTICE,
                                f"reminder:{game.slug}:{game.generation}:{turn}:{minutes}", game.id, turn))  # fmt: skip
    Delivery(session, config, now).send_all(outcomes)  # the seats' addresses in one query, the rows in one INSERT
    return len(missing)


def skip_reminders_at_opening(session: Session, game: Game, now: datetime) -> None:
    """Record as stale (never to be sent) the reminders of ``game``'s open turn that fall due at ``now``,
    the moment the turn opens, or within :data:`~bot.core.turns.reminder_times.OPENING_WINDOW` of it.

    The caller has just opened the turn and told the seats its deadline (the game has started):
    a 24h reminder of a 24h first turn would arrive seconds after that mail, saying it again.
    """
    if game.deadline_at is None or game.reminders in ("", "none"):
        return
    for reminder in reminder_moments(game.deadline_at, parse_reminders(game.reminders)):
        if reminder.at <= now + OPENING_WINDOW:
            session.add(_row(game, game.phase_number, reminder.offset, now, sent=False))


def _minutes(offset: timedelta) -> int:
    return int(offset.total_seconds() // 60)


def _row(game: Game, turn: int, offset: timedelta, now: datetime, sent: bool) -> ReminderSent:
    return ReminderSent(game_id=game.id, generation=game.generation, turn_number=turn,
                        offset_minutes=_minutes(offset), at=now, sent=sent)  # fmt: skip


def start_grace(session: Session, game: Game, now: datetime, config: ServiceConfig) -> bool:
    """At the deadline of a game with grace: if seats have no orders in, wait for them and tell them.

    Returns True when the game now waits (``grace_until``); the late seats get
    a late notice; at the end of the grace the game's own no-moves-received
    rule applies to whoever is still missing.
    """
    if game.grace_minutes <= 0 or game.grace_until is not None or game.deadline_at is None:
        return False
    if game.deadline_at + timedelta(minutes=game.grace_minutes) <= now:
        return False  # the referee was down past the grace's end too: nothing to wait for any more
    phase = phase_of(game)
    if phase is None:
        return False
    ordered = set(current_orders(session, game, phase.number))
    late = [s for s in game.seats if s.name in phase.owing and s.name not in ordered and not s.resigned]
    if not late:
        return False
    game.grace_until = game.deadline_at + timedelta(minutes=game.grace_minutes)
    game.resolve_at = game.grace_until
    notices = []
    entry = deadline_entry(game, config, now)  # the late seats' calendars move to the grace's end
    for seat in late:
        data = {"game": game.slug, "seat": seat.name, "turn": phase.number, "deadline": game.deadline_at.isoformat(),
                "grace_until": game.grace_until.isoformat(), "time_zone": game.time_zone, "calendar": entry}  # fmt: skip
        notices.append(Outcome(ToPlayer(seat.player_id, seat.name), Message("late_notice", data), NOTICE,
                               f"late:{game.slug}:{game.generation}:{phase.number}", game.id, phase.number))  # fmt: skip
    Delivery(session, config, now).send_all(notices)  # the late seats' addresses in one query, one INSERT
    return True
