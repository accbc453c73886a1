"""Turn generations (bot/core/turns/generations.py): a rollback supersedes turns, never resolves one twice in a generation."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.turns.generations import live_records, roll_back
from bot.core.turns.resolution import resolve_current_turn
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage, TurnRecord
from tests.core.harness import SEATS, Harness


def play_two_turns(harness: Harness) -> None:
    harness.golden_strider_game()
    harness.setup_all()
    assert harness.pass_deadline() == [("gs1", 0)]
    for name in SEATS:
        harness.send(name, c.SubmitOrders("gs1", "play 10/0 bank 0"))
    assert harness.pass_deadline() == [("gs1", 1)]


def reports(harness: Harness, turn: int) -> list[OutboxMessage]:
    with unit_of_work(harness.sessions) as session:
        return list(
            session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.kind == "report", OutboxMessage.turn_number == turn)
                .order_by(OutboxMessage.recipient)
            ).all()
        )


def test_rollback_and_reprocess_gives_the_same_report(sessions):
    harness = Harness(sessions)
    play_two_turns(harness)
    before = reports(harness, 1)
    with unit_of_work(sessions) as session:
        game = find_game(session, "gs1")
        target = roll_back(session, game, 1, harness.clock.now())
        assert target.turn_number == 1 and game.generation == 1 and game.phase_number == 1
        assert [r.turn_number for r in live_records(session, game)] == [0]
    # The orders that were on file for turn 1 are still on file; the same orders and seed give the same turn.
    assert harness.service.resolve_due(harness.clock.now()) == [("gs1", 1)]
    after = [r for r in reports(harness, 1) if r.id not in {b.id for b in before}]
    assert len(after) == len(before) > 0
    assert [(r.recipient, r.data["report"], r.data["events"]) for r in after] == [
        (r.recipient, r.data["report"], r.data["events"]) for r in before
    ]
    assert {r.message_id for r in after}.isdisjoint({r.message_id for r in before})  # new messages, not retries
    with unit_of_work(sessions) as session:
        rows = session.scalars(select(TurnRecord).order_by(TurnRecord.generation, TurnRecord.turn_number)).all()
        assert [(r.generation, r.turn_number) for r in rows] == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_a_turn_is_never_resolved_twice_in_one_generation(sessions):
    harness = Harness(sessions)
    play_two_turns(harness)
    with unit_of_work(sessions) as session:
        roll_back(session, find_game(session, "gs1"), 1, harness.clock.now())
    first, second = harness.sessions(), harness.sessions()
    try:
        game_a = find_game(first, "gs1")
        game_b = find_game(second, "gs1")
        _ = game_a.seats, game_b.seats
        resolve_current_turn(first, game_a, harness.clock.now(), ServiceConfig())
        first.commit()
        with pytest.raises(IntegrityError):
            resolve_current_turn(second, game_b, harness.clock.now(), ServiceConfig())
        second.rollback()
    finally:
        first.close()
        second.close()


def test_rolling_back_to_an_unresolved_turn_is_refused(sessions):
    harness = Harness(sessions)
    harness.golden_strider_game()
    with unit_of_work(sessions) as session, pytest.raises(ValueError, match="turn 3 of gs1 has not been resolved"):
        roll_back(session, find_game(session, "gs1"), 3, harness.clock.now())
