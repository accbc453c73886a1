"""A complete turn resolves at once (or after the game's early delay), whatever completed it.

The promise is one rule (:mod:`bot.core.turns.completion`) evaluated after every command that changes
a game and in the deadline worker's pass, not a call inside the orders handler: each test here
completes a turn by something other than a player's last order (a GM's orders for a seat, RESUME,
the end of a pause, EJECT, REPLACE, RESIGN, a WAIT withdrawn) and expects it resolved; the attacks
are the cases that must not resolve (a WAIT, a paused game, a seat taken over with no orders, a turn
reopened by a rollback whose orders were sent before it).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.store.db import unit_of_work
from bot.store.models import TurnRecord
from tests.core.harness import SEATS, Harness

SETUP = "cards 10 8 6 4 2"


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def started(harness: Harness, early: str | None = "0", slug: str = "g1") -> None:
    sent = harness.send("GM", c.CreateGame(slug, "golden-strider", {}, "UTC", 60, auth="address", early_delay=early))
    assert sent.applied.results == ("created",), sent.reply
    for name in SEATS:
        harness.send(name, c.JoinGame(slug, name))
    assert harness.send("GM", c.StartGame(slug)).applied.results == ("started",)


def resolved(harness: Harness, slug: str = "g1") -> list[int]:
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, slug)
        return list(session.scalars(select(TurnRecord.turn_number).where(
            TurnRecord.game_id == game.id, TurnRecord.generation == game.generation).order_by(TurnRecord.turn_number)))  # fmt: skip


def order(harness: Harness, names: list[str], text: str = SETUP, slug: str = "g1") -> None:
    for name in names:
        assert "orders_accepted" in harness.send(name, c.SubmitOrders(slug, text)).applied.results


def test_orders_sent_during_a_pause_resolve_the_turn_when_the_game_resumes(harness):
    started(harness)
    order(harness, SEATS[1:])
    assert harness.send("GM", c.PauseGame("g1", "a holiday")).applied.results == ("paused",)
    order(harness, ["Ann"])
    assert resolved(harness) == []  # paused: nothing resolves
    sent = harness.send("GM", c.ResumeGame("g1", "back"))
    assert "turn_resolved" in sent.applied.results, sent.reply
    assert resolved(harness) == [0]


def test_a_pause_that_ends_by_itself_resolves_a_turn_completed_during_it(harness):
    started(harness)
    order(harness, SEATS[1:])
    harness.send("GM", c.PauseGame("g1", "a short break", until="+10m"))
    order(harness, ["Ann"])
    harness.clock.advance(timedelta(minutes=11))
    assert harness.service.resume_due(harness.clock.now()) == ["g1"]
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]


def test_a_resumed_game_with_a_delay_plans_the_resolution_and_tells_everyone(harness):
    started(harness, early="30m")
    harness.send("GM", c.PauseGame("g1", "a holiday"))
    order(harness, SEATS)
    sent = harness.send("GM", c.ResumeGame("g1", "back"))
    assert "early_planned" in sent.applied.results
    told = [m for m in harness.outbox("notice") if "every order is in" in m.subject]
    assert {m.recipient for m in told} == {"public:g1"} | {f"{n.lower()}@example.org" for n in SEATS}
    harness.clock.advance(timedelta(minutes=29))
    assert harness.service.resolve_due(harness.clock.now()) == []
    harness.clock.advance(timedelta(minutes=1))
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]


def test_a_game_masters_orders_that_complete_the_set_resolve_the_turn(harness):
    started(harness)
    order(harness, SEATS[:-1])
    sent = harness.send("GM", c.EnterOrders("g1", "Fay", SETUP, "sent to me by post"))
    assert sent.applied.results[:1] == ("orders_entered",) and "turn_resolved" in sent.applied.results, sent.reply
    assert resolved(harness) == [0]


def test_ejecting_the_last_seat_without_orders_completes_the_turn(harness):
    started(harness)
    order(harness, SEATS[:-1])
    sent = harness.send("GM", c.EjectPlayer("g1", "Fay", "gone"))
    assert "turn_resolved" in sent.applied.results, sent.reply
    with unit_of_work(harness.sessions) as session:
        assert session.scalars(select(TurnRecord)).one().defaulted == ["Fay"]


def test_resigning_the_last_seat_without_orders_completes_the_turn(harness):
    started(harness)
    order(harness, SEATS[:-1])
    assert "turn_resolved" in harness.send("Fay", c.Resign("g1")).applied.results
    assert resolved(harness) == [0]


def test_replacing_a_seat_that_asked_to_wait_completes_the_turn(harness):
    """The WAIT was its old holder's; the seat handed over carries none (its orders on file stand)."""
    started(harness)
    harness.send("Fay", c.WaitForDeadline("g1"))
    order(harness, SEATS)
    assert resolved(harness) == []
    sent = harness.send("GM", c.ReplacePlayer("g1", "Fay", "email", "gil@example.org", "Fay moved away"))
    assert "turn_resolved" in sent.applied.results, sent.reply
    assert resolved(harness) == [0]


def test_a_wait_withdrawn_completes_the_turn(harness):
    started(harness)
    harness.send("Ben", c.WaitForDeadline("g1"))
    order(harness, SEATS)
    assert resolved(harness) == []  # Ben asked to wait
    assert "turn_resolved" in harness.send("Ben", c.WaitForDeadline("g1", wait=False)).applied.results
    assert resolved(harness) == [0]


def test_a_wait_cancels_a_planned_early_resolution_and_a_wait_withdrawn_plans_it_again(harness):
    started(harness, early="30m")
    order(harness, SEATS)
    harness.send("Ben", c.WaitForDeadline("g1"))
    harness.clock.advance(timedelta(minutes=31))
    assert harness.service.resolve_due(harness.clock.now()) == []
    assert "early_planned" in harness.send("Ben", c.WaitForDeadline("g1", wait=False)).applied.results
    harness.clock.advance(timedelta(minutes=30))
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]


def test_a_seat_taken_over_without_orders_is_waited_for(harness):
    """The attack: a substitute who takes a freed seat must get the chance to order before the turn
    resolves early; the turn is complete again once they have."""
    started(harness, early="30m")
    order(harness, SEATS[:-1])
    harness.send("Fay", c.Resign("g1"))
    harness.send("GM", c.OfferSeat("g1", "Fay", reason="Fay left"))
    sent = harness.send("Gil", c.TakeSeat("g1", "Fay"))
    assert sent.applied.results == ("take_waiting",), sent.reply
    harness.send("GM", c.OfferSeat("g1", "Fay", "accept", "welcome"))
    harness.clock.advance(timedelta(minutes=31))
    assert harness.service.resolve_due(harness.clock.now()) == []  # Gil has not ordered yet
    assert "early_planned" in harness.send("Gil", c.SubmitOrders("g1", SETUP)).applied.results
    harness.clock.advance(timedelta(minutes=30))
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]


def test_a_paused_game_never_resolves_early(harness):
    started(harness)
    harness.send("GM", c.PauseGame("g1", "a holiday"))
    order(harness, SEATS)
    harness.send("Ben", c.WaitForDeadline("g1", wait=False))
    harness.clock.advance(timedelta(days=3))
    assert harness.service.resolve_due(harness.clock.now()) == []
    assert resolved(harness) == []


def test_a_game_without_early_processing_waits_for_its_deadline(harness):
    started(harness, early=None)
    order(harness, SEATS)
    harness.send("GM", c.SetDeadline("g1", "+1h", "more time"))
    assert resolved(harness) == []


def test_a_turn_reopened_by_a_rollback_waits_for_new_orders_or_its_deadline(harness):
    """Orders on file from before a rollback do not complete the reopened turn: every seat may look
    again.  Once every seat has sent its orders again, it resolves early as ever."""
    started(harness)
    order(harness, SEATS)
    assert resolved(harness) == [0]
    harness.clock.advance(timedelta(minutes=5))
    sent = harness.send("GM", c.RollBack("g1", 0, "a wrong setup rule"))
    assert sent.applied.results == ("rolled_back",) and "turn_resolved" not in sent.applied.results
    harness.send("Ann", c.ShowStatus("g1"))
    order(harness, SEATS[:-1])
    assert resolved(harness) == []
    order(harness, ["Fay"])
    assert resolved(harness) == [0]


def test_a_plan_taken_back_and_made_again_in_the_same_second_is_told_again(harness):
    """Found by the state machine: pausing and resuming a complete game twice in one second planned the
    same moment twice, and its notice's key repeated (the outbox refused the second)."""
    started(harness, early="30m")
    order(harness, SEATS)
    for _ in range(2):
        assert harness.send("GM", c.PauseGame("g1", "a break")).applied.results == ("paused",)
        assert "early_planned" in harness.send("GM", c.ResumeGame("g1", "back")).applied.results
    told = [
        m for m in harness.outbox("notice") if "every order is in" in m.subject and m.recipient == "ann@example.org"
    ]
    assert len(told) == 3  # the plan, and each plan made again
