"""The core service on a real database (SQLite and PostgreSQL): commands, deadlines, reports."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from adjudicator.record import read_record, verify
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.turns.resolution import resolve_current_turn
from bot.core.views import GameViews
from bot.store.db import unit_of_work
from bot.store.models import Game, OrderSubmission, Seat, TurnRecord
from tests.core.harness import SEATS, Harness
from tests.support.stored import example_orders


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def turn_record(harness, number, slug="gs1"):
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, slug)
        return session.get(TurnRecord, (game.id, game.generation, number))


def test_start_announces_the_seed_commitment_to_every_player(harness):
    harness.golden_strider_game()
    starts = [m for m in harness.outbox("report") if "has started" in m.subject]
    # every seat, the game master (who holds no seat), and the public place
    assert {m.recipient for m in starts} == {f"{n.lower()}@example.org" for n in SEATS} | {
        "gm@example.org",
        "public:gs1",
    }
    with unit_of_work(harness.sessions) as session:
        commitment = find_game(session, "gs1").commitment
    assert all(commitment in m.body for m in starts)
    assert all("Deadline: 2026-03-01 13:00 UTC (Sun 14:00 CET, Europe/Paris)" in m.body for m in starts)


def test_orders_are_echoed_in_canonical_form_and_bad_lines_quoted(harness):
    harness.golden_strider_game()
    reply = harness.send("Ann", c.SubmitOrders("gs1", "Cards: 2, 4, 6, 8, 10")).reply
    assert "ORDERS ACCEPTED for gs1, setup" in reply and "cards 10 8 6 4 2" in reply
    reply = harness.send("Ann", c.SubmitOrders("gs1", "cards 9 9 9 9 9")).reply
    assert "ORDERS NOT ACCEPTED" in reply
    assert "> cards 9 9 9 9 9" in reply and "these total 45" in reply
    assert "Your orders on file still stand: cards 10 8 6 4 2" in reply


def test_last_set_of_orders_wins(harness):
    harness.golden_strider_game()
    harness.setup_all()
    harness.send("Ann", c.SubmitOrders("gs1", "cards 10 10 10 0 0"))
    harness.pass_deadline()
    assert turn_record(harness, 0).orders["Ann"] == "cards 10 10 10 0 0"
    with unit_of_work(harness.sessions) as session:
        rows = session.scalars(
            select(OrderSubmission).where(OrderSubmission.seat_name == "Ann").order_by(OrderSubmission.id)
        ).all()
        assert [r.current for r in rows] == [False, True]


def test_deadline_resolves_the_turn_once_with_no_moves_received_and_reports(harness):
    harness.golden_strider_game()
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("gs1", "cards 10 8 6 4 2"))
    assert harness.service.resolve_due(harness.clock.now()) == []  # not yet due
    assert harness.pass_deadline() == [("gs1", 0)]
    assert harness.service.resolve_due(harness.clock.now()) == []  # nothing resolves twice
    record = turn_record(harness, 0)
    assert record.defaulted == ["Fay"]
    assert any(e["kind"] == "nmr" and e["seat"] == "Fay" for e in record.events)
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, "gs1")
        assert game.phase_number == 1
        assert (game.deadline_at - harness.clock.now()).total_seconds() == 60 * 60
    reports = [m for m in harness.outbox("report") if "turn 0 report" in m.subject]
    assert {m.recipient for m in reports} == {f"{n.lower()}@example.org" for n in SEATS} | {
        "public:gs1",
        "gm@example.org",
    }
    assert len(reports) == len(SEATS) + 2  # every seat, the public thread, the GM
    assert all("Fay" in m.body and "6/0 6/0 6/0 6/0 6/0" in m.body for m in reports)


def test_a_turn_can_never_be_resolved_twice(harness):
    """Two workers that loaded the same phase: the second one's turn row is refused."""
    harness.golden_strider_game()
    harness.setup_all()
    first = harness.sessions()
    second = harness.sessions()
    try:
        game_a = first.scalars(select(Game).where(Game.slug == "gs1")).one()
        game_b = second.scalars(select(Game).where(Game.slug == "gs1")).one()
        _ = game_a.seats, game_b.seats
        resolve_current_turn(first, game_a, harness.clock.now(), ServiceConfig())
        first.commit()
        with pytest.raises(IntegrityError):
            resolve_current_turn(second, game_b, harness.clock.now(), ServiceConfig())
        second.rollback()
    finally:
        first.close()
        second.close()
    with unit_of_work(harness.sessions) as session:
        assert len(session.scalars(select(TurnRecord)).all()) == 1


def test_the_same_envelope_applied_twice_is_a_no_op(harness):
    harness.golden_strider_game()
    first = harness.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2"), source="imap:1:42")
    again = harness.send("Ann", c.SubmitOrders("gs1", "cards 10 10 10 0 0"), source="imap:1:42")
    assert not first.duplicate and again.duplicate and again.reply is None
    assert again.receipt == first.receipt
    with unit_of_work(harness.sessions) as session:
        assert len(session.scalars(select(OrderSubmission)).all()) == 1
    assert len([m for m in harness.outbox("reply") if m.recipient == "ann@example.org"]) == 2  # join + orders


def test_late_orders_are_refused_and_say_so(harness):
    harness.golden_strider_game()
    harness.clock.advance(timedelta(minutes=61))
    reply = harness.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2")).reply
    assert "too late: the deadline was 2026-03-01 13:00 UTC" in reply


def test_password_authentication_by_email(harness):
    harness.golden_strider_game(auth="password")
    join_reply = next(m.body for m in harness.outbox("reply") if m.recipient == "ben@example.org")
    secret = re.search(r"Your seat password: (\S+)", join_reply).group(1)
    assert "needs your seat password" in harness.send("Ben", c.SubmitOrders("gs1", "cards 10 8 6 4 2")).reply
    assert "wrong password" in harness.send("Ben", c.SubmitOrders("gs1", "cards 10 8 6 4 2"), password="nope").reply
    stranger = harness.send("Zed", c.SubmitOrders("gs1", "cards 10 8 6 4 2"), password=secret.upper()).reply
    assert "ORDERS ACCEPTED for gs1, setup: choose five cards totalling 30, seat Ben" in stranger
    notices = [m for m in harness.outbox("notice") if m.recipient == "ben@example.org"]
    assert len(notices) == 1 and "zed@example.org" in notices[0].body
    with unit_of_work(harness.sessions) as session:
        stored = session.scalars(select(Seat.secret_hash)).all()
    assert all(secret not in h for h in stored)
    assert all(secret not in m.body for m in harness.outbox("report"))


def test_discord_players_need_no_password(harness):
    harness.send("GM", c.CreateGame("gs2", "golden-strider", {}, "UTC", 60, False, "password"))
    for name in SEATS:
        harness.send(name, c.JoinGame("gs2", name), channel="discord")
    harness.send("GM", c.StartGame("gs2"))
    reply = harness.send("Ann", c.SubmitOrders("gs2", "cards 10 8 6 4 2"), channel="discord").reply
    assert "ORDERS ACCEPTED" in reply
    starts = {(m.channel, m.recipient) for m in harness.outbox("report") if "has started" in m.subject}
    assert {("discord", name) for name in SEATS} <= starts  # Discord players are reached on Discord


def test_mistakes_are_answered_not_raised(harness):
    harness.golden_strider_game()
    assert "there is no game called 'gs9'; games: gs1" in harness.send("Ann", c.SubmitOrders("gs9", "x")).reply
    assert "is running; it can only be joined before it starts" in harness.send("Zed", c.JoinGame("gs1")).reply
    assert "only the game master" in harness.send("Ann", c.StartGame("gs1")).reply
    assert "unknown game kind 'chess'" in harness.send("GM", c.CreateGame("g3", "chess")).reply
    assert "unknown option(s) laps" in harness.send("GM", c.CreateGame("g3", "golden-strider", {"laps": 3})).reply
    reply = harness.send("Ann", c.NotUnderstood("MOVE ALL", "not a command")).reply
    assert "> MOVE ALL" in reply and "not a command" in reply


def test_joining_checks_names_and_capacity(harness):
    harness.send("GM", c.CreateGame("gs5", "golden-strider"))
    assert "JOINED gs5" in harness.send("Ann", c.JoinGame("gs5", "Fast Ann")).reply
    assert "the name 'fast ann' is taken" in harness.send("Ben", c.JoinGame("gs5", "fast ann")).reply
    assert "you already have the seat Fast Ann" in harness.send("Ann", c.JoinGame("gs5")).reply
    for i in range(9):
        harness.send(f"P{i}", c.JoinGame("gs5"))
    assert "is full (10 seats)" in harness.send("Late", c.JoinGame("gs5")).reply
    assert "needs 6 to 10 runners" not in harness.send("GM", c.StartGame("gs5")).reply


def test_too_few_players_cannot_start(harness):
    harness.send("GM", c.CreateGame("gs6", "golden-strider"))
    harness.send("Ann", c.JoinGame("gs6"))
    assert "needs 6 to 10 runners, not 1" in harness.send("GM", c.StartGame("gs6")).reply


def test_early_processing_resolves_when_every_order_is_in(harness):
    harness.golden_strider_game(early=True)
    replies = [harness.send(name, c.SubmitOrders("gs1", "cards 10 8 6 4 2")).reply for name in SEATS]
    assert "TURN RESOLVED" in replies[-1] and "TURN RESOLVED" not in replies[-2]
    assert turn_record(harness, 0) is not None


def test_status_lists_who_has_ordered_but_not_their_orders(harness):
    harness.golden_strider_game()
    harness.send("Ann", c.SubmitOrders("gs1", "cards 10 10 4 4 2"))
    reply = harness.send("Ben", c.ShowStatus("gs1")).reply
    assert "Orders in from: Ann" in reply and "Waiting for: Ben, Cat, Dan, Eve, Fay" in reply
    assert "10 10 4 4 2" not in reply
    assert "Your orders on file: cards 10 10 4 4 2" in harness.send("Ann", c.ShowStatus("gs1")).reply


def test_resigned_seat_gets_no_moves_received(harness):
    harness.golden_strider_game()
    assert "RESIGNED from gs1" in harness.send("Cat", c.Resign("gs1")).reply
    harness.setup_all()
    harness.pass_deadline()
    harness.pass_deadline()
    assert "Cat" in turn_record(harness, 1).defaulted


def test_help_and_list(harness):
    harness.golden_strider_game()
    assert "JOIN <game> [AS <name>]" in harness.send("Ann", c.ShowHelp()).reply
    assert "GOLDEN STRIDER" in harness.send("Ann", c.ShowHelp("gs1")).reply
    assert "gs1" in harness.send("Ann", c.ListGames()).reply


def test_a_whole_game_finishes_reveals_its_seed_and_verifies(harness):

    harness.golden_strider_game()
    views = GameViews(harness.sessions)
    rng = random.Random(5)
    for _ in range(200):
        view = views.game("gs1")
        if view.phase is None:
            break
        for seat in view.phase.owing:
            harness.send(seat, c.SubmitOrders("gs1", example_orders(harness.sessions, "gs1", seat, rng)))
        harness.pass_deadline()
    assert views.game("gs1").status == "finished"
    final = [m for m in harness.outbox("report") if "(final)" in m.subject]
    with unit_of_work(harness.sessions) as session:
        seed = find_game(session, "gs1").seed
    assert len(final) == len(SEATS) + 2 and all(f"Seed revealed: {seed}" in m.body for m in final)
    assert all("Result:" in m.body and "   1. " in m.body for m in final)
    assert verify(read_record(views.record("gs1"))).ok


def test_orders_sent_before_the_turn_began_are_not_applied_to_it(harness):
    """A message held up (or requeued from the parked queue) after its turn resolved must not
    count for the next turn: it is refused and the reply says why."""
    harness.golden_strider_game()
    harness.setup_all()
    sent_at = harness.clock.now()
    harness.pass_deadline()
    reply = harness.send("Ann", c.SubmitOrders("gs1", "play 10/0 bank 0"), received_at=sent_at).reply
    assert "were sent before turn 1 began" in reply and "were not used" in reply
    assert "ORDERS ACCEPTED" not in reply
    assert "ORDERS ACCEPTED" in harness.send("Ann", c.SubmitOrders("gs1", "play 10/0 bank 0")).reply


def test_resigning_by_email_needs_the_password_in_a_password_game(harness):
    harness.golden_strider_game(auth="password")
    join_reply = next(m.body for m in harness.outbox("reply") if m.recipient == "dan@example.org")
    secret = re.search(r"Your seat password: (\S+)", join_reply).group(1)
    assert "needs your seat password" in harness.send("Dan", c.Resign("gs1")).reply
    assert "RESIGNED from gs1" in harness.send("Dan", c.Resign("gs1"), password=secret).reply


def test_a_message_with_nothing_but_ignored_lines_says_so(harness):
    reply = harness.send("Ann", ignored=("an attachment: photo.jpg (2 MB)",)).reply
    assert "NOTHING TO DO" in reply and "photo.jpg" in reply
