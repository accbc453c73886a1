"""A channel made of nothing but the core's contract runs through the core's durable loops alone.

The dummy channel is an in-memory source (list, read, acknowledge), a
one-line ``understand(raw) -> Envelope | Skip``, and a transport
(``send(row) -> Sent | Retry | Refused``): everything durable (storing before
acknowledging, applying, settling, retrying, parking, claiming, back-off,
marking sent) is the core's intake runner (bot.core.runtime.intake_runner) and
sender loop (bot.core.messaging.sender_loop).  Nothing received is dropped,
nothing refused is retried for ever (docs/architecture.md, "Durable work lives in
the database").
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.intake.inbox import DONE, PARKED, Inbox
from bot.core.intake.understanding import Arrived, Inline, Skip
from bot.core.messaging.outbox import OutboxDrain, Outgoing, PendingMessage, enqueue
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.messaging.sender_loop import SenderLoop
from bot.core.messaging.transport import Outcome, Refused, Retry, Sent, Unavailable
from bot.core.model import commands as c
from bot.core.model.outcomes import REPLY, REPORT
from bot.core.runtime.intake_processor import Processor
from bot.core.runtime.intake_runner import IntakeRunner, MessageRef
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import SEATS, Harness

CHANNEL = "dummy"


class DummySource:
    """Messages posted in memory; acknowledged ones are not listed again."""

    name = "dummy-intake"

    def __init__(self) -> None:
        self.messages: dict[str, tuple[bytes, datetime]] = {}
        self.acknowledged: set[str] = set()

    def post(self, key: str, who: str, text: str, at: datetime) -> None:
        self.messages[key] = (f"{who}\n{text}".encode(), at)

    def unacknowledged(self) -> list[MessageRef]:
        return [
            MessageRef(key, len(raw), at, None)
            for key, (raw, at) in self.messages.items()
            if key not in self.acknowledged
        ]

    def read(self, ref: MessageRef, max_bytes: int) -> bytes:
        return self.messages[ref.key][0][:max_bytes]

    def acknowledge(self, refs: list[MessageRef]) -> None:
        self.acknowledged.update(ref.key for ref in refs)


def understand(item: Arrived) -> c.Envelope | Skip:
    """``<who>\\n<VERB> <game> <rest>``: JOIN and ORDERS; BOOM is a bug in the reader; nothing is a skip."""
    who, _, text = item.raw.decode().partition("\n")
    if not text.strip():
        return Skip("an empty message")
    verb, game, rest = [*text.split(maxsplit=2), "", ""][:3]
    if verb == "BOOM":
        raise RuntimeError("a bug in the reader")
    command: c.Command = c.JoinGame(game, rest) if verb == "JOIN" else c.SubmitOrders(game, rest)
    return c.Envelope(c.Sender(CHANNEL, who, who.title()), (command,), f"dummy:{item.key}", item.received_at,
                      trust=c.Trust.VERIFIED)  # fmt: skip


class DummyTransport:
    """Takes every row, unless told otherwise for a recipient (a list of outcomes, used in order)."""

    def __init__(self) -> None:
        self.sent: list[PendingMessage] = []
        self.script: dict[str, list[Outcome | Exception]] = {}

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[DummyTransport]:
        yield self

    async def send(self, row: PendingMessage) -> Outcome:
        scripted = self.script.get(row.recipient)
        outcome = scripted.pop(0) if scripted else Sent()
        if isinstance(outcome, Exception):
            raise outcome
        if isinstance(outcome, Sent):
            self.sent.append(row)
        return outcome


def _channel(harness: Harness, max_attempts: int = 3) -> tuple[DummySource, IntakeRunner, DummyTransport, SenderLoop]:
    inbox = Inbox(harness.sessions, max_attempts, timedelta(seconds=30))
    processor = Processor(inbox, harness.service, harness.clock, CHANNEL, Inline(understand))
    transport = DummyTransport()
    loop = SenderLoop(OutboxDrain(harness.sessions), transport, harness.clock, (CHANNEL,), max_attempts=max_attempts)
    return DummySource(), IntakeRunner(processor), transport, loop


def _rows(sessions: sessionmaker[Session]) -> list[OutboxMessage]:
    with unit_of_work(sessions) as session:
        return list(session.scalars(select(OutboxMessage).where(OutboxMessage.channel == CHANNEL)).all())


def test_a_dummy_channel_joins_orders_and_gets_its_replies_and_turn_report(sessions):
    harness = Harness(sessions)
    source, runner, transport, loop = _channel(harness)
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "Europe/Paris", 60, False, "address"))
    for number, name in enumerate(SEATS):
        source.post(f"join-{number}", name.lower(), f"JOIN gs1 {name}", harness.clock.now())
    joined = runner.run_once(source)
    assert (joined.stored, joined.processed.done, joined.acknowledged) == (6, 6, 6)
    assert "STARTED" in (harness.send("GM", c.StartGame("gs1")).reply or "")
    for number, name in enumerate(SEATS):
        source.post(f"orders-{number}", name.lower(), "ORDERS gs1 cards 10 8 6 4 2", harness.clock.now())
    source.post("empty", "ann", "", harness.clock.now())
    ordered = runner.run_once(source)
    assert (ordered.stored, ordered.processed.done, ordered.acknowledged) == (7, 7, 7)
    assert runner.run_once(source).stored == 0, "acknowledged: not listed again"
    assert harness.pass_deadline() == [("gs1", 0)]  # the setup turn resolves

    report = asyncio.run(loop.drain_all())

    assert report.sent == len(_rows(sessions)) and report.failed == 0
    to_ann = [(row.kind, row.template) for row in transport.sent if row.recipient == "ann"]
    assert sum(kind == REPLY for kind, _ in to_ann) == 2, to_ann  # her JOIN's answer and her ORDERS' answer
    assert any(kind == REPORT for kind, _ in to_ann), to_ann  # and the turn's report
    assert all(row.sent_at is not None for row in _rows(sessions))
    assert asyncio.run(loop.drain_all()).sent == 0, "each row once"


def test_a_message_whose_understanding_raises_is_retried_then_parked_and_kept(sessions):
    harness = Harness(sessions)
    source, runner, _transport, _loop = _channel(harness, max_attempts=2)
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "Europe/Paris", 60, False, "address"))
    source.post("boom", "ann", "BOOM gs1", harness.clock.now())
    source.post("join", "ben", "JOIN gs1 Ben", harness.clock.now())

    first = runner.run_once(source)
    assert (first.processed.done, first.processed.failed) == (1, 1), "the other message is applied"
    assert source.acknowledged == {"join"}, "not acknowledged while it waits for its retry"
    assert runner.inbox.statuses(["boom"]) == {"boom": "failed"}

    harness.clock.advance(timedelta(minutes=5))
    second = runner.run_once(source)
    assert second.processed.parked == 1
    assert runner.inbox.statuses(["boom", "join"]) == {"boom": PARKED, "join": DONE}
    assert source.acknowledged == {"join", "boom"}, "parked: settled, so acknowledged"
    [parked] = [row for row in runner.inbox.summaries(PARKED)]
    assert "a bug in the reader" in (parked.last_error or "")
    assert runner.inbox.raw(parked.id) == b"ann\nBOOM gs1", "kept for the host"


def _queue(harness: Harness, recipient: str, key: str) -> None:
    with unit_of_work(harness.sessions) as session:
        enqueue(session, Outgoing(CHANNEL, recipient, REPLY, "prerendered", {"subject": key, "body": key}, key),
                harness.clock.now())  # fmt: skip


def test_retry_is_sent_again_later_refused_is_parked_and_a_bug_is_parked_after_its_attempts(sessions):
    harness = Harness(sessions)
    _source, _runner, transport, loop = _channel(harness, max_attempts=2)
    for recipient in ("ann", "ben", "cat"):
        _queue(harness, recipient, f"to-{recipient}")
    transport.script = {"ann": [Retry("busy for now")], "ben": [Refused("no such player", 404)],
                        "cat": [RuntimeError("a bug"), RuntimeError("the same bug")]}  # fmt: skip

    first = asyncio.run(loop.drain_all())
    assert {(s.row.recipient, s.status) for s in first.settled} == {("ann", "retry"), ("ben", "parked"),
                                                                    ("cat", "retry")}  # fmt: skip
    assert transport.sent == []
    [(parked, reason)] = loop.drain.parked(CHANNEL)
    assert parked.recipient == "ben" and reason == "no such player"

    assert asyncio.run(loop.drain_all()).settled == [], "held: nothing before the next attempt is due"
    harness.clock.advance(timedelta(seconds=10))
    second = asyncio.run(loop.drain_all())
    assert [row.recipient for row in transport.sent] == ["ann"], "the retry went out"
    assert {(s.row.recipient, s.status) for s in second.settled} == {("ann", "sent"), ("cat", "parked")}
    assert sorted(row.recipient for row, _ in loop.drain.parked(CHANNEL)) == ["ben", "cat"]
    harness.clock.advance(timedelta(hours=2))
    assert asyncio.run(loop.drain_all()).settled == [], "parked rows are never tried again"


def test_an_unavailable_channel_gives_its_rows_back_untouched(sessions):
    harness = Harness(sessions)
    _source, _runner, transport, loop = _channel(harness)
    _queue(harness, "ann", "first")
    _queue(harness, "ann", "second")
    transport.script = {"ann": [Unavailable("the server is away")]}

    report = asyncio.run(loop.drain_all())
    assert isinstance(report.unavailable, Unavailable) and transport.sent == []
    with unit_of_work(sessions) as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.channel == CHANNEL)).all()
        assert [(row.attempts, row.claimed_until, row.sent_at) for row in rows] == [(0, None, None)] * 2
    assert asyncio.run(loop.drain_all()).sent == 2, "due again at once, in order"
    assert [row.data["subject"] for row in transport.sent] == ["first", "second"]


def test_the_loop_wakes_on_the_bell_when_a_row_is_committed(sessions):
    harness = Harness(sessions)
    _source, _runner, transport, loop = _channel(harness)
    loop.interval = 60.0
    bell = OutboxBell().listen(sessions)
    loop.bell = bell

    async def scenario() -> float:
        stop = asyncio.Event()
        task = asyncio.create_task(loop.run(stop))
        try:
            await asyncio.sleep(0.2)  # the first pass found nothing: it waits its minute
            started = asyncio.get_running_loop().time()
            await asyncio.to_thread(_queue, harness, "ann", "rung")
            while not transport.sent:
                assert asyncio.get_running_loop().time() - started < 5, "not woken by the bell"
                await asyncio.sleep(0.02)
            return asyncio.get_running_loop().time() - started
        finally:
            stop.set()
            await asyncio.wait_for(task, 2)

    try:
        assert asyncio.run(scenario()) < 5
    finally:
        bell.stop_listening(sessions)
