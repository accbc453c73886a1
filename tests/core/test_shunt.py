"""The turn shunt (bot/core/turns/shunt.py): a game whose resolution raises is retried, then parked; others go on."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

import pytest

from bot.core.games.stored import find_game, rules_of
from bot.core.model import commands as c
from bot.core.turns import resolution as turns
from bot.core.turns.shunt import TurnShunt
from bot.store.db import unit_of_work
from tests.core.harness import SEATS, Harness


class BrokenRules:
    """The real rules of a game, except that resolving raises (an engine bug)."""

    def __init__(self, rules: Any) -> None:
        self._rules = rules

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)

    def resolve(self, *args: Any) -> Any:
        raise RuntimeError("engine bug: the track has no square 61")


@pytest.fixture
def broken_aaa(monkeypatch):
    """Game "aaa" resolves with an engine that raises; every other game with its own."""
    monkeypatch.setattr(
        turns, "rules_of", lambda game: BrokenRules(rules_of(game)) if game.slug == "aaa" else rules_of(game)
    )


def two_games(harness: Harness) -> None:
    for slug in ("aaa", "bbb"):
        harness.golden_strider_game(slug)
        harness.setup_all(slug)


def test_one_failing_game_does_not_hold_up_the_others_and_is_parked(sessions, broken_aaa, caplog):
    config = dataclasses.replace(Harness(sessions).config, turn_max_attempts=3, turn_retry_seconds=10,
                                 host_recipients=(("email", "host@example.org"),))  # fmt: skip
    harness = Harness(sessions, config=config)
    two_games(harness)
    assert harness.pass_deadline() == [("bbb", 0)]  # aaa raised; bbb, also due, was resolved
    with unit_of_work(sessions) as session:
        aaa = find_game(session, "aaa")
        assert aaa.turn_failures == 1 and "engine bug" in aaa.turn_error and aaa.turn_parked_at is None
        first_retry = aaa.resolve_at
    assert first_retry == harness.clock.now() + timedelta(seconds=10)
    assert harness.service.resolve_due(harness.clock.now()) == []  # not retried before its back-off
    harness.clock.set(first_retry)
    assert harness.service.resolve_due(harness.clock.now()) == []
    with unit_of_work(sessions) as session:
        assert find_game(session, "aaa").resolve_at == harness.clock.now() + timedelta(seconds=20)  # doubled
    harness.clock.advance(timedelta(seconds=20))
    harness.service.resolve_due(harness.clock.now())
    parked = TurnShunt(sessions).parked()
    assert [(p.game, p.turn, p.attempts) for p in parked] == [("aaa", 0, 3)]
    assert "engine bug" in parked[0].error
    notices = [m for m in harness.outbox("notice") if "could not be resolved" in m.subject]
    assert {m.recipient for m in notices} == {"gm@example.org", "host@example.org"}
    assert "referee turns requeue aaa" in notices[0].body
    # Parked: the deadline worker leaves it alone, however late it gets; bbb plays on.
    harness.clock.advance(timedelta(hours=5))
    assert ("aaa", 0) not in harness.service.resolve_due(harness.clock.now())
    assert "parked after 3 failed resolutions" in caplog.text
    # The log lines carry the ids as fields (a JSON log line has "game" and "turn"), not only in the text.
    shunted = [r for r in caplog.records if r.name == "bot.core.turns.shunt"]
    assert len(shunted) == 3 and {(getattr(r, "game", None), getattr(r, "turn", None)) for r in shunted} == {("aaa", 0)}


def test_a_requeued_turn_resolves_with_the_orders_on_file(sessions, monkeypatch):
    harness = Harness(sessions)
    two_games(harness)
    monkeypatch.setattr(
        turns, "rules_of", lambda game: BrokenRules(rules_of(game)) if game.slug == "aaa" else rules_of(game)
    )
    for _ in range(harness.config.turn_max_attempts):
        harness.clock.advance(timedelta(hours=2))
        harness.service.resolve_due(harness.clock.now())
    assert [p.game for p in TurnShunt(sessions).parked()] == ["aaa"]
    monkeypatch.undo()  # the engine is fixed
    assert TurnShunt(sessions).requeue("aaa", harness.clock.now())
    assert not TurnShunt(sessions).requeue("aaa", harness.clock.now())  # no longer parked
    assert harness.service.resolve_due(harness.clock.now()) == [("aaa", 0)]
    with unit_of_work(sessions) as session:
        game = find_game(session, "aaa")
        assert game.turn_failures == 0 and game.phase_number == 1


def test_an_engine_error_on_the_last_order_parks_the_turn_not_the_message(sessions, broken_aaa, caplog):
    """Early processing: the last order is accepted and answered; the failing turn goes to the shunt."""
    harness = Harness(sessions)
    harness.golden_strider_game("aaa", early=True)
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("aaa", "cards 10 8 6 4 2"))
    last = harness.send(SEATS[-1], c.SubmitOrders("aaa", "cards 10 8 6 4 2"))
    assert "orders_accepted" in last.applied.results and "turn_deferred" in last.applied.results
    assert "could not be resolved just now" in last.reply
    (deferred,) = [r for r in caplog.records if "once complete failed" in r.getMessage()]
    assert (getattr(deferred, "game", None), getattr(deferred, "turn", None)) == ("aaa", 0), "the ids as fields"
    with unit_of_work(sessions) as session:
        game = find_game(session, "aaa")
        assert game.phase_number == 0 and game.resolve_at == harness.clock.now()
    assert harness.service.resolve_due(harness.clock.now()) == []  # the retry fails too, and is counted
    with unit_of_work(sessions) as session:
        assert find_game(session, "aaa").turn_failures == 1
