"""The digest (bot/core/messaging/digests.py, digest_pass.py): a person's press, notices and reminders
gathered and sent as one message a day at their time, or one per game per turn; reports, replies and
what they wait for never gathered; nothing lost when it is turned off, nothing sent twice by a second pass
or a second process."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta

import pytest
from sqlalchemy import func, select

from bot.core.basics.display_width import display_width
from bot.core.messaging.digest_pass import players_due, send_digests
from bot.core.messaging.digest_setting import Digest
from bot.core.messaging.digests import due_before, gathered
from bot.core.messaging.outbox import OutboxDrain
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, REPLY, REPORT
from bot.core.model.secret_values import REDACTED
from bot.discord.render import render_outcome
from bot.store.db import unit_of_work
from bot.store.models import DigestItem, OutboxMessage
from tests.core.harness import SEATS, Harness

ANN = "ann@example.org"


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def make_game(harness: Harness, slug: str, minutes: int = 60) -> None:
    """A started Golden Strider game of the harness's six (Ann, Ben, Cat ...; turns of ``minutes``)."""
    create = c.CreateGame(slug, "golden-strider", {}, "Europe/Paris", minutes, False, "address", press="white")
    assert harness.send("GM", create).applied.problems == ()
    for name in SEATS:
        assert harness.send(name, c.JoinGame(slug, name)).applied.problems == ()
    assert "STARTED" in (harness.send("GM", c.StartGame(slug)).reply or "")


def press(harness: Harness, slug: str, text: str, who: str = "Ben") -> None:
    assert harness.send(who, c.SendPress(slug, ("ann",), text)).applied.problems == ()


def to_ann(harness: Harness, template: str | None = None) -> list:
    return [r for r in harness.outbox() if r.recipient == ANN and template in (None, r.row.template)]


def items(harness: Harness) -> int:
    with unit_of_work(harness.sessions) as session:
        return int(session.scalar(select(func.count()).select_from(DigestItem)) or 0)


def digests(harness: Harness) -> list:
    return to_ann(harness, "digest")


def run_pass(harness: Harness) -> int:
    return harness.service.send_digests_due(harness.clock.now())


def test_the_rule_gathers_press_notices_and_reminders_only() -> None:
    assert gathered(NOTICE, "press") and gathered(NOTICE, "press_gm_copy") and gathered(NOTICE, "reminder")
    assert gathered(NOTICE, "absence")
    assert not gathered(REPORT, "report") and not gathered(REPORT, "started") and not gathered(REPLY, "reply")
    for waited_for in ("seat_offer", "late_notice", "link_code", "password_locked", "digest"):
        assert not gathered(NOTICE, waited_for)
    assert not gathered(NOTICE, "gm_named", secret=True)


def test_daily_is_due_at_the_persons_time_in_their_zone() -> None:
    daily = Digest("DAILY", time(8, 0))
    at_7_59_new_york = datetime(2026, 3, 2, 12, 59, tzinfo=UTC)  # UTC-5 in winter
    assert due_before(daily, "America/New_York", at_7_59_new_york) == datetime(2026, 3, 1, 13, 0, tzinfo=UTC)
    assert due_before(daily, "America/New_York", at_7_59_new_york + timedelta(minutes=1)) == datetime(
        2026, 3, 2, 13, 0, tzinfo=UTC
    )
    assert due_before(daily, None, at_7_59_new_york) == datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # UTC without one
    # Paris, 2026-03-29: 02:30 is skipped (02:00 CET becomes 03:00 CEST at 01:00 UTC): due at the jump
    skipped = Digest("DAILY", time(2, 30))
    assert due_before(skipped, "Europe/Paris", datetime(2026, 3, 29, 1, 30, tzinfo=UTC)) == datetime(
        2026, 3, 29, 1, 0, tzinfo=UTC
    )
    assert due_before(Digest("TURN"), None, at_7_59_new_york) is None


def test_a_daily_digest_gathers_press_and_notices_from_three_games_into_one_message(harness):
    for slug in ("g1", "g2", "g3"):
        make_game(harness, slug, minutes=24 * 60)
    harness.send("Ann", c.SetZone("America/New_York"))
    assert harness.send("Ann", c.SetDigest("DAILY 08:00")).applied.problems == ()
    for slug in ("g1", "g2", "g3"):
        press(harness, slug, f"Hello from Ben in {slug}")
        press(harness, slug, f"And from Cat in {slug}", who="Cat")
    harness.send("Cat", c.DeclareAbsence("g2", "2026-03-03", "2026-03-04"))
    assert to_ann(harness, "press") == [] and to_ann(harness, "absence") == []
    assert items(harness) == 7
    # 12:00 UTC is 07:00 in New York: nothing is due until 08:00 there
    harness.clock.advance(timedelta(minutes=59))
    assert run_pass(harness) == 0 and digests(harness) == []
    harness.clock.advance(timedelta(minutes=1))
    assert run_pass(harness) == 1
    [digest] = digests(harness)
    for slug in ("g1", "g2", "g3"):
        assert f"Hello from Ben in {slug}" in digest.body and f"And from Cat in {slug}" in digest.body
        assert digest.body.count(f"{slug} | [{slug} press ") == 2  # each item headed by its game
    assert "g2 | [g2] Cat is away from 2026-03-03 to 2026-03-04" in digest.body
    assert digest.subject == "[referee] your daily digest: 7 messages"
    assert "(America/New_York)" in digest.body or "New_York" in digest.body  # times in Ann's zone
    assert all(display_width(line) <= 78 for line in digest.body.splitlines()), digest.body
    assert items(harness) == 0
    assert run_pass(harness) == 0 and len(digests(harness)) == 1  # the pass again: nothing twice
    # the next press waits for the next day's 08:00
    press(harness, "g1", "Later news")
    harness.clock.advance(timedelta(hours=23, minutes=59))
    assert run_pass(harness) == 0
    harness.clock.advance(timedelta(minutes=1))
    assert run_pass(harness) == 1
    assert "Later news" in digests(harness)[-1].body and "Hello from Ben" not in digests(harness)[-1].body


def test_reports_replies_and_what_a_person_waits_for_are_never_gathered(harness):
    make_game(harness, "g1")
    harness.send("Ann", c.SetDigest("DAILY 08:00"))
    replies_before = len([r for r in to_ann(harness) if r.row.kind == REPLY])
    harness.send("Ann", c.ShowSettings())
    assert len([r for r in to_ann(harness) if r.row.kind == REPLY]) == replies_before + 1
    harness.pass_deadline()
    assert [r for r in to_ann(harness, "report")], "the report goes out on its own"
    assert items(harness) == 0


def test_a_turn_digest_is_one_per_game_per_turn_once_the_turn_is_resolved(harness):
    make_game(harness, "g1", minutes=60)
    make_game(harness, "g2", minutes=24 * 60)
    harness.send("Ann", c.SetDigest("TURN"))
    press(harness, "g1", "g1 turn 1 news")
    press(harness, "g2", "g2 turn 1 news")
    assert run_pass(harness) == 0 and items(harness) == 2
    harness.pass_deadline()  # g1's first turn resolves; g2's runs on
    assert run_pass(harness) == 1
    [digest] = digests(harness)
    assert digest.subject == "[g1] digest of turn 0: 1 message"  # the turn the reports call 0
    assert "g1 turn 1 news" in digest.body and "g2 turn 1 news" not in digest.body
    assert digest.row.game_id is not None
    press(harness, "g1", "g1 turn 2 news")
    assert run_pass(harness) == 0 and items(harness) == 2
    harness.clock.advance(timedelta(hours=24))
    harness.service.resolve_due(harness.clock.now())
    assert run_pass(harness) == 2  # g1's turn 1 and g2's turn 0: one digest each
    bodies = {d.subject: d.body for d in digests(harness)}
    assert "g1 turn 2 news" in bodies["[g1] digest of turn 1: 1 message"]
    assert "g2 turn 1 news" in bodies["[g2] digest of turn 0: 1 message"]
    assert items(harness) == 0


def test_turning_the_digest_off_sends_what_waited_at_the_next_pass(harness):
    make_game(harness, "g1", minutes=24 * 60)
    harness.send("Ann", c.SetDigest("DAILY 20:00"))
    press(harness, "g1", "waiting news")
    assert run_pass(harness) == 0
    harness.send("Ann", c.SetDigest("OFF"))
    assert run_pass(harness) == 1
    [digest] = digests(harness)
    assert "waiting news" in digest.body and "Your digest is off" in digest.body
    press(harness, "g1", "fresh news")
    assert [r for r in to_ann(harness, "press") if "fresh news" in r.body] and items(harness) == 0


def test_two_processes_never_write_one_digest_twice(harness, sessions):
    make_game(harness, "g1", minutes=24 * 60)
    harness.send("Ann", c.SetDigest("DAILY 12:30"))
    press(harness, "g1", "one")
    press(harness, "g1", "two", who="Cat")
    harness.clock.advance(timedelta(minutes=30))
    now = harness.clock.now()
    # both processes found Ann due; the first writes her digest, the second comes after it committed
    with unit_of_work(sessions) as first:
        found = players_due(first, now)
    with unit_of_work(sessions) as second:
        assert players_due(second, now) == found != []
    with unit_of_work(sessions) as session:
        assert send_digests(session, found, now, harness.config) == 1
    with unit_of_work(sessions) as session:
        assert send_digests(session, found, now, harness.config) == 0
    other = Harness(sessions, clock=harness.clock)  # a restarted process
    assert other.service.send_digests_due(now) == 0
    [digest] = digests(harness)
    assert digest.body.count("[g1 press ") == 2
    assert len([r for r in to_ann(harness) if "one" in r.body and r.row.template == "press"]) == 0


def test_the_digest_in_discords_words(harness):
    make_game(harness, "g1", minutes=24 * 60)
    harness.send("Ann", c.SetDigest("DAILY 12:30"))
    press(harness, "g1", "over discord")
    harness.clock.advance(timedelta(minutes=30))
    assert run_pass(harness) == 1
    [digest] = digests(harness)
    text = render_outcome("digest", digest.row.data)
    assert "over discord" in text and "/press game:g1 reply:" in text and "g1 | [g1 press " in text


def test_a_reminder_is_gathered_and_press_text_is_forgotten_once_the_digest_is_sent(harness, sessions):
    """A game that does not keep press (``PRESS RECORD no``, the default) marks its text a secret: the
    digest carries it as one, so its outbox row forgets it once sent, and no item is left holding it."""
    make_game(harness, "g1", minutes=24 * 60)
    harness.send("Ann", c.SetDigest("DAILY 12:00"))
    press(harness, "g1", "a private word")
    harness.clock.advance(timedelta(hours=23, minutes=1))  # the game's 1h reminder is due
    assert harness.service.remind_due(harness.clock.now()) == len(SEATS)
    assert to_ann(harness, "reminder") == [] and items(harness) == 2
    harness.clock.advance(timedelta(hours=1))
    assert run_pass(harness) == 1
    [digest] = digests(harness)
    assert "a private word" in digest.body and "No orders from Ann yet" in digest.body
    assert "in_digest" not in json.dumps(digest.row.data)
    assert "Reply to this mail" not in digest.body and "write PRESS g1 REPLY" in digest.body
    OutboxDrain(sessions).mark_sent(digest.row.id, harness.clock.now())
    with unit_of_work(sessions) as session:
        row = session.get_one(OutboxMessage, digest.row.id)
        assert "a private word" not in json.dumps(row.data) and REDACTED in json.dumps(row.data)
