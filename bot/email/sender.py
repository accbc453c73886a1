"""The email sender: drains the outbox's ``email`` rows through a transport.

Each pass takes the due rows and hands them out over ``connections`` sessions
at once (``smtp_connections``, 1 to 8): every row of one recipient on one
session, in the order they were written.  On each session, for each row, it
hands the message over and marks the row sent at once (one commit per row,
before that session's next row is handed over), so a row is handed over again
only if the process dies between the server's "250 OK" and that commit, and
then with the same Message-ID: a kill -9 re-sends at most one mail per
session.  The commit survives the process dying at once; it does not wait
for the disk (:class:`bot.core.messaging.outbox.SentMarker`: an OS crash or a database
server crash may send the last marked rows again).

* The server is away (:class:`bot.email.smtp.TransportUnavailable`): that
  session stops (the others finish their rows), the rows not sent are given
  back at once, and the sender waits with exponential back-off
  (``retry_min`` doubling up to ``retry_max``) before trying again.  No
  message is lost and none is sent twice.
* The server refuses one message for good (a ``5xx`` reply: no such
  recipient, too large), or it cannot be built: that row is parked with the
  reason (``referee outbox list`` shows it) and never retried; the pass goes on.
* The server refuses it for now (``4xx``): the row is marked failed, the
  outbox retries it with its own back-off, and the pass goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from typing import Protocol, runtime_checkable

from bot.core.basics.clock import Clock
from bot.core.basics.log_fields import log_fields
from bot.core.messaging.outbox import OutboxDrain, PendingMessage, SentMarker
from bot.core.messaging.outbox_bell import BELL, Doorbell, OutboxBell
from bot.email.compose import BuiltMail, MailIdentity, UnsendableMessage, compose_bytes
from bot.email.smtp import MessageRejected, TransportUnavailable

log = logging.getLogger(__name__)

CHANNEL = "email"
MAX_CONNECTIONS = 8


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


class MailSender:
    """See the module docstring."""

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
        bell: OutboxBell = BELL,
        connections: int = 1,
    ) -> None:
        self.drain = drain
        self.transport = transport
        self.clock = clock
        self.identity = identity
        self.batch = batch
        self.interval = interval
        self.retry_min = retry_min
        self.retry_max = retry_max
        self.bell = bell
        if not 1 <= connections <= MAX_CONNECTIONS:
            raise ValueError(f"connections must be 1 to {MAX_CONNECTIONS}, not {connections}")
        self.connections = connections

    async def send_due(self) -> SendResult:
        """One batch; raises :class:`TransportUnavailable` when the server is away.

        The batch's messages are built first (in a worker thread, one call),
        then handed out over ``connections`` sessions at once, one recipient's
        rows all on one session in their order (:func:`_lanes`).  On each
        session each message is handed over and its row marked sent
        (committed) after the server's 250 and before that session's next
        message's content is handed over, so a crash re-sends one message at
        most per session.  A mark commits on the pass's marking thread
        (:class:`_MarkThread`: one thread and one database connection take
        every session's marks in turn, cheaper than one each) while that
        session's next envelope is opened (``MAIL FROM``, ``RCPT TO``: no mail
        is delivered without its content), when the connection can do that
        (:class:`OpensEnvelopes`).
        A session that fails stops alone; the others finish their rows, then
        the rows not sent are given back at once and the error raised.
        """
        rows = await asyncio.to_thread(self.drain.due, CHANNEL, self.clock.now(), self.batch)
        if not rows:
            return SendResult()
        lanes: list[_Lane] = []
        try:
            messages = await asyncio.to_thread(self._build_all, rows)
            marker = _MarkThread(self.drain.marker())  # one for every session: cheaper than one each
            lanes = [_Lane(items, _SentMarks(marker)) for items in _lanes(rows, messages, self.connections)]
            try:
                await marker.open()
                outcomes = await asyncio.gather(*(self._send_lane(lane) for lane in lanes), return_exceptions=True)
            finally:
                await marker.close()  # after every session's last mark (each settles it first)
            errors = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
            if errors:  # a bug before the server going away: it says more
                raise next((e for e in errors if not isinstance(e, TransportUnavailable)), errors[0])
        finally:
            settled = {row.id for lane in lanes for row in (*lane.refused, *lane.marks.sent)}
            unsent = [row.id for row in rows if row.id not in settled]
            if unsent:  # a session went away mid-batch: give the rest back at once, for the next try
                await asyncio.to_thread(self.drain.release, unsent)
        sent = sum(len(lane.marks.sent) for lane in lanes)
        return SendResult(sent, sum(len(lane.refused) for lane in lanes), len(rows) == self.batch)

    async def _send_lane(self, lane: _Lane) -> None:
        """Hand ``lane``'s messages over on one session, in order, each marked before the next content."""
        marks = lane.marks
        try:
            async with self.transport.connect() as connection:
                envelope_first = connection if isinstance(connection, OpensEnvelopes) else None
                for row, built in lane.items:
                    with log_fields(message_id=row.message_id):  # every line logged for this mail names it
                        try:
                            if isinstance(built, UnsendableMessage):
                                raise built
                            if envelope_first is not None:
                                await envelope_first.open_envelope(built, row.recipient)  # while the last mark commits
                            await marks.settle()  # the last row is marked before this content is handed over
                            await connection.send(built, row.recipient)
                        except (UnsendableMessage, MessageRejected) as exc:
                            await marks.settle()
                            await self._settle_refused(row.id, row.recipient, exc)
                            lane.refused.append(row)
                            continue
                        marks.start(row, self.clock.now())
        finally:
            await marks.settle()

    def _build_all(self, rows: list[PendingMessage]) -> list[BuiltMail | UnsendableMessage]:
        """Each row's message, or why it cannot be built (one call in a worker thread for the batch)."""
        built: list[BuiltMail | UnsendableMessage] = []
        for row in rows:
            try:
                built.append(compose_bytes(row, self.identity, self.clock.now()))
            except UnsendableMessage as exc:
                built.append(exc)
        return built

    async def _settle_refused(self, row_id: int, recipient: str, exc: UnsendableMessage | MessageRejected) -> None:
        """Park a row refused for good (or that cannot be built); mark one refused for now failed."""
        if isinstance(exc, UnsendableMessage) or exc.permanent:
            await asyncio.to_thread(self.drain.park, row_id, self.clock.now(), str(exc))
            log.warning("outbox #%d to %s refused for good (%s): parked", row_id, recipient, exc)
        else:
            retry = await asyncio.to_thread(self.drain.mark_failed, row_id, self.clock.now(), str(exc))
            log.warning("outbox #%d to %s refused (%s); next try at %s", row_id, recipient, exc, retry)

    async def drain_all(self) -> SendResult:
        """Batches until nothing is due (``referee serve --once``, the demo); raises when the server is away."""
        total = SendResult()
        while True:
            result = await self.send_due()
            total = SendResult(total.sent + result.sent, total.failed + result.failed)
            if not result.remaining:
                return total

    async def run(self, stop: asyncio.Event) -> None:
        """Send until ``stop`` is set, backing off while the server is away.

        Between passes it waits ``interval`` seconds, or less: until rows for
        its channel are committed in this process (:mod:`bot.core.messaging.outbox_bell`)
        or ``stop`` is set.  While the server is away it waits out its back-off.
        """
        delay = self.retry_min
        with self.bell.doorbell(CHANNEL) as doorbell:
            while not stop.is_set():
                wait, on_ring = self.interval, True
                doorbell.clear()  # a commit from now on ends the wait below
                try:
                    result = await self.send_due()
                    delay = self.retry_min
                    if result.remaining:
                        wait = 0.0
                except TransportUnavailable as exc:
                    log.warning("mail server unavailable (%s); retrying in %.1f s", exc, delay)
                    wait, delay, on_ring = delay, min(delay * 2, self.retry_max), False
                except Exception:
                    log.exception("the sender failed; retrying in %.1f s", delay)
                    wait, delay, on_ring = delay, min(delay * 2, self.retry_max), False
                if wait:
                    await _pause(wait, stop, doorbell if on_ring else None)


async def _pause(seconds: float, stop: asyncio.Event, doorbell: Doorbell | None) -> None:
    """Wait ``seconds``, or until ``stop`` is set or ``doorbell`` rings (if given)."""
    waits: list[asyncio.Future[bool]] = [asyncio.ensure_future(stop.wait())]
    if doorbell is not None:
        waits.append(asyncio.ensure_future(doorbell.wait(seconds)))
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()


def _lanes(
    rows: list[PendingMessage], messages: list[BuiltMail | UnsendableMessage], count: int
) -> list[list[tuple[PendingMessage, BuiltMail | UnsendableMessage]]]:
    """``rows`` (with their messages) dealt over at most ``count`` sessions, none empty.

    Every row of one recipient goes on one session, in the batch's order (so a
    recipient receives its mail in the order it was written); each recipient,
    in the order first seen, goes on the session with the fewest rows so far.
    """
    if count == 1:
        return [list(zip(rows, messages, strict=True))]
    load = Counter(row.recipient for row in rows)
    lanes: list[list[tuple[PendingMessage, BuiltMail | UnsendableMessage]]] = [[] for _ in range(count)]
    sizes = [0] * count
    lane_of: dict[str, int] = {}
    for row, built in zip(rows, messages, strict=True):
        lane = lane_of.get(row.recipient)
        if lane is None:
            lane = lane_of[row.recipient] = min(range(count), key=sizes.__getitem__)
            sizes[lane] += load[row.recipient]
        lanes[lane].append((row, built))
    return [lane for lane in lanes if lane]


class _Lane:
    """One session's share of a batch: its rows in order, its marks, the rows refused on it."""

    def __init__(self, items: list[tuple[PendingMessage, BuiltMail | UnsendableMessage]], marks: _SentMarks) -> None:
        self.items = items
        self.marks = marks
        self.refused: list[PendingMessage] = []


class _MarkThread:
    """One thread holding one database connection (:class:`bot.core.messaging.outbox.SentMarker`) for a pass.

    Marks run on it one at a time, in the order handed over; the marker is
    opened, used and closed on the one thread, so a close always comes after
    the last mark, even when the pass is cancelled while it waits.
    """

    def __init__(self, marker: SentMarker) -> None:
        self._marker = marker
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sent-marks")

    async def open(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._thread, self._marker.open)

    def mark(self, row: PendingMessage, now: datetime) -> asyncio.Future[None]:
        mark = self._marker.mark_sent
        return asyncio.get_running_loop().run_in_executor(self._thread, mark, row.id, now, row.secret)

    async def close(self) -> None:
        """Close the marker (after any mark still running) and let the thread go."""
        try:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._marker.close)
        finally:
            self._thread.shutdown(wait=False)


class _SentMarks:
    """One session's sent marks, committed in order on a :class:`_MarkThread`.

    :meth:`start` hands a row's mark (:meth:`bot.core.messaging.outbox.SentMarker.mark_sent`)
    to the thread and returns at once; :meth:`settle` waits until that mark is
    committed (the sender calls it before it hands over the session's next
    message's content, so at most one delivered row of a session is ever
    unmarked).  One mark of a session is in flight at a time; the mark itself
    is shielded from a cancellation (a delivered row is still marked).
    ``sent``: the rows whose mark is committed, in order.
    """

    def __init__(self, thread: _MarkThread) -> None:
        self._thread = thread
        self._pending: tuple[PendingMessage, asyncio.Future[None]] | None = None
        self.sent: list[PendingMessage] = []

    def start(self, row: PendingMessage, now: datetime) -> None:
        """Mark ``row`` sent, in the background (the mark before it must be settled)."""
        if self._pending is not None:
            raise RuntimeError("the previous mark is not settled")
        self._pending = (row, self._thread.mark(row, now))

    async def settle(self) -> None:
        """Wait until the mark in flight (if any) is committed; raises if it failed."""
        if self._pending is None:
            return
        (row, future), self._pending = self._pending, None
        await asyncio.shield(future)
        self.sent.append(row)
        with log_fields(message_id=row.message_id):
            log.info("sent %s (%s) to %s", row.message_id, row.kind, row.recipient)
