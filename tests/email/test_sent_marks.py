"""The sender's marks overlap the next message's envelope, never its content (bot.core.messaging.sent_marks).

A row is marked sent (committed) before the next message's content is handed
over, so a kill -9 re-sends one message at most; the mark commits while the
next message's envelope (MAIL FROM, RCPT TO: nothing delivered) is opened.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from datetime import datetime
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.messaging.outbox import OutboxDrain, SentMarker
from bot.email.render import BuiltMail, MailIdentity, UnsendableMessage
from bot.email.smtp import MessageRejected
from bot.email.transport import MailSender, OpensEnvelopes
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.email.test_sending import order_everyone
from tests.email.world import REFEREE, START

IDENTITY = MailIdentity(REFEREE, "Referee")


def _sent_ids(sessions: sessionmaker[Session]) -> set[str]:
    with unit_of_work(sessions) as session:
        return set(session.scalars(select(OutboxMessage.message_id).where(OutboxMessage.sent_at.is_not(None))).all())


class _Recording:
    """A connection that opens envelopes; it records, at each step, which rows were marked sent.

    Each :meth:`connect` is a session of its own (numbered in ``steps``) sharing the records.
    """

    def __init__(self, sessions: sessionmaker[Session], refuse: str = "") -> None:
        self.sessions = sessions
        self.refuse = refuse
        self.before = _sent_ids(sessions)  # the world's earlier mail
        self.steps: list[tuple[str, str, set[str]]] = []
        self.by_session: dict[str, int] = {}
        """Message-ID -> the session that handled it."""
        self.delivered: list[str] = []
        self.number = 0
        self.opened = 0

    async def __aenter__(self) -> _Recording:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def connect(self) -> _Recording:
        self.opened += 1
        if self.opened == 1:
            return self
        view = copy.copy(self)  # a further session: a view sharing the records
        view.number = self.opened - 1
        return view

    async def open_envelope(self, message: BuiltMail, recipient: str) -> None:
        self.steps.append(("envelope", message.message_id, _sent_ids(self.sessions) - self.before))
        self.by_session[message.message_id] = self.number
        if recipient == self.refuse:
            raise MessageRejected("recipient refused: 550 no such user", 550)

    async def send(self, message: EmailMessage | BuiltMail, recipient: str) -> None:
        self.steps.append(("content", str(message["Message-ID"]), _sent_ids(self.sessions) - self.before))
        self.delivered.append(str(message["Message-ID"]))
        await asyncio.sleep(0)  # the other session's turn


@pytest.fixture(params=[1, 2], ids=["one-session", "two-sessions"])
def connections(request: pytest.FixtureRequest) -> int:
    return int(request.param)


@pytest.fixture
def slow_marks(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Each mark waits (up to 2 s) until the test lets it commit; the event is set by the connection."""
    original = SentMarker.mark_sent
    release = threading.Event()

    def slow(self: SentMarker, message_id: int, now: datetime, secret: bool = True) -> None:
        release.wait(2)
        release.clear()
        original(self, message_id, now, secret)

    monkeypatch.setattr(SentMarker, "mark_sent", slow)
    return release


async def test_every_message_content_goes_only_after_the_previous_row_is_marked(world, connections):
    """On each session (two: each on its own) a content goes only once that session's previous row is marked."""
    clock = SimulatedClock(START)
    order_everyone(world, clock)
    connection = _Recording(world)
    assert isinstance(connection, OpensEnvelopes)
    sender = MailSender(OutboxDrain(world), connection, clock, IDENTITY, connections=connections)
    result = await sender.drain_all()
    assert result.sent == 6 and len(connection.delivered) == 6
    assert connection.opened == connections
    contents = [(mid, marked) for step, mid, marked in connection.steps if step == "content"]
    for session in range(connections):
        mine = [(mid, marked) for mid, marked in contents if connection.by_session[mid] == session]
        assert mine, "each session has its share"
        for number, (message_id, marked) in enumerate(mine):
            assert {mid for mid, _ in mine[:number]} <= marked, f"message {number}: the one before is marked"
            assert message_id not in marked
    assert _sent_ids(world) - connection.before == set(connection.delivered)


class _Releasing(_Recording):
    """Lets each mark in flight commit only once the next envelope is open (or the session ends)."""

    def __init__(self, sessions: sessionmaker[Session], release: threading.Event) -> None:
        super().__init__(sessions)
        self.release = release

    async def open_envelope(self, message: BuiltMail, recipient: str) -> None:
        await super().open_envelope(message, recipient)
        if len(self.steps) > 1:  # a mark is in flight from the second message on
            self.release.set()

    async def __aexit__(self, *exc: object) -> None:
        self.release.set()  # the last mark


async def test_the_next_envelope_opens_while_the_previous_mark_commits(world, slow_marks: threading.Event):
    """The overlap itself: the envelope of message N+1 is opened before the mark of N is committed."""
    clock = SimulatedClock(START)
    order_everyone(world, clock)
    connection = _Releasing(world, slow_marks)
    result = await MailSender(OutboxDrain(world), connection, clock, IDENTITY).drain_all()
    assert result.sent == 6
    envelopes = [marked for step, _, marked in connection.steps if step == "envelope"]
    contents = [(mid, marked) for step, mid, marked in connection.steps if step == "content"]
    for number in range(1, 6):  # opened while the mark of the message before was still waiting ...
        assert contents[number - 1][0] not in envelopes[number]
        assert contents[number - 1][0] in contents[number][1]  # ... and committed before this content went
    assert _sent_ids(world) - connection.before == {mid for mid, _ in contents}


async def test_a_recipient_refused_at_the_envelope_is_settled_and_the_others_marked(world, connections):
    clock = SimulatedClock(START)
    order_everyone(world, clock)
    connection = _Recording(world, refuse="cat@example.org")
    result = await MailSender(OutboxDrain(world), connection, clock, IDENTITY, connections=connections).drain_all()
    assert (result.sent, result.failed) == (5, 1)
    assert _sent_ids(world) - connection.before == set(connection.delivered) and len(connection.delivered) == 5
    ((parked, reason),) = OutboxDrain(world).parked("email")
    assert parked.recipient == "cat@example.org" and "550" in reason


async def test_a_message_that_cannot_be_built_is_parked_and_the_pass_goes_on(world, monkeypatch, connections):
    """A message that cannot be built is parked; an unexpected error building one (next test) stops the
    pass, and the rows not sent are free again at once (not held for the lease)."""
    import bot.email.transport as sender_module

    clock = SimulatedClock(START)
    order_everyone(world, clock)
    compose_bytes = sender_module.compose_bytes

    def refuse_cat(row: Any, identity: MailIdentity, now: datetime) -> BuiltMail:
        if row.recipient == "cat@example.org":
            raise UnsendableMessage("not an email address: 'cat'")
        return compose_bytes(row, identity, now)

    monkeypatch.setattr(sender_module, "compose_bytes", refuse_cat)
    connection = _Recording(world)
    result = await MailSender(OutboxDrain(world), connection, clock, IDENTITY, connections=connections).drain_all()
    assert (result.sent, result.failed) == (5, 1) and len(connection.delivered) == 5
    ((parked, reason),) = OutboxDrain(world).parked("email")
    assert parked.recipient == "cat@example.org" and "not an email address" in reason


async def test_an_error_building_a_message_stops_the_pass_and_gives_the_rest_back(world, monkeypatch, connections):
    import bot.email.transport as sender_module

    clock = SimulatedClock(START)
    order_everyone(world, clock)
    compose_bytes = sender_module.compose_bytes
    built: list[str] = []

    def fail_on_the_third(row: Any, identity: MailIdentity, now: datetime) -> BuiltMail:
        if len(built) == 2:
            raise RuntimeError("a bug in the templates")
        built.append(row.recipient)
        return compose_bytes(row, identity, now)

    monkeypatch.setattr(sender_module, "compose_bytes", fail_on_the_third)
    connection = _Recording(world)
    with pytest.raises(RuntimeError, match="a bug in the templates"):
        await MailSender(OutboxDrain(world), connection, clock, IDENTITY, connections=connections).drain_all()
    assert connection.delivered == [], "the batch is built before anything is handed over"
    assert len(OutboxDrain(world).due("email", clock.now())) == 6, "given back at once"
