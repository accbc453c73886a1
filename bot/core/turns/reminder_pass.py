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

A seat whose player has quiet hours (``QUIET``) gets a reminder whose moment
falls inside them before they begin instead
(:func:`bot.core.turns.reminder_times.early_reminder`), with the key its
reminder has (so its outbox row's Message-ID is the same); when the reminder's
moment comes, a seat that already has that reminder, or a later one, in the
outbox gets nothing more.  So a reminder moved is neither doubled nor lost: a
seat whose early moment passed unseen (the bot was down, the quiet hours were
set later) gets it at its moment, held till the hours end unless it is the
last before the deadline (``last_reminder``,
:func:`bot.core.messaging.quiet_hours.can_wait`).  A player with a digest is
not reminded early: the digest gathers their reminders (:func:`quiet_of`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING

from sqlalchemy import ColumnElement, exists, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from bot.core.basics.durations import TimeInputError
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.preload import remember
from bot.core.games.stored import RUNNING, current_orders, phase_of, phase_opened_at
from bot.core.messaging.delivery import Delivery, reach_of
from bot.core.messaging.digest_setting import stored_digest
from bot.core.messaging.outbox import stable_message_id
from bot.core.messaging.quiet_hours import LAST_REMINDER, quiet_began
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.turns.reminder_times import (
    OPENING_WINDOW,
    QUIET_LEAD,
    check_reminders,
    early_reminder,
    parse_reminders,
    reminder_moments,
)
from bot.store.models import Game, OutboxMessage, Player, ReminderSent, Seat

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig

log = logging.getLogger(__name__)
REMIND_BATCH = 50
"""Games reminded in one transaction by :func:`remind_games`' caller."""
QUIET_REACH = timedelta(days=1) + QUIET_LEAD
"""How long before its moment a reminder may be due for a seat with quiet hours (they are shorter than a day)."""
Quiet = Mapping[int, tuple[str, str | None]]
"""The quiet hours and zone (``players.quiet_hours``, ``players.time_zone``) of players who set quiet hours."""


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
    quiet_seat = exists().where(
        Seat.game_id == Game.id, Seat.player_id == Player.id, Player.quiet_hours.is_not(None), Player.quiet_hours != ""
    )  # a seat that may be reminded early, before its quiet hours begin
    for minutes, texts in sorted(by_offset.items()):
        recorded = exists().where(
            ReminderSent.game_id == Game.id, ReminderSent.generation == Game.generation,
            ReminderSent.turn_number == Game.phase_number, ReminderSent.offset_minutes == minutes,
        )  # fmt: skip
        terms.append(Game.reminders.in_(texts) & (Game.deadline_at <= now + timedelta(minutes=minutes)) & ~recorded)
        early = Game.deadline_at <= now + timedelta(minutes=minutes) + QUIET_REACH
        terms.append(Game.reminders.in_(texts) & early & ~recorded & quiet_seat)
    return list(
        session.scalars(
            select(Game.id).where(Game.status == RUNNING, Game.deadline_at > now, or_(*terms)).order_by(Game.id)
        ).all()
    )


def remind_games(session: Session, game_ids: Sequence[int], now: datetime, config: ServiceConfig) -> int:
    """:func:`remind` each of ``game_ids`` in the caller's transaction; returns how many seats were reminded.

    What they read is loaded first for all of them (the games, their seats, the
    orders on file, when their turns opened, the reminders recorded, the seats'
    quiet hours: six queries, :mod:`bot.core.games.preload`).  Each game is reminded in a savepoint: one whose reminder another
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
    quiet = quiet_of(session, [seat.player_id for game in games for seat in game.seats])
    sent = 0
    for game in games:
        key = (game.id, game.generation, game.phase_number)
        try:
            with session.begin_nested():
                opened = phase_opened_at(session, game, key[2])
                sent += remind(session, game, now, config, (done[key], opened), quiet)
        except IntegrityError:
            continue  # another worker recorded this reminder first: it sent it
    return sent


def remind(
    session: Session, game: Game, now: datetime, config: ServiceConfig,
    known: tuple[set[int], datetime | None] | None = None, quiet: Quiet | None = None,
) -> int:  # fmt: skip
    """Send ``game``'s reminder that is due now, if any, and each one due early for a seat before its
    quiet hours (see the module docstring); returns how many seats were reminded.

    ``known``: the offsets (minutes) recorded for the game's open turn
    (``game.phase_number``) and when that turn opened (None for the first),
    when the caller has loaded them; ``quiet``: the seats' players' quiet hours
    (:func:`quiet_of`); read here otherwise.
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
    offsets = parse_reminders(game.reminders)
    recorded = {timedelta(minutes=m) for m in done}
    opened = opened_at or game.created_at
    check = check_reminders(game.deadline_at, offsets, recorded, now, opened_at=opened)
    for stale in check.stale:
        session.add(_row(game, turn, stale.offset, now, sent=False))
    if check.due is not None:
        session.add(_row(game, turn, check.due.offset, now, sent=True))
        session.flush()  # the key refuses a second copy of this reminder here
    ordered = set(current_orders(session, game, turn))
    missing = [s for s in game.seats if s.name in phase.owing and s.name not in ordered and not s.resigned]
    if quiet is None:
        quiet = quiet_of(session, [seat.player_id for seat in missing])
    early: dict[str, timedelta] = {}
    for seat in missing:
        if seat.player_id in quiet:
            hours, zone = quiet[seat.player_id]
            found = early_reminder(
                game.deadline_at, offsets, recorded, now, partial(_began, hours=hours, zone=zone),
                opened_at=opened,
            )  # fmt: skip
            if found is not None:
                early[seat.name] = found.offset
    quiet_seats = [seat for seat in missing if seat.player_id in quiet]
    had = _reminded(session, game, turn, quiet_seats, offsets, config) if early or (check.due and quiet_seats) else {}
    outcomes = []
    for seat in missing:
        offset = early.get(seat.name, check.due.offset if check.due is not None else None)
        if offset is None or any(sent <= offset for sent in had.get(seat.name, ())):
            continue  # nothing due for them, or they have this reminder or a later one already
        outcomes.append(_reminder(game, seat, turn, phase.title, offset, last=offset == min(offsets)))
    Delivery(session, config, now).send_all(outcomes)  # the seats' addresses in one query, the rows in one INSERT
    return len(outcomes)


def _reminder(game: Game, seat: Seat, turn: int, title: str, offset: timedelta, last: bool) -> Outcome:
    """The reminder ``offset`` before ``game``'s deadline to ``seat``; the same key whenever it is sent."""
    assert game.deadline_at is not None
    minutes = _minutes(offset)
    data = {"game": game.slug, "seat": seat.name, "turn": turn, "phase": title,
            "deadline": game.deadline_at.isoformat(), "time_zone": game.time_zone, "before_minutes": minutes}  # fmt: skip
    if last:
        data[LAST_REMINDER] = True
    return Outcome(ToPlayer(seat.player_id, seat.name), Message("reminder", data), NOTICE,
                   _key(game, turn, minutes), game.id, turn)  # fmt: skip


def _began(moment: datetime, hours: str, zone: str | None) -> datetime | None:
    return quiet_began(moment, hours, zone)


def _key(game: Game, turn: int, minutes: int) -> str:
    return f"reminder:{game.slug}:{game.generation}:{turn}:{minutes}"


def quiet_of(session: Session, player_ids: Sequence[int]) -> dict[int, tuple[str, str | None]]:
    """The quiet hours and zone of those of ``player_ids`` who set quiet hours and have no digest, in one
    query.  A digest (``DIGEST``) gathers their reminders (:func:`bot.core.messaging.digests.gathered`) and
    comes when it is due, held by their quiet hours as a whole: their reminders are not moved (a reminder
    gathered early, then sent in a digest, would be gathered again at its moment)."""
    if not player_ids:
        return {}
    rows = session.execute(
        select(Player.id, Player.quiet_hours, Player.time_zone, Player.digest).where(
            Player.id.in_(sorted(set(player_ids))), Player.quiet_hours.is_not(None), Player.quiet_hours != ""
        )
    ).all()
    return {pid: (hours, zone) for pid, hours, zone, digest in rows if hours and stored_digest(digest) is None}


def _reminded(
    session: Session, game: Game, turn: int, seats: Sequence[Seat], offsets: Sequence[timedelta],
    config: ServiceConfig,
) -> dict[str, set[timedelta]]:  # fmt: skip
    """The reminders of ``game``'s ``turn`` each of ``seats`` has in the outbox already (sent early, before
    their quiet hours), found by their Message-IDs: two queries."""
    addresses, _ = reach_of(session, [seat.player_id for seat in seats])
    wanted: dict[str, tuple[str, timedelta]] = {}
    for seat in seats:
        for offset in offsets:
            key = _key(game, turn, _minutes(offset))
            for channel, address in addresses.get(seat.player_id, []):
                wanted[stable_message_id(channel, address, key, config.message_domain)] = (seat.name, offset)
    if not wanted:
        return {}
    found = session.scalars(select(OutboxMessage.message_id).where(OutboxMessage.message_id.in_(list(wanted)))).all()
    had: dict[str, set[timedelta]] = {}
    for message_id in found:
        name, offset = wanted[message_id]
        had.setdefault(name, set()).add(offset)
    return had


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
