"""The email channel's transport: outbox rows become mail, handed over on SMTP or Maildir sessions.

The loop itself (claim, lease, back-off, park, the bell, the sessions'
order and marks) is the core's :class:`bot.core.messaging.sender_loop.SenderLoop`;
this module brings what is email's own:

* the pass's messages are built first (:func:`bot.email.render.compose_bytes`,
  in a worker thread, one call), so a bug in building one stops the pass
  before anything is handed over (the rows are given back at once);
* a message that cannot be built (:class:`bot.email.render.UnsendableMessage`)
  is :class:`~bot.core.messaging.sender_loop.Refused`;
* each session is a connection of the configured :class:`Transport` (SMTP,
  a Maildir; ``smtp_connections``, 1 to 8, at once); a connection that can
  open a message's envelope first (:class:`OpensEnvelopes`: ``MAIL FROM``,
  ``RCPT TO``) does so while the previous row's mark commits;
* the server refuses one message for good (a ``5xx`` reply: no such
  recipient, too large): :class:`~bot.core.messaging.sender_loop.Refused`
  (parked, never retried); for now (``4xx``): a
  :class:`~bot.core.messaging.sender_loop.Retry` of that row alone, and the pass goes on;
* the server is away (:class:`bot.email.smtp.TransportUnavailable`, the core's
  :class:`~bot.core.messaging.sender_loop.Unavailable`): that session stops,
  the rows not sent are given back at once and the loop backs off
  (``retry_min`` doubling up to ``retry_max``).  No message is lost and none is
  sent twice: a row is marked sent (committed) after the server's "250 OK" and
  before that session's next content, so a kill -9 re-sends at most one mail
  per session, with the same Message-ID.  The commit survives the process
  dying at once; it does not wait for the disk
  (:class:`bot.core.messaging.outbox.SentMarker`: an OS crash or a database
  server crash may send the last marked rows again).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Protocol, runtime_checkable

from bot.core.basics.clock import Clock
from bot.core.messaging.outbox import OutboxDrain, PendingMessage
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.messaging.sender_loop import MAX_CONNECTIONS, PassReport, SenderLoop
from bot.core.messaging.transport import Outcome, Refused, Retry, Sent
from bot.email.render import BuiltMail, MailIdentity, UnsendableMessage, compose_bytes
from bot.email.smtp import MessageRejected

CHANNEL = "email"
__all__ = ["CHANNEL", "MAX_CONNECTIONS", "MailSender", "MailTransport", "SendResult"]


class Connection(Protocol):
    async def send(self, message: EmailMessage | BuiltMail, recipient: str) -> None: ...


@runtime_checkable
class OpensEnvelopes(Protocol):
    """A connection that can open a message's envelope before it is handed over (SMTP).

    ``open_envelope(message, recipient)`` then ``send(message, recipient)``:
    nothing is delivered before ``send``, and a session that ends between the
    two delivers nothing.
    """

    async def open_envelope(self, message: BuiltMail, recipient: str) -> None: ...

    async def send(self, message: EmailMessage | BuiltMail, recipient: str) -> None: ...


class Transport(Protocol):
    """Something that opens a session in which messages can be sent (SMTP, a Maildir)."""

    def connect(self) -> AbstractAsyncContextManager[Connection]: ...


@dataclass(frozen=True)
class SendResult:
    sent: int = 0
    failed: int = 0
    remaining: bool = False
    """True when the batch was full: more rows may be due."""


def _result(report: PassReport) -> SendResult:
    """The pass's counts; raises why the server was away, if it was (the caller backs off)."""
    if report.unavailable is not None:
        raise report.unavailable
    return SendResult(report.sent, report.failed, report.remaining)


class MailTransport:
    """Email's transport for the core's sender loop: see the module docstring."""

    def __init__(self, connector: Transport, identity: MailIdentity, clock: Clock) -> None:
        self.connector = connector
        self.identity = identity
        self.clock = clock
        self._built: dict[int, BuiltMail | UnsendableMessage] = {}

    async def begin(self, rows: Sequence[PendingMessage]) -> None:
        """Build the pass's messages (one call in a worker thread) before any is handed over; kept by
        row beside those of the pass that may be sending meanwhile."""
        self._built.update(await asyncio.to_thread(self._build_all, rows))

    async def end(self, rows: Sequence[PendingMessage]) -> None:
        """The pass is over: its messages are let go."""
        for row in rows:
            self._built.pop(row.id, None)

    def _build_all(self, rows: Sequence[PendingMessage]) -> dict[int, BuiltMail | UnsendableMessage]:
        """Each row's message, or why it cannot be built."""
        built: dict[int, BuiltMail | UnsendableMessage] = {}
        for row in rows:
            try:
                built[row.id] = compose_bytes(row, self.identity, self.clock.now())
            except UnsendableMessage as exc:
                built[row.id] = exc
        return built

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[_MailSession]:
        async with self.connector.connect() as connection:
            yield _MailSession(connection, self._built)


def _refusal(exc: UnsendableMessage | MessageRejected) -> Outcome:
    if isinstance(exc, UnsendableMessage) or exc.permanent:
        return Refused(str(exc))
    return Retry(str(exc))


class _MailSession:
    """One SMTP (or Maildir) session handing over the pass's built messages."""

    def __init__(self, connection: Connection, built: dict[int, BuiltMail | UnsendableMessage]) -> None:
        self.connection = connection
        self.built = built
        self.opens = connection if isinstance(connection, OpensEnvelopes) else None

    async def prepare(self, row: PendingMessage) -> Outcome | None:
        """A message that cannot be built is refused; else its envelope opens (delivering nothing)."""
        built = self.built[row.id]
        if isinstance(built, UnsendableMessage):
            return _refusal(built)
        if self.opens is not None:
            try:
                await self.opens.open_envelope(built, row.recipient)
            except MessageRejected as exc:
                return _refusal(exc)
        return None

    async def send(self, row: PendingMessage) -> Outcome:
        built = self.built[row.id]
        if isinstance(built, UnsendableMessage):
            return _refusal(built)
        try:
            await self.connection.send(built, row.recipient)
        except MessageRejected as exc:
            return _refusal(exc)
        return Sent()


class MailSender:
    """The core's sender loop over the outbox's ``email`` rows with a :class:`MailTransport`."""

    def __init__(
        self,
        drain: OutboxDrain,
        transport: Transport,
        clock: Clock,
        identity: MailIdentity,
        *,
        batch: int = 100,
        interval: float = 5.0,
        retry_min: float = 1.0,
        retry_max: float = 300.0,
        bell: OutboxBell | None = None,
        connections: int = 1,
    ) -> None:
        self.transport = transport
        self.loop = SenderLoop(
            drain, MailTransport(transport, identity, clock), clock, (CHANNEL,), bell=bell, batch=batch,
            interval=interval, retry_min=retry_min, retry_max=retry_max, connections=connections,
        )  # fmt: skip

    async def send_due(self) -> SendResult:
        """One batch; raises :class:`bot.email.smtp.TransportUnavailable` when the server is away."""
        return _result(await self.loop.send_due())

    async def drain_all(self) -> SendResult:
        """Batches until nothing is due (``referee serve --once``, the demo); raises when the server is away."""
        return _result(await self.loop.drain_all())

    async def run(self, stop: asyncio.Event) -> None:
        """Send until ``stop`` is set (:meth:`bot.core.messaging.sender_loop.SenderLoop.run`)."""
        await self.loop.run(stop, "mail server")
