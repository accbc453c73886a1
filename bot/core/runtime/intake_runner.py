"""The intake runner: one pass over a channel's source stores what is new, applies it, then acknowledges it.

The order is what makes every channel's intake safe::

    list unacknowledged messages
      -> store each one not yet stored (raw bytes, committed)   <- before anything is told to the server
      -> understand and apply every stored message that is due (one transaction a batch)
      -> acknowledge those whose row is done or parked: each batch's new messages once the
         batch is committed, the others at the end of the pass

    -> record the watermark: everything that arrived before T is stored and processed

A crash before storing leaves the message at the source, unacknowledged; a
crash after storing finds the row on the next pass (by its source key) and
does not read it again; a crash after processing re-applies as a no-op; a
crash after settling and before acknowledging only acknowledges late.  A
second copy of a message (the same content digest under another key) is
acknowledged as soon as the first copy is settled, and never processed; a
different message that reuses an old message id is a message of its own.

**The time that counts** is when the message reached the channel's server
(:attr:`MessageRef.arrived_at`, given by the source).  A message whose
arrival time is missing is dated when the bot stored it; one dated after
that (a server clock ahead of the bot's) is clamped to it, so no message
ever counts as arriving after it was read.

**The watermark** (:mod:`bot.core.intake.watermarks`): after a pass has stored and
processed everything it listed, it records ``T = floor(S) - settle``, where
``S`` is the bot's clock when the pass began listing: any message visible
then was listed; one that became visible later has an arrival time at or
after ``floor(S) - settle`` as long as saving it took less than ``settle``
(default 1 s) and the clocks of the bot and the server agree to within it
(NTP).  The floor is there because a server may date in whole seconds: a
message that arrives after ``S`` within the same second is dated ``floor(S)``.
``T`` is held back to the arrival of any stored message not yet processed (a
failed one waiting for its retry), so "read" always means "applied".

**No message holds up the others.**  A channel's reader is bounded (it gives
up on a message over its budget: a parked :class:`~bot.core.intake.understanding.Skip`),
and a parked row does not hold the watermark back.  So a hostile message
delays a pass by at most the budget, and every message that reached the
server before a deadline is applied before the watermark passes the
deadline: an order that arrived in time is used for its turn.

A channel brings a :class:`Source` (list, read, acknowledge) and an
:class:`~bot.core.intake.understanding.Understander`; the storing, applying
(:mod:`bot.core.runtime.intake_processor`), retrying, parking, batching and
watermarks are this runner's.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from bot.core.basics.batch import Redo
from bot.core.intake.inbox import DONE, PARKED, Incoming, Pending, Stored
from bot.core.intake.understanding import Arrived, Read, Reading, Understander
from bot.core.intake.watermarks import Watermarks
from bot.core.runtime.intake_processor import PassResult, Processor, arrived

log = logging.getLogger(__name__)

FETCH_BATCH = 500
"""At most this many messages fetched in one command when the source can batch (``read_many``),
and handled in one transaction.

What a batch costs besides its messages (its look-ups, flush, commit) is spread over more of them
(2,000 order messages, CPU of the intake's process: 200 a batch 0.32 ms a message, 400 0.29 ms,
1,000 0.26 ms); a batch holds SQLite's write lock while it is applied (about 0.3 ms a message: 150 ms at
500), which the sender's marks and the deadline worker wait for."""
FIRST_FETCH_BATCH = 50
"""A pass's first batch is this small, and each next one twice as large up to :data:`FETCH_BATCH`:
nothing is applied before the first batch is read, so a small one starts the pipeline (fetch,
read, apply) sooner, and the first replies go out sooner; twice, because a batch is read in about
half the time the one before it takes to be applied, so the applying never waits for the reader."""
FETCH_BATCH_BYTES = 4 * 1024 * 1024
"""And at most about this many bytes in one batch (memory stays bounded)."""


@dataclass(frozen=True)
class MessageRef:
    """One message at a source: its durable key, size, and arrival time at the server."""

    key: str
    size: int
    arrived_at: datetime | None
    handle: object


class Source(Protocol):
    """What a channel's intake reads; every method may raise OSError when the source is gone.

    ``name`` names the intake for its watermark (``ServiceConfig.intakes`` lists the same names).
    """

    name: str

    def unacknowledged(self) -> Sequence[MessageRef]:
        """The messages not yet acknowledged, oldest first."""
        ...

    def read(self, ref: MessageRef, max_bytes: int) -> bytes:
        """The raw message (at most ``max_bytes``; a larger message is cut there)."""
        ...

    def acknowledge(self, refs: Sequence[MessageRef]) -> None:
        """Move (or flag) the messages so they are not listed again."""
        ...


@dataclass(frozen=True)
class IntakeResult:
    stored: int = 0
    duplicates: int = 0
    processed: PassResult = field(default_factory=PassResult)
    acknowledged: int = 0


def whole_second(moment: datetime) -> datetime:
    return moment.replace(microsecond=0)


@dataclass
class _PassState:
    """What one pass has done so far (:meth:`IntakeRunner.run_once`)."""

    owner: dict[str, str]
    """Each message's key -> the key of the stored row that holds its content (a copy's is another's)."""
    stored: int = 0
    duplicates: int = 0
    processed: PassResult = field(default_factory=PassResult)
    done_now: set[str] = field(default_factory=set)
    """Rows an optimistic batch settled: done (else the batch would have run again)."""
    acknowledged: set[str] = field(default_factory=set)
    """Messages acknowledged during the pass (written by the fetching thread)."""

    def acknowledge(self, source: Source, refs: Sequence[MessageRef]) -> None:
        source.acknowledge(refs)
        self.acknowledged.update(ref.key for ref in refs)


class IntakeRunner:
    """Runs passes of the protocol above over a channel's sources.

    ``processor``: applies the channel's stored messages; ``understander`` reads each fetched
    batch while the one before it is applied, and the stored messages due again (the
    processor's by default); ``watermarks`` (optional) records how far each pass read;
    ``settle`` is the margin of the module docstring; ``max_bytes``: a larger message is read
    only this far (its understander answers it).
    """

    def __init__(
        self,
        processor: Processor,
        watermarks: Watermarks | None = None,
        settle: timedelta = timedelta(seconds=1),
        max_bytes: int = 10 * 1024 * 1024,
        understander: Understander | None = None,
    ) -> None:
        self.processor = processor
        self.understander = understander or processor.understander
        self.channel = processor.channel
        self.inbox = processor.inbox
        self.clock = processor.clock
        self.watermarks = watermarks
        self.settle = settle
        self.read_until: dict[str, datetime] = {}
        """How far each source's last pass read (what :meth:`seconds_to_wait` looks past)."""
        self.max_bytes = max_bytes
        """A larger message is read only this far."""

    def run_once(self, source: Source) -> IntakeResult:
        started = self.clock.now()
        refs = list(source.unacknowledged())
        known = self.inbox.statuses(ref.key for ref in refs)
        state = _PassState({ref.key: ref.key for ref in refs if ref.key in known})
        # Three stages at once: while a batch is stored and applied (this thread), the next is read
        # (understood by the channel's understander, in a process of its own when it has one) and
        # the one after it fetched, on a thread of its own, which also acknowledges each batch's
        # messages once their batch is committed (the source is used by that thread alone until
        # the loop ends).  A batch fetched is stored before an error fetching the next goes on.
        batches = self._fetch(source, [ref for ref in refs if ref.key not in state.owner])
        acks: list[Future[None]] = []
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="intake-fetch") as fetcher:
            current = next(batches, None)
            if current is not None:
                self.understander.start(self._to_read(current))
            ahead = fetcher.submit(next, batches, None) if current is not None else None
            while current is not None:
                assert ahead is not None
                try:
                    following = ahead.result()
                except Exception:
                    self._store_batch(state, current, self.understander.result())
                    raise
                read = self.understander.result()
                if following is not None:
                    self.understander.start(self._to_read(following))
                    ahead = fetcher.submit(next, batches, None)
                done_at_once = self._store_batch(state, current, read)
                if done_at_once:
                    acks.append(fetcher.submit(state.acknowledge, source, done_at_once))
                current = following
        for ack in acks:
            ack.result()  # an acknowledgement that failed fails the pass (the next one repeats it)
        # Earlier rows due again (a retry, a row the host requeued): read by the reader too, within its budget.
        processed = state.processed + self.processor.process_pending(read=self._read_stored)
        # A done row stays done (only new and failed rows are processed), so only the others are asked.
        owner, done_now = state.owner, state.done_now
        settled = self.inbox.statuses(key for key in owner.values() if key not in done_now)
        settled.update(dict.fromkeys(done_now, DONE))
        done = [
            ref for ref in refs if ref.key not in state.acknowledged and settled.get(owner[ref.key]) in (DONE, PARKED)
        ]
        if done:
            source.acknowledge(done)
        if self.watermarks is not None:
            read_until = whole_second(started) - self.settle
            self.read_until[source.name] = read_until
            unsettled = self.inbox.unsettled_since(self.channel)
            if unsettled is not None and unsettled < read_until:
                # Held back by a message waiting for its retry: another pass cannot help before the
                # retry is due, so the next wait is timed as if this pass had read everything.
                read_until = unsettled
            self.watermarks.record_pass(source.name, read_until, self.clock.now())
        return IntakeResult(state.stored, state.duplicates, processed, len(done) + len(state.acknowledged))

    def _store_batch(
        self, state: _PassState, chunk: list[tuple[MessageRef, bytes]], read: list[Read]
    ) -> list[MessageRef]:
        """One transaction a fetched batch: store every message, apply each, settle its row, commit
        once (:mod:`bot.core.basics.batch`); first optimistic (one flush for the batch), and if a message
        raises, again with a savepoint for each.  Returns the messages that may be acknowledged at
        once: those stored new by an optimistic batch (committed, and settled done with it)."""
        incoming = [self._incoming(ref, raw, message) for (ref, raw), message in zip(chunk, read, strict=True)]
        readings = {message.key: message.reading for message in read}
        optimistic = True
        try:
            rows, result = self._store_and_process(incoming, readings, careful=False)
        except Redo as redo:
            log.info("a message of the batch failed (%s); the batch runs again, each message on its own", redo)
            rows, result = self._store_and_process(incoming, readings, careful=True)
            optimistic = False
        state.processed += result
        done_at_once: list[MessageRef] = []
        for (ref, _raw), item, row in zip(chunk, incoming, rows, strict=True):
            state.owner[item.source_key] = row.source_key
            if not row.new:
                state.duplicates += 1
                log.info("%s is a copy of stored message %s; it will not be processed", item.source_key,
                         row.source_key)  # fmt: skip
                continue
            state.stored += 1
            if optimistic:
                state.done_now.add(row.source_key)
                done_at_once.append(ref)
        return done_at_once

    def _store_and_process(
        self, incoming: list[Incoming], readings: Mapping[str, Reading], careful: bool
    ) -> tuple[list[Stored], PassResult]:
        """Store ``incoming`` and process what is new, in one batch (committed when this returns);
        ``readings``: what reading each message gave, by source key."""
        with self.inbox.batch(careful) as batch:
            rows = self.inbox.store_many(batch, self.channel, incoming)
            fresh = [
                Pending(row.id, row.source_key, self.channel, item.raw, 0, item.received_at, item.server_size)
                for item, row in zip(incoming, rows, strict=True)
                if row.new
            ]
            return rows, self.processor.process_batch(batch, fresh, readings)

    def _read_stored(self, items: Sequence[Pending]) -> dict[str, Reading]:
        """Stored messages read by the understander (so within its budget), by source key."""
        read = self.understander.read([arrived(p) for p in items])
        return {message.key: message.reading for message in read}

    def _arrived(self, ref: MessageRef) -> datetime:
        """The server's arrival time counts; missing: now; never later than now (module docstring)."""
        now = self.clock.now()
        return min(ref.arrived_at, now) if ref.arrived_at is not None else now

    @staticmethod
    def _cut(ref: MessageRef, raw: bytes) -> int | None:
        """The server's size when the bytes read were cut shorter, else None."""
        return ref.size if ref.size > len(raw) else None

    def _to_read(self, chunk: list[tuple[MessageRef, bytes]]) -> list[Arrived]:
        return [Arrived(ref.key, raw, self._arrived(ref), self._cut(ref, raw)) for ref, raw in chunk]

    def _incoming(self, ref: MessageRef, raw: bytes, read: Read) -> Incoming:
        return Incoming(ref.key, read.message_id, raw, self._arrived(ref), read.digest, self._cut(ref, raw))

    def _fetch(self, source: Source, refs: list[MessageRef]) -> Iterator[list[tuple[MessageRef, bytes]]]:
        """The messages' raw bytes, in order, in batches: of one command each when the source can
        (``read_many``, at most :data:`FETCH_BATCH` messages, the first :data:`FIRST_FETCH_BATCH`,
        and :data:`FETCH_BATCH_BYTES` a batch), else read one by one."""
        read_many = getattr(source, "read_many", None)
        batch: list[MessageRef] = []
        size = 0
        limit = min(FIRST_FETCH_BATCH, FETCH_BATCH)
        for position, ref in enumerate(refs):
            batch.append(ref)
            size += min(ref.size, self.max_bytes)
            if len(batch) >= limit or size >= FETCH_BATCH_BYTES or position == len(refs) - 1:
                limit = min(limit * 2, FETCH_BATCH)
                if read_many is None:
                    yield [(item, source.read(item, self.max_bytes)) for item in batch]
                else:
                    raws: Mapping[str, bytes] = read_many(batch, self.max_bytes)
                    yield [(item, raws[item.key]) for item in batch]
                batch, size = [], 0

    def record_error(self, name: str, error: BaseException) -> None:
        """A pass of ``name`` failed: say so on its watermark (which stays where it was)."""
        if self.watermarks is None:
            return
        try:
            self.watermarks.record_error(name, f"{type(error).__name__}: {error}", self.clock.now())
        except Exception as exc:  # the database may be what failed
            log.warning("could not record the intake error of %s: %s", name, exc)

    def seconds_to_wait(self, longest: float, name: str | None = None) -> float:
        """How long the intake ``name`` may wait before its next pass: at most ``longest``, and no
        longer than until a pass would carry its watermark past the first deadline it has not
        passed yet (so a turn waits for its messages about ``settle`` + 1 s, not a poll interval);
        0 when such a pass is due now."""
        if self.watermarks is None:
            return longest
        now = self.clock.now()
        read = self.read_until.get(name) if name is not None else None
        cursor = read - timedelta(microseconds=1) if read is not None else now - self.settle - timedelta(seconds=2)
        deadline = self.processor.service.next_deadline(after=cursor)
        if deadline is None:
            return longest
        ready = whole_second(deadline + self.settle) + timedelta(seconds=1, milliseconds=50)
        return max(0.0, min(longest, (ready - now).total_seconds()))
