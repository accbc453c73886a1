"""Ready checks in the core (bot/core/turns/ready_checks.py, bot/core/commands/ready.py): a full game
asks each seat to confirm within its window; the deadline worker frees the silent ones exactly once,
across a restart and with two workers at once; the game reopens, refills, and asks only the new seats.
Run on SQLite and PostgreSQL (tests/support/database.py)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.core.basics.display_width import display_width
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.core.runtime.service import GameService
from bot.store.db import unit_of_work
from bot.store.models import AuditEntry
from tests.core.harness import PUBLIC_CHANNEL, SEATS, Harness

READY_TEMPLATES = ("ready_request", "game_ready", "ready_expired", "ready_freed", "ready_reopened", "game_filled")


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def create(harness: Harness, slug: str = "g1", ready: str = "24h", **settings) -> None:
    sent = harness.send("GM", c.CreateGame(slug, "golden-strider", {}, "Europe/Paris", 60, False, "address",
                                           seats=6, max_seats=6, ready_check=ready, **settings))  # fmt: skip
    assert sent.applied.results == ("created",), sent.reply


def fill(harness: Harness, slug: str = "g1", names: list[str] = SEATS) -> None:
    for name in names:
        sent = harness.send(name, c.JoinGame(slug, name))
        assert sent.applied.results == ("joined",), sent.reply


def seats(harness: Harness, slug: str = "g1") -> dict[str, bool]:
    """Each seat's name -> whether it has confirmed."""
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, slug)
        assert game is not None
        return {seat.name: seat.ready_at is not None for seat in game.seats}


def rows(harness: Harness, template: str) -> list:
    return [row for row in harness.outbox() if row.template == template]


def ready(harness: Harness, who: str, slug: str = "g1", **kw):
    return harness.send(who, c.ConfirmReady(slug, **kw))


def test_off_by_default_a_full_game_starts_as_before(harness):
    sent = harness.send("GM", c.CreateGame("g0", "golden-strider", {}, "UTC", 60, False, "address", seats=6))
    assert sent.applied.results == ("created",)
    fill(harness, "g0")
    assert rows(harness, "ready_request") == []
    assert ready(harness, "Ann", "g0").applied.problems == ("no_ready_check",)
    assert harness.send("GM", c.StartGame("g0")).applied.results == ("started",)


@pytest.mark.parametrize(("window", "reason"), [("soon", "ready:"), ("31d", "ready:"), ("90s", "ready:")])
def test_a_window_that_is_not_one_creates_nothing(harness, window, reason):
    sent = harness.send("GM", c.CreateGame("bad", "golden-strider", ready_check=window))
    assert sent.applied.problems == ("bad_game_settings",)
    assert reason in (sent.reply or "")


def test_filling_asks_every_seat_on_its_channels_and_start_waits(harness):
    create(harness)
    fill(harness, names=SEATS[:5])
    assert ready(harness, "Ann").applied.problems == ("ready_not_yet",)  # not full: no check yet
    assert rows(harness, "ready_request") == []
    fill(harness, names=SEATS[5:])
    asked = rows(harness, "ready_request")
    assert sorted(row.data["seat"] for row in asked) == sorted(SEATS)
    assert {row.data["round"] for row in asked} == {1}
    assert all("READY g1" in row.body for row in asked)
    filled = rows(harness, "game_filled")
    assert len(filled) == 1 and "ready check runs until" in filled[0].body
    start = harness.send("GM", c.StartGame("g1"))
    assert start.applied.problems == ("ready_check_pending",)
    assert "Ann" in (start.reply or "")


def test_confirmations_and_every_bad_input_change_nothing(harness):
    create(harness)
    fill(harness)
    assert ready(harness, "Ann").applied.results == ("ready_confirmed",)
    twice = ready(harness, "Ann")
    assert twice.applied.problems == ("already_ready",) and "already confirmed" in (twice.reply or "")
    assert ready(harness, "Zed").applied.problems == ("no_seat",)  # holds no seat
    assert ready(harness, "Ann", seat="Ben").applied.problems == ("ready_not_your_seat",)  # Ben's button
    assert ready(harness, "Ben", check_round=0).applied.problems == ("ready_stale",)  # an old check's button
    assert ready(harness, "Ben", "nogame").applied.problems == ("unknown_game",)
    assert seats(harness) == {name: name == "Ann" for name in SEATS}
    harness.clock.advance(timedelta(hours=24))  # the window has ended; the worker has not run yet
    late = ready(harness, "Ben")
    assert late.applied.problems == ("ready_window_closed",) and "ended at" in (late.reply or "")
    assert seats(harness) == {name: name == "Ann" for name in SEATS}


def test_all_confirmed_tells_the_game_masters_and_start_works(harness):
    create(harness)
    fill(harness)
    for name in SEATS[:-1]:
        ready(harness, name)
    assert rows(harness, "game_ready") == []
    last = ready(harness, SEATS[-1])
    assert "Every seat has confirmed" in (last.reply or "")
    told = rows(harness, "game_ready")
    assert [row.recipient for row in told] == ["gm@example.org"]
    assert harness.send("GM", c.StartGame("g1")).applied.results == ("started",)
    assert ready(harness, "Ann").applied.problems == ("already_started",)


def test_the_game_master_confirms_a_seat_and_it_is_logged(harness):
    create(harness)
    fill(harness)
    refused = harness.send("Ann", c.MarkReady("g1", "Ben", "he phoned"))
    assert refused.applied.problems == ("not_game_master",)
    assert harness.send("GM", c.MarkReady("g1", "Nobody", "x")).applied.problems == ("no_such_seat",)
    sent = harness.send("GM", c.MarkReady("g1", "ben", "he phoned me"))
    assert sent.applied.results == ("ready_confirmed",)
    assert seats(harness)["Ben"] is True
    with unit_of_work(harness.sessions) as session:
        entries = session.scalars(select(AuditEntry).where(AuditEntry.action == "MarkReady")).all()
        assert [entry.reason for entry in entries] == ["he phoned me"]
    assert harness.send("GM", c.MarkReady("g1", "Ben", "again")).applied.problems == ("already_ready",)


def test_the_window_frees_the_silent_exactly_once_across_a_restart(harness):
    create(harness)
    fill(harness)
    for name in SEATS:
        if name != "Cat":
            ready(harness, name)
    harness.clock.advance(timedelta(hours=23, minutes=59))
    assert DeadlineWorker(harness.service, harness.clock).run_once_sync() == []
    assert "Cat" in seats(harness)  # not yet
    harness.clock.advance(timedelta(minutes=2))
    # a worker that wakes for the window: the check's end is among the deadlines it sleeps until
    assert harness.service.next_deadline() is not None
    DeadlineWorker(harness.service, harness.clock).run_once_sync()
    assert "Cat" not in seats(harness) and len(seats(harness)) == 5
    before = len(harness.outbox())
    # a restart: a new service and worker on the same database find nothing left to free
    restarted = GameService(harness.sessions, harness.config)
    DeadlineWorker(restarted, harness.clock).run_once_sync()
    assert restarted.expire_ready_checks(harness.clock.now()) == []
    assert len(harness.outbox()) == before
    freed = rows(harness, "ready_freed")
    assert [row.recipient for row in freed] == ["cat@example.org"] and "was freed" in freed[0].body
    expired = rows(harness, "ready_expired")
    assert [row.recipient for row in expired] == ["gm@example.org"] and "Cat" in expired[0].body
    public = rows(harness, "ready_reopened")
    assert [row.channel for row in public] == [PUBLIC_CHANNEL]
    assert ready(harness, "Cat").applied.problems == ("no_seat",)  # the freed player holds nothing now
    assert harness.send("GM", c.StartGame("g1")).applied.problems == ("seats_not_filled",)


def test_two_workers_at_once_free_each_seat_once(harness):
    create(harness)
    fill(harness)
    harness.clock.advance(timedelta(hours=25))
    now = harness.clock.now()
    services = [GameService(harness.sessions, harness.config) for _ in range(2)]
    results: list[list[tuple[str, list[str]]]] = []
    barrier = threading.Barrier(2)

    def run(service: GameService) -> None:
        barrier.wait()
        results.append(service.expire_ready_checks(now))

    threads = [threading.Thread(target=run, args=(service,)) for service in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    freed = [name for result in results for _, names in result for name in names]
    assert sorted(freed) == sorted(SEATS)
    assert len(rows(harness, "ready_freed")) == len(SEATS)
    assert seats(harness) == {}


def test_refilling_asks_only_the_new_seats_then_the_game_starts(harness):
    create(harness)
    fill(harness)
    for name in SEATS:
        if name not in ("Cat", "Dan"):
            ready(harness, name)
    harness.clock.advance(timedelta(hours=25))
    DeadlineWorker(harness.service, harness.clock).run_once_sync()
    assert set(seats(harness)) == set(SEATS) - {"Cat", "Dan"}
    asked_before = len(rows(harness, "ready_request"))
    fill(harness, names=["Gus"])
    assert ready(harness, "Gus").applied.problems == ("ready_not_yet",)
    fill(harness, names=["Hal"])
    new = rows(harness, "ready_request")[asked_before:]
    assert sorted(row.data["seat"] for row in new) == ["Gus", "Hal"]  # the confirmed are not asked again
    assert {row.data["round"] for row in new} == {2}
    assert ready(harness, "Ann").applied.problems == ("already_ready",)
    ready(harness, "Gus")
    ready(harness, "Hal")
    assert len(rows(harness, "game_ready")) == 1
    assert harness.send("GM", c.StartGame("g1")).applied.results == ("started",)


def test_a_seat_leaving_during_the_check_stops_it_until_the_game_fills_again(harness):
    create(harness)
    fill(harness)
    ready(harness, "Ann")
    assert harness.send("Fay", c.Resign("g1")).applied.results == ("left",)
    harness.clock.advance(timedelta(hours=25))
    DeadlineWorker(harness.service, harness.clock).run_once_sync()
    assert len(seats(harness)) == 5  # nobody freed: no check ran once the game was not full
    assert ready(harness, "Ben").applied.problems == ("ready_not_yet",)
    fill(harness, names=["Gus"])
    assert ready(harness, "Ben").applied.results == ("ready_confirmed",)


def test_every_mailed_line_of_the_ready_check_fits_78_columns(harness):
    long = "Ｗｉｄｅ" * 5  # 40 columns of fullwidth letters: the widest seat name
    create(harness, "a-very-long-game-name-for-a-ready-check")
    fill(harness, "a-very-long-game-name-for-a-ready-check", [*SEATS[:5], long])
    ready(harness, "Ann", "a-very-long-game-name-for-a-ready-check")
    harness.send("GM", c.MarkReady("a-very-long-game-name-for-a-ready-check", "Ben", "phoned " * 20))
    harness.clock.advance(timedelta(hours=25))
    DeadlineWorker(harness.service, harness.clock).run_once_sync()
    shown = [row for row in harness.outbox() if row.template in (*READY_TEMPLATES, "reply")]
    assert {row.template for row in shown} >= {"ready_request", "ready_freed", "ready_expired", "ready_reopened"}
    for row in shown:
        subject = [] if row.template == "reply" else [row.subject]  # a reply's subject is the sender's own
        for line in [*subject, *row.body.splitlines()]:
            assert display_width(line) <= 78, (row.template, line)


def test_open_seating_started_before_it_fills_has_no_check(harness):
    """``MAX n``: the GM may start with fewer seats; no check ran, so START is not held up by one."""
    sent = harness.send("GM", c.CreateGame("g2", "golden-strider", {}, "UTC", 60, False, "address", max_seats=8,
                                           ready_check="24h"))  # fmt: skip
    assert sent.applied.results == ("created",)
    fill(harness, "g2")
    assert rows(harness, "ready_request") == []
    assert ready(harness, "Ann", "g2").applied.problems == ("ready_not_yet",)
    assert harness.send("GM", c.StartGame("g2")).applied.results == ("started",)
