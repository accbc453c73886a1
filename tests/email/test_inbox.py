"""The inbox (bot.core.intake.inbox) and the processor's retry policy, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.intake.inbox import DONE, FAILED, NEW, PARKED, Inbox, Incoming
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.runtime.service import GameService
from bot.email.intake import Intake, MessageRef
from bot.email.processor import PassResult, ReplyLimit
from bot.store.db import unit_of_work
from bot.store.models import Game, Seat
from tests.email.pipeline import TRUSTED_SERVER, deliver, message, processor_for
from tests.email.world import PASSWORDS, PLAYERS, START, build_world, outbox_rows

RAW = b"From: a@example.org\r\nMessage-ID: <one@example.org>\r\n\r\nHELP\r\n"


def test_a_second_copy_by_key_or_content_is_a_no_op(sessions: sessionmaker[Session]):
    """The content digest, not the Message-ID, makes two copies one message."""
    inbox = Inbox(sessions)
    first = inbox.store("email", "imap:a:1:1", "<one@example.org>", RAW, START)
    assert first.new and first.status == NEW
    assert inbox.store("email", "imap:a:1:1", "<one@example.org>", RAW, START) == first.__class__(
        first.id, "imap:a:1:1", NEW, False
    )
    copy = inbox.store("email", "imap:a:1:2", "<one@example.org>", RAW, START)
    assert (copy.id, copy.new, copy.source_key) == (first.id, False, "imap:a:1:1")
    other = RAW.replace(b"HELP", b"LIST")
    reused = inbox.store("email", "imap:a:1:3", "<one@example.org>", other, START)
    assert reused.new and reused.id != first.id, "another mail reusing the Message-ID is a message of its own"
    assert inbox.counts() == {NEW: 2, DONE: 0, FAILED: 0, PARKED: 0}
    assert inbox.statuses(["imap:a:1:1", "imap:a:1:2", "imap:a:1:3"]) == {"imap:a:1:1": NEW, "imap:a:1:3": NEW}
    assert inbox.raw(first.id) == RAW


def test_a_batch_stores_each_message_once_by_key_or_content_in_the_batch_and_before_it(sessions):
    """Inbox.store_many (one transaction a fetched batch): the same rules as store, inside the batch too."""
    inbox = Inbox(sessions)
    kept = inbox.store("email", "imap:a:1:1", "<one@example.org>", RAW, START)
    other = RAW.replace(b"HELP", b"LIST")
    items = [
        Incoming("imap:a:1:1", "<one@example.org>", RAW, START),  # stored before, by key
        Incoming("imap:a:1:2", "<one@example.org>", RAW, START),  # stored before, by content
        Incoming("imap:a:1:3", "<one@example.org>", other, START),  # new (the Message-ID reused)
        Incoming("imap:a:1:4", "<one@example.org>", other, START),  # a copy of the one before, in the batch
    ]
    with inbox.batch() as batch:
        stored = inbox.store_many(batch, "email", items)
    assert [(s.source_key, s.new) for s in stored] == [
        ("imap:a:1:1", False), ("imap:a:1:1", False), ("imap:a:1:3", True), ("imap:a:1:3", False),
    ]  # fmt: skip
    assert stored[0].id == stored[1].id == kept.id and stored[2].id == stored[3].id != kept.id
    assert inbox.counts()[NEW] == 2 and inbox.raw(stored[2].id) == other
    with pytest.raises(RuntimeError), inbox.batch() as batch:
        inbox.store_many(batch, "email", [Incoming("imap:a:1:5", None, b"x", START)])
        raise RuntimeError("the batch fails before its commit")
    assert "imap:a:1:5" not in inbox.statuses(["imap:a:1:5"]), "nothing of a failed batch is kept"


def test_failures_back_off_then_park_and_requeue_starts_afresh(sessions: sessionmaker[Session]):
    inbox = Inbox(sessions, max_attempts=3, retry_base=timedelta(seconds=10))
    row = inbox.store("email", "k1", None, RAW, START)
    assert [p.id for p in inbox.pending(START)] == [row.id]
    assert inbox.mark_failed(row.id, START, "boom 1") == FAILED
    assert inbox.pending(START + timedelta(seconds=9)) == []
    assert [p.attempts for p in inbox.pending(START + timedelta(seconds=10))] == [1]
    assert inbox.mark_failed(row.id, START + timedelta(seconds=10), "boom 2") == FAILED
    assert inbox.pending(START + timedelta(seconds=29)) == []
    assert inbox.mark_failed(row.id, START + timedelta(seconds=30), "boom 3") == PARKED
    assert inbox.pending(START + timedelta(days=30)) == []
    (summary,) = inbox.summaries(PARKED)
    assert (summary.attempts, summary.last_error, summary.size) == (3, "boom 3", len(RAW))
    assert inbox.summary(row.id) == summary
    assert inbox.requeue(row.id)
    assert not inbox.requeue(row.id), "only parked or failed rows are requeued"
    assert not inbox.requeue(row.id + 1000)
    (again,) = inbox.pending(START)
    assert again.attempts == 0
    inbox.mark_done(again.id, START)
    assert inbox.counts()[DONE] == 1


def test_a_message_whose_handling_raises_is_kept_retried_and_parked(sessions, monkeypatch):
    build_world(sessions, ("demo",))
    clock = SimulatedClock(START + timedelta(hours=1))
    inbox = Inbox(sessions, max_attempts=3, retry_base=timedelta(seconds=30))
    processor = processor_for(sessions, clock, inbox=inbox)
    calls: list[str] = []
    original = GameService.apply

    def flaky(self: GameService, envelope, batch=None):  # type: ignore[no-untyped-def]
        calls.append(envelope.source_id)
        raise RuntimeError("the database went away")

    monkeypatch.setattr(GameService, "apply", flaky)
    raw = message("STATUS demo\n", subject="status")
    assert deliver(processor, raw, "k:flaky").failed == 1
    assert processor.process_pending().failed == 0, "not again before the back-off"
    clock.advance(timedelta(seconds=30))
    assert processor.process_pending().failed == 1
    clock.advance(timedelta(seconds=60))
    assert processor.process_pending().parked == 1
    clock.advance(timedelta(days=1))
    assert processor.process_pending().parked == 0
    assert calls == ["k:flaky"] * 3
    (parked,) = inbox.summaries(PARKED)
    assert "RuntimeError: the database went away" in (parked.last_error or "")
    assert outbox_rows(sessions) == []

    monkeypatch.setattr(GameService, "apply", original)
    assert inbox.requeue(parked.id)
    assert processor.process_pending().done == 1
    (reply,) = outbox_rows(sessions)
    assert "STATUS demo" in reply.body


def test_above_the_reply_limit_mail_is_applied_but_not_answered(sessions: sessionmaker[Session]):
    build_world(sessions, ("demo",))
    clock = SimulatedClock(START + timedelta(hours=2))  # the world's own replies are older than the window
    processor = processor_for(sessions, clock, limit=ReplyLimit(replies=3, window=timedelta(hours=1)))
    for number in range(5):
        deliver(processor, message("STATUS demo\n", subject=f"question {number}", vouched_by=TRUSTED_SERVER))
    assert len(outbox_rows(sessions, "reply")) == 3, "the same text again and again: a loop"
    (latest, *_) = Inbox(sessions).summaries(DONE)
    assert "not answered: the same commands as the previous message" in (latest.outcome or "")
    assert ReplyBudget(sessions).replies_since("email", "ANN@example.org", clock.now() - timedelta(hours=1)) == 3
    clock.advance(timedelta(hours=1, minutes=1))
    deliver(processor, message("STATUS demo\n", subject="later", vouched_by=TRUSTED_SERVER))
    assert len(outbox_rows(sessions, "reply")) == 4
    assert Inbox(sessions).counts()[DONE] == 6


def test_a_zero_limit_answers_only_what_acts_or_asks_something_new(sessions: sessionmaker[Session]):
    """With no budget at all, chatter and repeats get no reply; orders still do."""
    build_world(sessions, ("demo",))
    processor = processor_for(sessions, limit=ReplyLimit(replies=0))
    assert deliver(processor, message("Thanks!\n", vouched_by=TRUSTED_SERVER)).done == 1
    assert outbox_rows(sessions, "reply") == []
    deliver(processor, message("STATUS demo\n", vouched_by=TRUSTED_SERVER))
    deliver(processor, message("STATUS demo\n", subject="again", vouched_by=TRUSTED_SERVER))
    assert len(outbox_rows(sessions, "reply")) == 1
    deliver(processor, message("ORDERS demo\ncards 10 8 6 4 2\n", vouched_by=TRUSTED_SERVER))
    (*_, refused) = outbox_rows(sessions, "reply")
    assert "needs your seat password" in refused.body
    (latest, *_) = Inbox(sessions).summaries(DONE)
    assert "orders for demo refused (needs_password)" in (latest.outcome or "")


@pytest.mark.parametrize("varied", [False, True], ids=["the-same-join", "a-new-game-each-time"])
def test_forged_mail_gets_its_victim_at_most_the_limits_worth_of_replies(sessions, varied):
    """Backscatter: 50 mails From a victim's address (the envelope sender is the forger's) asking to JOIN
    a game that does not exist; varying the game does not buy more replies."""
    build_world(sessions, ("demo",))
    clock = SimulatedClock(START + timedelta(hours=2))  # the world's own replies are older than the window
    limit = ReplyLimit()
    processor = processor_for(sessions, clock, limit=limit)
    victim = "victim@example.net"
    for number in range(50):
        game = f"nosuchgame{number}" if varied else "nosuchgame"
        raw = message(f"JOIN {game}\n", sender=victim, subject="a game", return_path="mallory@evil.example")
        assert deliver(processor, raw).done == 1
    replies = [row for row in outbox_rows(sessions, "reply") if row.recipient == victim]
    assert len(replies) == limit.replies  # 50 before: JOIN was always answered
    (latest, *_) = Inbox(sessions).summaries(DONE)
    assert "not answered: sender not vouched for" in (latest.outcome or "")
    assert Inbox(sessions).counts()[DONE] == 50, "every mail is still applied and kept"


def test_beyond_the_limit_a_password_that_proves_the_seat_is_answered_and_a_wrong_one_is_not(sessions):
    """A player nobody vouches for (no trusted server) ordering often, as a Strike Gold player does: past
    the limit the orders with the right password are still answered; a forger's wrong password is not."""
    build_world(sessions, ("demo",))
    processor = processor_for(sessions, limit=ReplyLimit(replies=0))
    ann = PLAYERS["Ann"]
    for number in range(3):
        raw = message(f"ORDERS demo\ncards 10 8 6 4 2\nPASSWORD {PASSWORDS['Ann']}\n", sender=ann, subject=f"o{number}")
        deliver(processor, raw)
    assert len([row for row in outbox_rows(sessions, "reply") if row.recipient == ann]) == 3
    for number in range(3):
        raw = message("ORDERS demo\ncards 10 8 6 4 2\nPASSWORD wrong-guess-1\n", sender=ann, subject=f"f{number}")
        deliver(processor, raw)
    assert len([row for row in outbox_rows(sessions, "reply") if row.recipient == ann]) == 3, "no backscatter"
    (latest, *_) = Inbox(sessions).summaries(DONE)
    assert "not answered: sender not vouched for" in (latest.outcome or "")


def test_a_vouched_player_is_answered_beyond_the_limit_only_for_a_game_that_exists(sessions):
    build_world(sessions, ("demo",))
    processor = processor_for(sessions, limit=ReplyLimit(replies=0))
    for _ in range(3):
        deliver(processor, message("JOIN nosuchgame\n", subject="a game", vouched_by=TRUSTED_SERVER))
    assert len(outbox_rows(sessions, "reply")) == 1, "asked once, then a repeat: no game, no exemption"
    for _ in range(3):
        deliver(processor, message("ORDERS demo\ncards 10 8 6 4 2\n", subject="my orders", vouched_by=TRUSTED_SERVER))
    assert len(outbox_rows(sessions, "reply")) == 4, "orders for a game that exists are always answered"


def test_in_one_batch_a_message_that_raises_is_rolled_back_alone_and_the_others_are_kept(sessions, monkeypatch):
    """One transaction a batch (bot.core.basics.batch): the failing message is marked failed, the rest applied."""
    build_world(sessions, ("demo",))
    clock = SimulatedClock(START + timedelta(hours=1))
    processor = processor_for(sessions, clock)
    original = GameService.apply

    def raising_for_two(self: GameService, envelope, batch=None):  # type: ignore[no-untyped-def]
        applied = original(self, envelope, batch=batch)  # its rows are written, then it raises
        if envelope.source_id == "k:2":
            raise RuntimeError("a bug on message two")
        return applied

    monkeypatch.setattr(GameService, "apply", raising_for_two)
    for number in (1, 2, 3):
        processor.inbox.store("email", f"k:{number}", None, message("STATUS demo\n", subject=f"s{number}"), START)
    assert processor.process_pending() == PassResult(done=2, failed=1)
    rows = {row.source_key: row.status for row in processor.inbox.summaries()}
    assert rows == {"k:1": DONE, "k:2": FAILED, "k:3": DONE}
    assert len(outbox_rows(sessions)) == 2, "message two's reply was rolled back with it"
    monkeypatch.setattr(GameService, "apply", original)
    clock.advance(timedelta(minutes=1))
    assert processor.process_pending() == PassResult(done=1)
    assert len(outbox_rows(sessions)) == 3


def test_in_one_batch_a_seat_left_and_taken_again_is_seen_by_the_next_message(sessions):
    """A batch holds its games (bot.core.basics.batch): what one message changes, the next one sees."""
    build_world(sessions, ("newgame",))
    with unit_of_work(sessions) as session:  # the sender's vouched address is enough (no seat password)
        session.execute(update(Game).where(Game.slug == "newgame").values(auth_mode="address"))
    processor = processor_for(sessions)
    for number, text in enumerate(("JOIN newgame\n", "RESIGN newgame\n", "JOIN newgame\n", "STATUS newgame\n")):
        raw = message(text, sender="hal@example.org", name="Hal", vouched_by=TRUSTED_SERVER)
        processor.inbox.store("email", f"k:{number}", None, raw, START)
    assert processor.process_pending() == PassResult(done=4)
    replies = [row.body for row in outbox_rows(sessions, "reply")]
    assert len(replies) == 4
    assert "LEFT" in replies[1] and "JOINED" in replies[2], replies
    with unit_of_work(sessions) as session:
        seats = session.scalars(select(Seat.name).join(Game).where(Game.slug == "newgame")).all()
    assert len(seats) == 2, seats  # Gil's and Hal's, once


class _ListMailbox:
    """A mailbox held in a list (bot.email.intake.Mailbox): what was acknowledged is kept."""

    name = "list:test"

    def __init__(self, raws: list[bytes]) -> None:
        self.raws = {f"list:{n}": raw for n, raw in enumerate(raws)}
        self.acknowledged: list[str] = []

    def unacknowledged(self) -> list[MessageRef]:
        return [MessageRef(k, len(r), START, k) for k, r in self.raws.items() if k not in self.acknowledged]

    def read(self, ref: MessageRef, max_bytes: int) -> bytes:
        return self.raws[ref.key][:max_bytes]

    def acknowledge(self, refs) -> None:  # type: ignore[no-untyped-def]
        self.acknowledged += [ref.key for ref in refs]


def test_an_optimistic_batch_with_a_message_that_raises_runs_again_carefully(sessions, monkeypatch):
    """The intake's first run of a batch has no savepoints (bot.core.basics.batch): when a message raises,
    the whole batch is rolled back and run again, each message on its own; only that one fails."""
    build_world(sessions, ("demo",))
    processor = processor_for(sessions)
    original = GameService.apply
    calls: list[str] = []

    def raising_for_one(self: GameService, envelope, batch=None):  # type: ignore[no-untyped-def]
        calls.append(envelope.source_id)
        applied = original(self, envelope, batch=batch)
        if envelope.source_id == "list:1":
            raise RuntimeError("a bug on message one")
        return applied

    monkeypatch.setattr(GameService, "apply", raising_for_one)
    mailbox = _ListMailbox([message("STATUS demo\n", subject=f"s{n}") for n in range(3)])
    result = Intake(processor).run_once(mailbox)
    assert result.processed == PassResult(done=2, failed=1) and result.stored == 3
    assert calls == ["list:0", "list:1", "list:0", "list:1", "list:2"], "optimistic, then careful"
    assert mailbox.acknowledged == ["list:0", "list:2"], "the failed one stays on the server"
    assert len(outbox_rows(sessions)) == 2
    statuses = {row.source_key: row.status for row in processor.inbox.summaries()}
    assert statuses == {"list:0": DONE, "list:1": FAILED, "list:2": DONE}
