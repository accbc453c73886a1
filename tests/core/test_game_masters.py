"""Game masters run real games: create, schedule, override, audit, through the core's pipeline."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from bot.core.games.stored import find_game
from bot.core.messaging.rendering import render
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.store.db import unit_of_work
from bot.store.models import OrderSubmission, TurnRecord
from tests.core.harness import SEATS, Harness

SETUP = "cards 10 8 6 4 2"


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def create(harness: Harness, slug: str = "g1", **settings) -> None:
    sent = harness.send("GM", c.CreateGame(slug, "golden-strider", {}, settings.pop("time_zone", "UTC"), 60,
                                           settings.pop("early", False), settings.pop("auth", "address"), **settings))  # fmt: skip
    assert sent.applied.results == ("created",), sent.reply


def seated_game(harness: Harness, slug: str = "g1", **settings) -> None:
    create(harness, slug, **settings)
    for name in SEATS:
        harness.send(name, c.JoinGame(slug, name))
    assert harness.send("GM", c.StartGame(slug)).applied.results == ("started",)


def game(harness: Harness, slug: str = "g1"):
    with unit_of_work(harness.sessions) as session:
        found = find_game(session, slug)
        if found is not None:
            _ = found.seats
        return found


def gm(harness: Harness, command: c.Command):
    return harness.send("GM", command)


def test_create_checks_every_setting_and_names_it(harness):
    def refused(**settings):
        sent = harness.send("GM", c.CreateGame("bad", "golden-strider", **settings))
        assert sent.applied.problems == ("bad_game_settings",)
        return sent.reply

    assert "schedule:" in refused(schedule="every blue moon")
    assert "time zone:" in refused(time_zone="Mars/Olympus")
    assert "grace:" in refused(grace="soon")
    assert "seats: this game takes 6 to 10 players, not 3" in refused(seats=3)
    assert "join: expected one of anyone, invited" in refused(join="friends")
    assert "unknown option(s) laps" in refused(options={"laps": 3})
    assert game(harness, "bad") is None  # nothing was created


def test_start_is_refused_until_the_seats_are_filled(harness):
    create(harness, seats=7)
    for name in SEATS:
        harness.send(name, c.JoinGame("g1", name))
    sent = gm(harness, c.StartGame("g1"))
    assert sent.applied.problems == ("seats_not_filled",) and "6 of its 7 seats filled" in sent.reply
    harness.send("Gus", c.JoinGame("g1", "Gus"))
    assert harness.send("Hal", c.JoinGame("g1", "Hal")).applied.problems == ("game_full",)
    assert gm(harness, c.StartGame("g1")).applied.results == ("started",)


def test_joining_can_be_closed_and_limited_to_invited_players(harness):
    create(harness, join="invited", invited=("ann@example.org",))
    assert harness.send("Ann", c.JoinGame("g1")).applied.results == ("joined",)
    assert harness.send("Ben", c.JoinGame("g1")).applied.problems == ("not_invited",)
    assert gm(harness, c.SetJoining("g1", False)).applied.results == ("joining",)
    assert harness.send("Ann", c.Resign("g1")).applied.results == ("left",)
    assert harness.send("Ann", c.JoinGame("g1")).applied.problems == ("joining_closed",)


def test_gm_commands_are_refused_to_players_and_by_mail_without_the_gm_password(harness, caplog):
    seated_game(harness)
    sent = harness.send("Ann", c.SetDeadline("g1", "+1d", "I want more time"))
    assert sent.applied.problems == ("not_game_master",)
    assert "refused SetDeadline from email:ann@example.org (not_game_master)" in caplog.text
    by_mail = harness.send("GM", c.SetDeadline("g1", "+1d", "by mail"), trust=c.Trust.VOUCHED)
    assert by_mail.applied.problems == ("needs_gm_password",) and "add a line PASSWORD" in by_mail.reply
    created = next(m for m in harness.outbox("reply") if "CREATED g1" in m.body)
    secret = created.body.split("Your game master password: ")[1].split()[0]
    assert secret not in " ".join(m.body for m in harness.outbox() if m.id != created.id)
    with_password = harness.send("GM", c.SetDeadline("g1", "+1d", "by mail"), trust=c.Trust.VOUCHED, password=secret)
    assert with_password.applied.results == ("deadline_set",)


def test_set_deadline_tells_every_player_and_is_announced_in_the_next_report(harness):
    seated_game(harness)
    before = game(harness).deadline_at
    sent = gm(harness, c.SetDeadline("g1", "+2d3h", "a player is travelling"))
    assert sent.applied.results == ("deadline_set",)
    assert game(harness).deadline_at == before + timedelta(days=2, hours=3)
    told = [m for m in harness.outbox("notice") if "the deadline has moved" in m.subject]
    assert len(told) == len(SEATS) and "a player is travelling" in told[0].body
    assert gm(harness, c.SetDeadline("g1", "2020-01-01 10:00", "oops")).applied.problems == ("time_in_past",)
    assert gm(harness, c.SetDeadline("g1", "next tuesday", "oops")).applied.problems == ("bad_time",)
    harness.setup_all("g1")
    harness.clock.set(game(harness).deadline_at)
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]
    report = next(m for m in harness.outbox("report") if m.recipient == "ann@example.org" and "turn 0" in m.subject)
    assert "Game master's actions since the last report:" in report.body and "a player is travelling" in report.body


def announcements(harness: Harness, turn: int) -> str:
    """The "Game master's actions" part of Ann's copy of turn ``turn``'s report, on one line."""
    report = [m for m in harness.outbox("report") if m.recipient == "ann@example.org"
              and f"turn {turn} report" in m.subject][-1]  # fmt: skip
    body = report.body.split("Game master's actions since the last report:")
    return " ".join(body[1].split("-" * 78)[0].split()) if len(body) > 1 else ""


def test_every_override_is_announced_in_words_and_an_early_process_too(harness):
    """Each override in the next report in the players' words (no command names); a GM's early
    PROCESS in the report it produced (its audit entry comes after that report)."""
    seated_game(harness)
    deadline = game(harness).deadline_at
    assert gm(harness, c.SetDeadline("g1", "+1d", "slow week")).applied.results == ("deadline_set",)
    assert gm(harness, c.EnterOrders("g1", "Ann", "cards 10 8 6 4 2", "by phone")).applied.results == (
        "orders_entered",
    )
    assert gm(harness, c.PauseGame("g1", "server move")).applied.results == ("paused",)
    assert gm(harness, c.ResumeGame("g1", "back", "+2d")).applied.results == ("resumed",)
    harness.setup_all("g1")
    assert gm(harness, c.ProcessNow("g1", 0, "everyone is in")).applied.results == ("processed",)
    said = announcements(harness, 0)
    moved = (deadline + timedelta(days=1)).strftime("%Y-%m-%d %H:%M")
    assert f"the GM moved the deadline to {moved} UTC" in said, said
    assert "the GM entered orders for seat Ann -- by phone" in said
    assert "the GM paused the game -- server move" in said
    assert "the GM resumed the game, deadline " in said
    assert said.count("the GM processed turn 0 early -- everyone is in") == 1
    for internal in ("SetDeadline", "EnterOrders", "PauseGame", "ResumeGame", "ProcessNow"):
        assert internal not in said
    harness.clock.advance(timedelta(hours=1))
    assert gm(harness, c.RollBack("g1", 0, "wrong cards")).applied.results == ("rolled_back",)
    assert gm(harness, c.ProcessNow("g1", 0, "again")).applied.results == ("processed",)
    said = announcements(harness, 0)
    assert (
        "the GM rolled back turn 0 with a fresh draw -- wrong cards" in said
        and "the GM processed turn 0 early -- again" in said
    )


def test_one_rule_for_shifts_stated_in_the_error_and_the_reply(harness):
    """+2d3h moves the current deadline (DEADLINE); it counts from now where the old deadline no longer
    holds (RESUME): each reply and error says which."""
    seated_game(harness)
    deadline = game(harness).deadline_at
    bad = gm(harness, c.SetDeadline("g1", "soon", "x"))
    assert "or +2d3h (counted from the current deadline)" in " ".join((bad.reply or "").split())
    moved = gm(harness, c.SetDeadline("g1", "+1m", "a minute more"))
    text = " ".join((moved.reply or "").split())
    assert f"(+1m counted from the deadline it replaces, {deadline:%Y-%m-%d %H:%M} UTC" in text, text
    assert game(harness).deadline_at == deadline + timedelta(minutes=1)
    gm(harness, c.PauseGame("g1", "break"))
    bad = gm(harness, c.ResumeGame("g1", "back", "soon"))
    assert "or +2d3h (counted from now)" in " ".join((bad.reply or "").split())
    resumed = gm(harness, c.ResumeGame("g1", "back", "+2h"))
    assert "(+2h counted from now" in " ".join((resumed.reply or "").split())
    assert game(harness).deadline_at == harness.clock.now() + timedelta(hours=2)


def test_a_paused_game_does_not_process_at_its_deadline_and_resumes_with_a_new_one(harness):
    seated_game(harness)
    deadline = game(harness).deadline_at
    assert gm(harness, c.PauseGame("g1", "the club is closed")).applied.results == ("paused",)
    harness.clock.set(deadline + timedelta(hours=5))
    assert harness.service.resolve_due(harness.clock.now()) == []
    sent = gm(harness, c.ResumeGame("g1", "open again"))
    assert sent.applied.results == ("resumed",)
    assert game(harness).deadline_at == harness.clock.now() + timedelta(minutes=60)
    assert game(harness).status == "running"


def test_a_pause_until_a_time_resumes_by_itself(harness):
    seated_game(harness)
    until = (harness.clock.now() + timedelta(days=2)).isoformat()
    assert gm(harness, c.PauseGame("g1", "holidays", until)).applied.results == ("paused",)
    harness.clock.advance(timedelta(days=1))
    assert harness.service.resume_due(harness.clock.now()) == []
    harness.clock.advance(timedelta(days=1))
    assert harness.service.resume_due(harness.clock.now()) == ["g1"]
    assert game(harness).status == "running" and game(harness).deadline_at == harness.clock.now() + timedelta(hours=1)


def test_process_names_its_turn_so_a_repeat_can_never_process_two(harness):
    seated_game(harness)
    harness.setup_all("g1")
    first = gm(harness, c.ProcessNow("g1", 0, "everyone is in"))
    assert first.applied.results == ("processed",)
    again = gm(harness, c.ProcessNow("g1", 0, "everyone is in"))
    assert again.applied.problems == ("not_the_open_turn",) and "turn 1 is" in again.reply
    with unit_of_work(harness.sessions) as session:
        assert len(session.scalars(select(TurnRecord)).all()) == 1


def test_preview_shows_the_gm_the_report_and_changes_nothing(harness):
    seated_game(harness)
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("g1", SETUP))
    outbox_before = len(harness.outbox())
    sent = gm(harness, c.PreviewTurn("g1"))
    assert sent.applied.results == ("preview",)
    assert "PREVIEW g1, turn 0" in sent.reply and "No orders yet from: Fay" in sent.reply
    assert len(harness.outbox()) == outbox_before + 1  # only the GM's reply
    assert game(harness).phase_number == 0


def test_gm_orders_for_a_seat_count_and_the_player_gets_a_copy(harness):
    seated_game(harness)
    sent = gm(harness, c.EnterOrders("g1", "ann", SETUP, "Ann phoned them in"))
    assert sent.applied.results == ("orders_entered",)
    copy = next(m for m in harness.outbox("notice") if m.recipient == "ann@example.org")
    assert "cards 10 8 6 4 2" in copy.body and "Ann phoned them in" in copy.body
    assert gm(harness, c.EnterOrders("g1", "Zed", SETUP, "x")).applied.problems == ("no_such_seat",)


def test_replace_gives_the_substitute_the_seat_a_fresh_secret_and_its_private_state(harness):
    seated_game(harness, auth="password")
    with unit_of_work(harness.sessions) as session:
        old_hash = find_game(session, "g1").seats[0].secret_hash
    sent = gm(harness, c.ReplacePlayer("g1", "Ann", "email", "sub@example.org", "Ann left", "+1d"))
    assert sent.applied.results == ("replaced",)
    given = next(m for m in harness.outbox("notice") if m.recipient == "sub@example.org")
    secret = given.body.split("Your seat password: ")[1].split()[0]
    with unit_of_work(harness.sessions) as session:
        seat = find_game(session, "g1").seats[0]
        assert seat.secret_hash != old_hash and seat.player.identities[0].address == "sub@example.org"
    assert any(m.recipient == "ann@example.org" and "has a new player" in m.subject for m in harness.outbox("notice"))
    orders = harness.send("Sub", c.SubmitOrders("g1", SETUP), password=secret)
    assert orders.applied.results == ("orders_accepted",) and "seat Ann" in orders.reply


def test_status_shows_the_last_public_report(harness):
    """HELP promises the last report in STATUS: the squares, gems or scores, as the public copy has them."""
    seated_game(harness)
    before = harness.send("Ann", c.ShowStatus("g1"))
    assert "Last report" not in (before.reply or "")
    harness.setup_all("g1")
    harness.pass_deadline()
    public = next(m for m in harness.outbox("report") if m.recipient.startswith("public:") and "turn 0" in m.subject)
    part = public.body.split("-" * 78)[1].strip()  # the game's own part of the report
    status = harness.send("Zed", c.ShowStatus("g1")).reply or ""
    assert "Last report (turn 0):" in status
    assert part and part in status, status
    assert "Copy for" not in status  # the public copy: no seat's private data


def test_gm_orders_refused_show_the_seats_orders_on_file_and_what_was_refused(harness):
    seated_game(harness)
    entered = gm(harness, c.EnterOrders("g1", "Ann", "cards 10 8 6 4 2", "by phone"))
    assert entered.applied.results == ("orders_entered",)
    refused = gm(harness, c.EnterOrders("g1", "Ann", "cards 9 9 9 9 9", "a second call"))
    text = " ".join((refused.reply or "").split())
    assert "ORDERS NOT ACCEPTED for g1, seat Ann" in text
    assert "The orders on file for Ann still stand (they will be used): cards 10 8 6 4 2" in text, text
    assert "You have no orders on file" not in text
    assert "9" in text.split("NOT UNDERSTOOD", 1)[1]  # what was refused, and why
    empty = gm(harness, c.EnterOrders("g1", "Ben", "cards 9 9 9 9 9", "by phone"))
    assert "Seat Ben has no orders on file" in " ".join((empty.reply or "").split())


def test_joining_says_what_happens_next_and_the_gm_hears_when_the_game_fills(harness):
    create(harness, seats=6)
    first = " ".join((harness.send(SEATS[0], c.JoinGame("g1", SEATS[0])).reply or "").split())
    assert "The game starts once its 6 seats are filled (5 to go) and the game master starts it" in first
    for name in SEATS[1:-1]:
        harness.send(name, c.JoinGame("g1", name))
    assert not [m for m in harness.outbox("notice") if "every seat is filled" in m.subject]
    last = " ".join((harness.send(SEATS[-1], c.JoinGame("g1", SEATS[-1])).reply or "").split())
    assert "Every seat is filled: the game master has been told" in last
    told = [m for m in harness.outbox("notice") if "every seat is filled" in m.subject]
    assert [m.recipient for m in told] == ["gm@example.org"]
    assert "START g1" in told[0].body and "Ann, Ben, Cat, Dan, Eve, Fay" in " ".join(told[0].body.split())


def test_a_host_run_game_takes_gm_commands_by_mail_from_the_hosts_address(sessions):
    """Created on the command line without --gm: the GM password works by mail from host_addresses."""
    config = ServiceConfig(host_recipients=(("email", "host@example.org"),), public_channels=("screen",))
    harness = Harness(sessions, config=config)
    host = c.Envelope(c.Sender("cli", "host", "the host"), (c.CreateGame("g1", "golden-strider", seats=6),),
                      "cli:1", harness.clock.now(), trust=c.Trust.VERIFIED, as_host=True)  # fmt: skip
    created = harness.service.apply(host)
    assert created.results == ("created",)
    item = created.reply.data["items"][0]
    assert item["host_by_mail"] == ["host@example.org"]
    printed = render("cli/item.txt.j2", {"item": item}, "cli")
    assert "(for GM commands by mail from host@example.org)" in printed
    secret = item["gm_secret"]
    for name in SEATS:
        harness.send(name, c.JoinGame("g1", name))
    by_mail = harness.send("Host", c.StartGame("g1"), trust=c.Trust.VOUCHED, password=secret)
    assert by_mail.applied.results == ("started",), by_mail.reply
    stranger = harness.send("Zed", c.PauseGame("g1", "x"), trust=c.Trust.VOUCHED, password=secret)
    assert stranger.applied.problems == ("not_game_master",)


def test_a_daily_game_started_in_the_morning_ends_its_first_turn_that_evening(harness):
    harness.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    seated_game(harness, schedule="every day at 20:00")
    assert game(harness).deadline_at == datetime(2026, 3, 2, 20, 0, tzinfo=UTC)


def test_a_replacement_that_extends_the_deadline_tells_every_other_seat(harness):
    seated_game(harness)
    before = game(harness).deadline_at
    harness.clock.advance(timedelta(minutes=1))
    sent = gm(harness, c.ReplacePlayer("g1", "Ann", "email", "sub@example.org", "Ann left", "+1d"))
    assert sent.applied.results == ("replaced",)
    after = before + timedelta(days=1)
    assert game(harness).deadline_at == after
    moved = [m for m in harness.outbox("notice") if "the deadline has moved" in m.subject]
    assert sorted(m.recipient for m in moved) == sorted(f"{n.lower()}@example.org" for n in SEATS[1:])
    assert all(f"New deadline: {after:%Y-%m-%d %H:%M} UTC" in m.body and "Ann left" in m.body for m in moved)
    given = next(m for m in harness.outbox("notice") if m.recipient == "sub@example.org")
    assert f"{after:%Y-%m-%d %H:%M} UTC" in given.body
    assert "Orders: reply with ORDERS g1 and your orders, before the deadline; HELP g1" in " ".join(given.body.split())
    gm(harness, c.ReplacePlayer("g1", "Ben", "email", "sub2@example.org", "Ben left"))  # no extension: no notice
    assert len([m for m in harness.outbox("notice") if "the deadline has moved" in m.subject]) == len(moved)


def test_eject_leaves_the_seat_to_the_no_moves_received_rule(harness):
    seated_game(harness)
    assert gm(harness, c.EjectPlayer("g1", "Fay", "never answered")).applied.results == ("ejected",)
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("g1", SETUP))
    harness.pass_deadline()
    with unit_of_work(harness.sessions) as session:
        record = session.scalars(select(TurnRecord)).one()
        assert record.defaulted == ["Fay"]


def test_an_ejected_player_gets_the_public_report_not_the_seats_private_copy(harness):
    seated_game(harness)
    gm(harness, c.EjectPlayer("g1", "Fay", "never answered"))
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("g1", SETUP))
    harness.pass_deadline()
    reports = {row.recipient: row for row in harness.outbox("report") if row.channel == "email"}
    assert reports["ann@example.org"].data["seat"] == "Ann" and "Copy for Ann" in reports["ann@example.org"].body
    fay = reports["fay@example.org"]
    assert fay.data["seat"] is None and fay.data["private"] is None and "Copy for" not in fay.body


def test_rollback_then_reprocess_gives_an_identical_report(harness):
    seated_game(harness)
    harness.setup_all("g1")
    harness.pass_deadline()
    for name in SEATS:
        harness.send(name, c.SubmitOrders("g1", "play 10/0 bank 0"))
    harness.pass_deadline()
    first = {m.recipient: m.data for m in harness.outbox("report") if m.turn_number == 1}
    sent = gm(harness, c.RollBack("g1", 1, "the wrong orders were used"))
    assert sent.applied.results == ("rolled_back",) and "Orders on file for turn 1" in sent.reply
    assert gm(harness, c.RollBack("g1", 5, "x")).applied.problems == ("not_resolved",)
    assert gm(harness, c.ProcessNow("g1", 1, "again, unchanged")).applied.results == ("processed",)
    second = {
        m.recipient: m.data for m in harness.outbox("report") if m.turn_number == 1 and m.data != first.get(m.recipient)
    }
    rows = [m for m in harness.outbox("report") if m.turn_number == 1]
    assert len(rows) == 2 * len(first)
    by_recipient: dict[str, list] = {}
    for m in rows:
        by_recipient.setdefault(m.recipient, []).append(m)
    for copies in by_recipient.values():
        old, new = copies
        assert old.data["report"] == new.data["report"] and old.data["events"] == new.data["events"]
        body_old = old.body.split("-" * 78, 2)[-1]
        body_new = new.body.split("-" * 78, 2)[-1]
        assert body_old == body_new  # the game's part of the report, byte for byte
    assert second is not None


def test_a_rollback_drops_the_orders_sent_for_the_turns_after_it(harness):
    """Found by the state machine: orders sent for turn 2 before a rollback to turn 1 stayed on file and
    were used again when turn 2 came round in the new line of turns (used twice), or, no longer valid
    there, silently replaced by the no-moves-received rule.  The reopened turn's own orders stay."""
    seated_game(harness)
    harness.setup_all("g1")
    harness.pass_deadline()
    for name in SEATS:
        harness.send(name, c.SubmitOrders("g1", "play 10/0 bank 0"))
    harness.pass_deadline()
    harness.send("Ann", c.SubmitOrders("g1", "play 8/0 bank 0"))  # turn 2
    sent = gm(harness, c.RollBack("g1", 1, "the wrong orders were used"))
    assert "Orders on file for turn 1" in sent.reply
    assert gm(harness, c.ProcessNow("g1", 1, "again")).applied.results == ("processed",)
    status = harness.send("Ann", c.ShowStatus("g1")).reply
    assert "Orders in from: nobody yet" in status and "Your orders on file" not in status, status
    harness.pass_deadline()
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, "g1")
        record = session.get(TurnRecord, (game.id, game.generation, 2))
        assert "Ann" in record.defaulted and record.orders == {}


def test_every_override_is_in_the_log_with_who_channel_and_reason(harness):
    seated_game(harness)
    gm(harness, c.SetDeadline("g1", "+1d", "travel"))
    gm(harness, c.Broadcast("g1", "Hello all"))
    log = gm(harness, c.ShowLog("g1"))
    entries = log.applied.reply.data["items"][0]["entries"]
    assert [e["action"] for e in entries] == ["CreateGame", "StartGame", "SetDeadline", "Broadcast"]
    assert (
        entries[2]["reason"] == "travel"
        and entries[2]["channel"] == "email"
        and entries[2]["actor"] == "gm@example.org"
    )
    assert "SetDeadline by gm@example.org (email): travel" in " ".join(log.reply.split())
    broadcasts = [m for m in harness.outbox("report") if "a message from the game master" in m.subject]
    assert len(broadcasts) == len(SEATS) + 1 and "Hello all" in broadcasts[0].body


def test_early_processing_waits_its_delay_and_orders_may_change_inside_it(harness):
    seated_game(harness, early_delay="30m")
    for name in SEATS:
        last = harness.send(name, c.SubmitOrders("g1", SETUP))
    assert "early_planned" in last.applied.results
    planned = harness.clock.now() + timedelta(minutes=30)
    told = [m for m in harness.outbox("notice") if "every order is in" in m.subject]
    assert sorted(m.recipient for m in told) == sorted(["public:g1"] + [f"{n.lower()}@example.org" for n in SEATS[:-1]])
    assert all(f"Resolved at:  {planned:%Y-%m-%d %H:%M} UTC" in m.body for m in told)
    harness.clock.advance(timedelta(minutes=10))
    harness.send("Ann", c.SubmitOrders("g1", "cards 9 9 8 2 2"))  # inside the delay: it counts
    assert harness.service.resolve_due(harness.clock.now()) == []
    harness.clock.advance(timedelta(minutes=19))
    assert harness.service.resolve_due(harness.clock.now()) == []  # 29 minutes: the change did not restart it
    assert len([m for m in harness.outbox("notice") if "every order is in" in m.subject]) == len(told)  # once
    harness.clock.advance(timedelta(minutes=1))
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]
    with unit_of_work(harness.sessions) as session:
        assert session.scalars(select(TurnRecord)).one().orders["Ann"] == "cards 9 9 8 2 2"


def test_a_player_can_ask_the_game_to_wait_for_the_deadline(harness):
    seated_game(harness, early_delay="0")
    assert harness.send("Ben", c.WaitForDeadline("g1")).applied.results == ("waiting",)
    for name in SEATS:
        harness.send(name, c.SubmitOrders("g1", SETUP))
    assert game(harness).phase_number == 0  # not processed early
    assert harness.pass_deadline() == [("g1", 0)]


def test_grace_tells_late_seats_and_takes_a_late_order(harness):
    seated_game(harness, grace="2h")
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("g1", SETUP))
    harness.clock.set(game(harness).deadline_at + timedelta(seconds=1))
    assert harness.service.resolve_due(harness.clock.now()) == []  # waiting for Fay
    late = [m for m in harness.outbox("notice") if "late: no orders" in m.subject]
    assert [m.recipient for m in late] == ["fay@example.org"]
    harness.clock.advance(timedelta(minutes=30))
    assert harness.service.resolve_due(harness.clock.now()) == []
    sent = harness.send("Fay", c.SubmitOrders("g1", SETUP))
    assert "orders_accepted" in sent.applied.results and "turn_resolved" in sent.applied.results
    with unit_of_work(harness.sessions) as session:
        assert session.scalars(select(TurnRecord)).one().defaulted == []


def test_grace_ends_with_the_no_moves_received_rule(harness):
    seated_game(harness, grace="2h")
    deadline = game(harness).deadline_at
    harness.clock.set(deadline + timedelta(seconds=1))
    harness.service.resolve_due(harness.clock.now())
    harness.clock.set(deadline + timedelta(hours=2))
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]


def test_a_referee_down_past_the_grace_resolves_in_one_pass_and_tells_nobody_of_a_grace_gone(harness):
    """Found by the state machine: down across both the deadline and the grace's end, the first pass
    started a grace that had already ended (and told the late seat of it), leaving the turn due."""
    seated_game(harness, grace="2h")
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("g1", SETUP))
    harness.clock.set(game(harness).deadline_at + timedelta(hours=3))
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]
    assert not [m for m in harness.outbox("notice") if "late: no orders" in m.subject]


def test_a_restart_across_a_deadline_processes_once_and_says_how_late(harness):
    seated_game(harness)
    harness.setup_all("g1")
    harness.clock.set(game(harness).deadline_at + timedelta(hours=3, minutes=10))  # the bot was down
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]
    assert harness.service.resolve_due(harness.clock.now()) == []
    report = next(m for m in harness.outbox("report") if m.recipient == "ann@example.org" and "turn 0" in m.subject)
    assert "processed 190 minutes after its deadline" in " ".join(report.body.split())


def test_reminders_go_once_to_seats_with_no_orders_and_never_late(sessions):
    harness = Harness(sessions)
    create(harness, schedule="48h", reminders="24h,1h")
    for name in SEATS:
        harness.send(name, c.JoinGame("g1", name))
    gm(harness, c.StartGame("g1"))
    deadline = game(harness).deadline_at
    harness.send("Ann", c.SubmitOrders("g1", SETUP))
    harness.clock.set(deadline - timedelta(hours=24))
    assert harness.service.remind_due(harness.clock.now()) == 5
    assert harness.service.remind_due(harness.clock.now()) == 0  # once, also for a second worker or a restart
    restarted = Harness(sessions, clock=harness.clock)
    assert restarted.service.remind_due(harness.clock.now()) == 0
    reminders = [m for m in harness.outbox("notice") if "reminder" in m.subject]
    assert sorted(m.recipient for m in reminders) == sorted(f"{n.lower()}@example.org" for n in SEATS[1:])
    assert f"Deadline: {deadline:%Y-%m-%d %H:%M} UTC" in reminders[0].body
    harness.clock.set(deadline - timedelta(minutes=30))  # the 1h reminder was missed (the bot was down)
    assert harness.service.remind_due(harness.clock.now()) == 0


@pytest.mark.parametrize("turn", ["24h", "24h5m"])
def test_a_reminder_due_at_the_start_is_not_sent(sessions, turn):
    """A 24h first turn with a 24h reminder (or one due minutes after the start): the "has started"
    mail has just told every seat the deadline; the 1h reminder still goes."""
    harness = Harness(sessions)
    harness.clock.advance(timedelta(days=2))  # the game was created days before its start
    create(harness, schedule=turn, reminders="24h,1h")
    harness.clock.advance(timedelta(days=2))
    for name in SEATS:
        harness.send(name, c.JoinGame("g1", name))
    gm(harness, c.StartGame("g1"))
    deadline = game(harness).deadline_at
    harness.clock.advance(timedelta(seconds=2))
    assert harness.service.remind_due(harness.clock.now()) == 0
    harness.clock.advance(timedelta(minutes=5))
    assert harness.service.remind_due(harness.clock.now()) == 0
    harness.clock.set(deadline - timedelta(hours=1))
    assert harness.service.remind_due(harness.clock.now()) == len(SEATS)
    reminders = [m for m in harness.outbox("notice") if "reminder" in m.subject]
    assert len(reminders) == len(SEATS)


def test_an_absence_moves_a_deadline_and_one_past_the_limit_is_refused(harness):
    seated_game(harness, schedule="48h", absence_limit_days=5)
    deadline = game(harness).deadline_at
    day = deadline.date()
    sent = harness.send("Ann", c.DeclareAbsence("g1", day.isoformat(), (day + timedelta(days=2)).isoformat()))
    assert sent.applied.results == ("absent",) and "The deadline moved to" in sent.reply
    assert game(harness).deadline_at == deadline + timedelta(days=3)
    told = [m for m in harness.outbox("notice") if "is away from" in m.subject]
    assert {m.recipient for m in told} == {f"{n.lower()}@example.org" for n in SEATS[1:]} | {"gm@example.org"}
    later = day + timedelta(days=10)
    refused = harness.send("Ann", c.DeclareAbsence("g1", later.isoformat(), (later + timedelta(days=3)).isoformat()))
    assert refused.applied.problems == ("absence_refused",)


def test_observers_get_the_public_reports_and_never_a_seats_private_part(harness):
    seated_game(harness)
    assert harness.send("Zoe", c.Observe("g1")).applied.results == ("observing",)
    harness.setup_all("g1")
    harness.pass_deadline()
    copies = [m for m in harness.outbox("report") if m.recipient == "zoe@example.org"]
    assert copies and all(m.data["seat"] is None and m.data["private"] is None for m in copies)
    create(harness, "closed", observers=False)
    assert harness.send("Zoe", c.Observe("closed")).applied.problems == ("closed_to_observers",)


@pytest.mark.parametrize(
    ("opened", "local_deadline"),
    [
        # "every day at 18:00": at 18:00 on the day after the turn opened (bot/core/turns/schedule.py)
        (datetime(2026, 10, 23, 12, 0, tzinfo=UTC), datetime(2026, 10, 24, 18, 0)),  # BST, then GMT the day after
        (datetime(2026, 10, 24, 12, 0, tzinfo=UTC), datetime(2026, 10, 25, 18, 0)),  # the day of the October change
        (datetime(2027, 3, 26, 12, 0, tzinfo=UTC), datetime(2027, 3, 27, 18, 0)),  # GMT, then BST the day after
        (datetime(2027, 3, 27, 12, 0, tzinfo=UTC), datetime(2027, 3, 28, 18, 0)),  # the day of the March change
    ],
)
def test_a_local_schedule_keeps_its_clock_time_across_daylight_saving(sessions, opened, local_deadline):
    harness = Harness(sessions)
    harness.clock.set(opened)
    create(harness, time_zone="Europe/London", schedule="every day at 18:00")
    for name in SEATS:
        harness.send(name, c.JoinGame("g1", name))
    gm(harness, c.StartGame("g1"))
    deadline = game(harness).deadline_at.astimezone(ZoneInfo("Europe/London"))
    assert deadline.replace(tzinfo=None) == local_deadline
    harness.setup_all("g1")
    harness.clock.set(game(harness).deadline_at)
    harness.service.resolve_due(harness.clock.now())
    following = game(harness).deadline_at.astimezone(ZoneInfo("Europe/London"))
    assert following.replace(tzinfo=None) == local_deadline + timedelta(days=1)


def test_orders_in_a_later_submission_replace_only_in_their_turn(harness):
    seated_game(harness)
    harness.setup_all("g1")
    with unit_of_work(harness.sessions) as session:
        assert len(session.scalars(select(OrderSubmission)).all()) == len(SEATS)


def test_record_is_given_once_the_game_is_over_and_attached_by_mail(harness):
    """RECORD <game> answers with the sealed record, only after the end (the seed is secret)."""
    from email import message_from_bytes, policy

    from adjudicator.record import read_record, verify
    from bot.core.messaging.outbox import OutboxDrain
    from bot.email.render import MailIdentity, compose

    seated_game(harness)
    early = harness.send("Ann", c.ShowRecord("g1"))
    assert early.applied.problems == ("record_not_yet",) and "once it is over" in early.reply
    harness.setup_all("g1")
    harness.pass_deadline()
    gm(harness, c.EndGame("g1", "the season is over"))
    sent = harness.send("Ann", c.ShowRecord("g1"), source="record-ann")
    assert sent.applied.results == ("record",) and "attached as g1-record.json" in " ".join(sent.reply.split())
    due = OutboxDrain(harness.sessions).due("email", harness.clock.now(), limit=1000)
    row = next(r for r in due if r.template == "reply" and any(i["code"] == "record" for i in r.data["items"]))
    mail = message_from_bytes(compose(row, MailIdentity("referee@example.org"), harness.clock.now()).as_bytes(),
                              policy=policy.default)  # fmt: skip
    (attachment,) = list(mail.iter_attachments())
    record = json.loads(attachment.get_content())
    assert attachment.get_filename() == "g1-record.json" and record["game"] == "golden-strider"
    assert verify(read_record(record)).ok


def test_an_end_during_a_grace_or_a_timed_pause_leaves_no_wait_behind(harness):
    """END clears what a running or paused turn waits for: its end's calendar entry is dated at the end,
    not at a grace that no longer runs, and nothing later resumes or resolves the ended game."""
    seated_game(harness, grace="2h")
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("g1", SETUP))
    harness.clock.set(game(harness).deadline_at + timedelta(seconds=1))
    harness.service.resolve_due(harness.clock.now())
    assert game(harness).grace_until is not None  # waiting for Fay
    gm(harness, c.EndGame("g1", "the season is over"))
    ended = game(harness)
    assert (ended.grace_until, ended.paused_until, ended.resolve_at) == (None, None, None)
    entry = next(m for m in harness.outbox() if m.template == "ended" and m.data.get("calendar")).data["calendar"]
    assert entry["cancelled"] and entry["start"] == ended.finished_at.isoformat()
    harness.clock.advance(timedelta(hours=3))
    assert harness.service.resolve_due(harness.clock.now()) == []


def test_an_end_of_a_game_paused_until_a_time_is_never_resumed(harness):
    seated_game(harness)
    gm(harness, c.PauseGame("g1", "a break", until="+1h"))
    assert game(harness).paused_until is not None
    gm(harness, c.EndGame("g1", "the season is over"))
    assert game(harness).paused_until is None
    harness.clock.advance(timedelta(hours=2))
    harness.service.resolve_due(harness.clock.now())
    assert game(harness).status == "finished"
