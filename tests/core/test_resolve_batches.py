"""Resolving due games in batches (bot/core/runtime/service.py ``resolve_due``): one transaction per batch,
a failing game rolled out of its batch, and workers that take disjoint batches (PostgreSQL SKIP LOCKED)."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import event, select

import bot.core.runtime.service as service_module
from bot.core.games.stored import find_game, rules_of
from bot.core.model import commands as c
from bot.core.turns import resolution as turns
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, TurnRecord
from tests.core.harness import Harness
from tests.core.test_shunt import BrokenRules
from tests.support.database import fresh_postgres_database

SLUGS = [f"g{n}" for n in range(7)]


def league(harness: Harness, slugs: list[str] = SLUGS) -> None:
    for slug in slugs:
        harness.golden_strider_game(slug)
        harness.setup_all(slug)


def commits_during(engine, action) -> int:
    count = 0

    def on_commit(_connection):
        nonlocal count
        count += 1

    event.listen(engine, "commit", on_commit)
    try:
        action()
    finally:
        event.remove(engine, "commit", on_commit)
    return count


def test_due_games_are_resolved_a_batch_per_commit_and_a_failing_one_holds_up_no_other(sessions, monkeypatch):
    harness = Harness(sessions)
    league(harness)
    monkeypatch.setattr(
        turns, "rules_of", lambda game: BrokenRules(rules_of(game)) if game.slug == "g4" else rules_of(game)
    )
    harness.clock.advance(timedelta(minutes=61))
    resolved: list[tuple[str, int]] = []
    commits = commits_during(
        sessions.kw["bind"], lambda: resolved.extend(harness.service.resolve_due(harness.clock.now(), batch=3))
    )
    assert resolved == [(slug, 0) for slug in SLUGS if slug != "g4"]
    # g0-g2 in one commit; g3-g5 rolled back when g4 raised, its failure recorded (one commit), g3 g5 g6
    # claimed again (one commit), and the last, empty claim (one commit): far fewer than one per game.
    assert commits == 4
    with unit_of_work(sessions) as session:
        g4 = find_game(session, "g4")
        assert g4.turn_failures == 1 and "engine bug" in (g4.turn_error or "")
        records = Counter(session.scalars(select(Game.slug).join(TurnRecord, TurnRecord.game_id == Game.id)).all())
    assert records == {slug: 1 for slug in SLUGS if slug != "g4"}
    reports = Counter(r.row.game_id for r in harness.outbox("report") if r.row.template == "report")
    assert sorted(reports.values()) == [8] * 6  # 6 seats, the public place, the GM: each report once


def test_a_game_left_due_is_not_claimed_again_in_the_same_pass(sessions, monkeypatch):
    """A game that stays due without resolving (here: its intake is behind) ends the pass, not loops it."""
    harness = Harness(sessions)
    league(harness, SLUGS[:3])
    monkeypatch.setattr(service_module, "intakes_behind", lambda session, due_at, intakes: ["imap"])
    harness.clock.advance(timedelta(minutes=61))
    assert harness.service.resolve_due(harness.clock.now(), batch=2) == []


@pytest.fixture
def postgres_url(request: pytest.FixtureRequest) -> str:
    return fresh_postgres_database(request.getfixturevalue("postgres"), request.getfixturevalue("postgres_template"))


def test_a_worker_skips_the_games_another_worker_holds_and_resolves_the_rest(postgres_url):
    engine = make_engine(postgres_url)
    sessions = session_factory(engine)
    try:
        harness = Harness(sessions)
        league(harness)
        harness.clock.advance(timedelta(minutes=61))
        now = harness.clock.now()
        other = sessions()  # another worker, in the middle of its batch: it holds g0-g2
        held = other.scalars(
            select(Game).where(Game.slug.in_(SLUGS[:3])).order_by(Game.id).with_for_update(skip_locked=True)
        ).all()
        assert len(held) == 3
        try:
            done: list[list[tuple[str, int]]] = []
            worker = threading.Thread(target=lambda: done.append(harness.service.resolve_due(now, batch=2)))
            worker.start()
            worker.join(timeout=60)  # it must not wait for the other worker's locks
            assert not worker.is_alive(), "the worker waited for rows another worker holds"
            assert done == [[(slug, 0) for slug in SLUGS[3:]]]
        finally:
            other.rollback()  # the other worker died: its games are due again, and the next pass takes them
            other.close()
        assert harness.service.resolve_due(now, batch=2) == [(slug, 0) for slug in SLUGS[:3]]
        with unit_of_work(sessions) as session:
            assert len(session.scalars(select(TurnRecord)).all()) == len(SLUGS)
    finally:
        engine.dispose()


def statements_during(engine, action) -> int:
    count = 0

    def on_statement(*_args):
        nonlocal count
        count += 1

    event.listen(engine, "before_cursor_execute", on_statement)
    try:
        action()
    finally:
        event.remove(engine, "before_cursor_execute", on_statement)
    return count


def test_a_batch_is_read_and_written_in_a_dozen_statements_whatever_its_size(sessions):
    """One query per game anywhere in resolving (orders, absences, the previous report, GM actions, public
    press, observers, game masters, the report's rows...) would add 8 statements to each batch of 8 here."""
    harness = Harness(sessions)
    slugs = [*SLUGS, "g7"]
    league(harness, slugs)
    # Something for each batched read to find: a co-GM, an observer, an announced GM action, an absence.
    assert harness.send("GM", c.AddGameMaster("g0", "email", "co@example.org", "help")).applied.problems == ()
    assert harness.send("Zed", c.Observe("g1")).applied.problems == ()
    assert harness.send("GM", c.SetDeadline("g2", "+1m", "a minute more")).applied.problems == ()
    assert harness.send("Ann", c.DeclareAbsence("g3", "2026-03-20", "2026-03-21")).applied.problems == ()
    assert harness.send("Ann", c.SendPress("g4", ("ALL",), "Hello, all")).applied.problems == ()
    engine = sessions.kw["bind"]
    counts = []
    for turn in (0, 1):  # the second turn reads when the first report went out
        harness.clock.advance(timedelta(minutes=62))
        resolved: list[tuple[str, int]] = []
        now = harness.clock.now()
        counts.append(
            statements_during(engine, lambda into=resolved, at=now: into.extend(harness.service.resolve_due(at)))
        )
        assert resolved == [(slug, turn) for slug in slugs]
    # claim, seats, orders, absences, previous reports, GM actions, public press, GMs, observers, addresses;
    # the games' UPDATE, the turns' INSERT, the reports' INSERT (13); the empty claim that ends the pass (1).
    assert counts[0] <= 14 and counts[1] <= 14, counts
    with unit_of_work(sessions) as session:
        g0, g1, g2 = (find_game(session, slug).id for slug in ("g0", "g1", "g2"))
    reports = [r for r in harness.outbox("report") if r.row.template == "report" and r.row.turn_number == 0]
    assert any(r.recipient == "co@example.org" and r.row.game_id == g0 for r in reports)
    assert any(r.recipient == "zed@example.org" and r.row.game_id == g1 for r in reports)
    announced = [r for r in reports if r.row.game_id == g2 and r.recipient == "ann@example.org"]
    said = " ".join(announced[0].body.split()) if len(announced) == 1 else ""
    assert "the GM moved the deadline to " in said and "-- a minute more" in said
    assert not any("the GM moved the deadline" in r.body for r in reports if r.row.game_id != g2)
    later = [r for r in harness.outbox("report") if r.row.turn_number == 1 and r.recipient == "ann@example.org"]
    assert len(later) == len(slugs) and not any("the GM moved the deadline" in r.body for r in later)  # announced once
