"""A pass of the reminder worker (``GameService.remind_due``): its cost does not grow with the running
games that have nothing due, and each reminder still goes out once (a second worker's copy is refused)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from sqlalchemy import event, select, update

import bot.core.runtime.service as service_module
import bot.core.turns.reminder_pass as reminding
from bot.core.games.stored import find_game
from bot.store.db import unit_of_work
from bot.store.models import Game, ReminderSent
from tests.core.harness import SEATS, Harness

REMINDER_SEATS = len(SEATS)  # nobody has orders in: every seat is reminded


def league(harness: Harness, first: int, last: int, reminders: str) -> None:
    for number in range(first, last):
        harness.golden_strider_game(f"g{number}")  # turns of 60 minutes
    with unit_of_work(harness.sessions) as session:
        session.execute(update(Game).values(reminders=reminders))


def counted(harness: Harness, action) -> tuple[int, int]:
    """(statements, commits) on the database while ``action`` runs."""
    engine = harness.sessions.kw["bind"]
    counts: Counter[str] = Counter()

    def on_statement(*_args) -> None:
        counts["statements"] += 1

    def on_commit(_connection) -> None:
        counts["commits"] += 1

    event.listen(engine, "before_cursor_execute", on_statement)
    event.listen(engine, "commit", on_commit)
    try:
        action()
    finally:
        event.remove(engine, "before_cursor_execute", on_statement)
        event.remove(engine, "commit", on_commit)
    return counts["statements"], counts["commits"]


def test_a_pass_with_nothing_due_costs_the_same_for_3_or_15_running_games(sessions):
    harness = Harness(sessions)
    league(harness, 0, 3, "40m,10m")
    harness.clock.advance(timedelta(minutes=5))  # both reminders still to come
    now = harness.clock.now()
    few = counted(harness, lambda: harness.service.remind_due(now))
    league(harness, 3, 15, "40m,10m")
    many = counted(harness, lambda: harness.service.remind_due(now))
    assert many == few
    assert few[1] == 1  # one transaction, not one per game
    harness.clock.advance(timedelta(minutes=20))  # the 40m reminder of every game is due
    assert harness.service.remind_due(harness.clock.now()) == 15 * REMINDER_SEATS
    after = counted(harness, lambda: harness.service.remind_due(harness.clock.now()))
    assert after == few  # recorded: the games are not looked at again
    assert harness.service.remind_due(harness.clock.now() + timedelta(minutes=30)) == 15 * REMINDER_SEATS  # 10m


def test_a_batch_of_due_reminders_is_read_in_a_few_queries(sessions, monkeypatch):
    harness = Harness(sessions)
    league(harness, 0, 8, "40m")
    harness.clock.advance(timedelta(minutes=20))
    monkeypatch.setattr(service_module, "REMIND_BATCH", 4)
    statements, commits = counted(harness, lambda: harness.service.remind_due(harness.clock.now()))
    assert commits == 3  # the look, then two batches of 4
    # The look (2); per batch: BEGIN IMMEDIATE on SQLite, the games, their seats, reminders recorded,
    # turns opened, orders on file, the seats' quiet hours (7); per game: its savepoint (2), its reminder row, the seats'
    # addresses, the outbox rows (5): not one query per seat.
    assert statements <= 2 + 2 * 7 + 8 * 5, statements
    reminded = Counter(r.row.game_id for r in harness.outbox("notice") if r.row.template == "reminder")
    assert sorted(reminded.values()) == [REMINDER_SEATS] * 8


def test_a_reminder_another_worker_recorded_first_is_not_sent_again_and_holds_up_no_other(sessions, monkeypatch):
    harness = Harness(sessions)
    league(harness, 0, 3, "40m")
    harness.clock.advance(timedelta(minutes=20))
    now = harness.clock.now()
    with unit_of_work(sessions) as session:
        g1 = find_game(session, "g1")
        assert g1 is not None
        g1_id, generation = g1.id, g1.generation
    looked = reminding.games_to_remind

    def other_worker_between(session, moment):
        found = looked(session, moment)
        with unit_of_work(sessions) as other:  # another worker reminds g1 after this one looked
            other.add(ReminderSent(game_id=g1_id, generation=generation, turn_number=0, offset_minutes=40, at=now,
                                   sent=True))  # fmt: skip
        return found

    forgetful = reminding.remind

    def not_seeing_it(session, game, moment, config, known=None, quiet=None):
        # As on PostgreSQL when the other worker commits after this one read: only the key refuses it.
        return forgetful(session, game, moment, config, (set(), None) if game.id == g1_id else known, quiet)

    monkeypatch.setattr(service_module, "games_to_remind", other_worker_between)
    monkeypatch.setattr(reminding, "remind", not_seeing_it)
    assert harness.service.remind_due(now) == 2 * REMINDER_SEATS
    reminded = Counter(r.row.game_id for r in harness.outbox("notice") if r.row.template == "reminder")
    assert g1_id not in reminded and sorted(reminded.values()) == [REMINDER_SEATS] * 2
    with unit_of_work(sessions) as session:
        assert len(session.scalars(select(ReminderSent).where(ReminderSent.offset_minutes == 40)).all()) == 3
