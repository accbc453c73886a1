"""The sender loop: a channel's outbox rows handed to its transport, settled, retried or parked.

Every channel's sending half is this one loop; the channel brings only a
transport (:mod:`bot.core.messaging.transport`) that says what became of one
row: sent, to retry (for now; with a hold, nothing of the channel goes out
before the row's next attempt, or the hold's seconds) or refused (for good),
or raises ``Unavailable`` (the channel's server is away).

A pass claims the due rows of the loop's channels (a lease:
:meth:`bot.core.messaging.outbox.OutboxDrain.due`; another process skips
them), oldest first, and deals them over ``connections`` sessions at once,
every row of one recipient on one session in the order written (so a
recipient receives its messages in order).  On each session, a row the
channel took is marked sent at once, committed before that session's next
row's content is handed over (:mod:`bot.core.messaging.sent_marks`), so a
process killed at any moment sends at most one row per session again, with
the same Message-ID.  A transport may open the next row's envelope while the
mark commits (``Prepares``: nothing is delivered by it).

When a pass's claim is full (more rows are due: a deadline's reports, a
burst of replies), the next pass's rows are claimed and begun (``Begins``:
email builds its messages) while this pass sends, so the sessions do not sit
idle while the next batch is built; they are sent only once this pass is
over (a recipient's rows keep their order), and given back at once if it
ends early (the channel away, a hold, a bug, a stop).  A process killed
outright gives nothing back: its claimed rows (a pass's, and the next
pass's) wait for their lease (:data:`bot.core.messaging.outbox.LEASE`) to
run out, then any sender takes them.

* ``Retry``: a failed attempt (the outbox's exponential back-off);
  without a hold the pass goes on, with one the pass stops there (the rows
  after it keep their order) and no row is sent before the hold ends.
* ``Refused``: the row is parked with the reason, never retried.
* An exception (a bug): logged, counted as a failed attempt and held like a
  ``Retry``; the row is parked after ``max_attempts``.
* ``Unavailable``: that session stops (the others finish their rows),
  the rows not sent are given back at once with no attempt counted, and the
  loop waits with exponential back-off (``retry_min`` doubling up to
  ``retry_max``) before the next pass.

A game's status rows coalesce: of several due for one recipient in a pass,
only the newest is sent; the older are marked sent as superseded.

Between passes the loop waits ``interval`` seconds, or less: until rows of
its channels are committed in this process (the bell it was given:
:mod:`bot.core.messaging.outbox_bell`), :meth:`SenderLoop.wake` is called, or
it is stopped; a ring or a wake during a pass is kept for the next wait.
Nothing is lost at a stop: a pass in flight finishes its session's mark, and
the rows it did not send are given back.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Collection, Coroutine, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bot.core.basics.clock import Clock
from bot.core.basics.log_fields import log_fields
from bot.core.messaging.outbox import OutboxDrain, PendingMessage
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.messaging.sent_marks import MarkThread, SentMarks
from bot.core.messaging.transport import (
    Begins,
    Follows,
    Outcome,
    Prepares,
    Refused,
    Retry,
    Sent,
    Transport,
    Unavailable,
)  # fmt: skip
from bot.core.model.outcomes import STATUS

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 8


SENT, RETRY, PARKED, GIVEN_BACK = "sent", "retry", "parked", "given back"


@dataclass(frozen=True)
class Settled:
    """What became of one row in one pass."""

    row: PendingMessage
    status: str
    reason: str = ""
    code: int | None = None


@dataclass
class PassReport:
    settled: list[Settled] = field(default_factory=list)
    remaining: bool = False
    """True when a claim was full: more rows may be due."""
    unavailable: Unavailable | None = None
    """Why the pass stopped early: the channel's server is away."""

    @property
    def sent(self) -> int:
        return sum(s.status == SENT for s in self.settled)

    @property
    def failed(self) -> int:
        return sum(s.status in (RETRY, PARKED) for s in self.settled)


class SenderLoop:
    """Drains the outbox rows of ``channels`` through ``transport``; see the module docstring."""

    def __init__(
        self,
        drain: OutboxDrain,
        transport: Transport,
        clock: Clock,
        channels: Iterable[str],
        *,
        bell: OutboxBell | None = None,
        batch: int = 100,
        interval: float = 5.0,
        retry_min: float = 1.0,
        retry_max: float = 300.0,
        connections: int = 1,
        max_attempts: int = 10,
    ) -> None:
        if not 1 <= connections <= MAX_CONNECTIONS:
            raise ValueError(f"connections must be 1 to {MAX_CONNECTIONS}, not {connections}")
        self.drain = drain
        self.transport = transport
        # What the transport does besides sending, asked once (a check against a runtime Protocol walks its
        # attributes: once a row adds up).
        self._begins = transport if isinstance(transport, Begins) else None
        self._follows = transport if isinstance(transport, Follows) else None
        self.clock = clock
        self.channels = tuple(channels)
        self.bell = bell
        self.batch = batch
        self.interval = interval
        self.retry_min = retry_min
        self.retry_max = retry_max
        self.connections = connections
        self.max_attempts = max_attempts
        self.held_until: datetime | None = None
        """No send before this (a :class:`Retry` with a hold, or a bug)."""
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._ahead: asyncio.Task[_Claim | None] | None = None
        """The next pass's rows, being claimed and begun while a pass sends (see :meth:`send_due`)."""

    def wake(self) -> None:
        """Ask for a pass now (something was just queued)."""
        self._wake.set()

    async def send_due(self, recipients: Collection[str] | None = None) -> PassReport:
        """One pass over the due rows (only those of ``recipients``, when given; the others claimed
        with them are given back at once).  Raises what a :class:`Begins` transport raised, or a
        session's error that is not the channel's: the rows not sent are given back first.

        When the pass's claim was full (more rows are due), the next pass's rows are claimed and
        begun (built) while this pass sends (see the module docstring); the next call sends them."""
        async with self._lock:
            earlier: list[Settled] = []
            if recipients is not None:  # rows claimed ahead go first to their recipients: due again now
                earlier = await self.give_back_ahead()
            claim = await self._ahead_claim()
            if claim is None:
                claim = await self._claim(recipients)
            if claim is None:
                return PassReport(settled=earlier)
            report = PassReport(settled=earlier + claim.superseded, remaining=claim.remaining)
            if not claim.rows:
                return report
            if recipients is None and claim.remaining:
                self._ahead = asyncio.create_task(self._claim(None))
            finished = False
            try:
                await self._pass(claim.rows, report)
                finished = report.unavailable is None and self.held_until is None
            finally:
                if not finished:  # the channel went away, a hold, a bug or a stop: the next rows wait too
                    report.settled += await self.give_back_ahead()
                    report.settled.sort(key=lambda s: s.row.id)
            return report

    async def give_back_ahead(self) -> list[Settled]:
        """Give back the rows claimed ahead for the next pass, if any (they are due again at once).

        Returns the status rows that claim marked sent as superseded (settled for good: a pass reports them)."""
        ahead, self._ahead = self._ahead, None
        if ahead is None:
            return []
        try:
            claim = await asyncio.shield(ahead)  # a claim is not cut short: its rows would stay leased
        except Exception:
            log.exception("claiming the next rows ahead failed")
            return []
        if claim is None:
            return []
        if claim.rows:
            await self._end(claim.rows)
            await asyncio.to_thread(self.drain.release, [row.id for row in claim.rows])
        return claim.superseded

    async def _ahead_claim(self) -> _Claim | None:
        """The rows claimed ahead by the pass before, if any (raises what claiming them raised)."""
        ahead, self._ahead = self._ahead, None
        return None if ahead is None else await ahead

    async def _claim(self, recipients: Collection[str] | None) -> _Claim | None:
        """Claim the due rows (a lease), coalesce status rows and begin them; None when held.

        Rows not kept (another recipient's, a bug while coalescing or beginning) are given back at once."""
        now = self.clock.now()
        if self.held_until is not None and now < self.held_until:
            return None
        self.held_until = None
        rows: list[PendingMessage] = []
        remaining = False
        for channel in self.channels:
            claimed = await asyncio.to_thread(self.drain.due, channel, now, self.batch)
            remaining = remaining or len(claimed) == self.batch
            rows.extend(claimed)
        rows.sort(key=lambda row: row.id)
        if recipients is not None:
            others = [row.id for row in rows if row.recipient not in recipients]
            rows = [row for row in rows if row.recipient in recipients]
            if others:
                await asyncio.to_thread(self.drain.release, others)
        superseded: list[Settled] = []
        begun = False
        try:
            rows = await self._coalesce(rows, superseded)
            if rows and self._begins is not None:
                await self._begins.begin(rows)
            begun = True
        finally:
            if not begun:
                done = {settled.row.id for settled in superseded}
                unsent = [row.id for row in rows if row.id not in done]
                if unsent:
                    await asyncio.to_thread(self.drain.release, unsent)
        return _Claim(rows, remaining, superseded)

    async def _end(self, rows: list[PendingMessage]) -> None:
        if self._begins is not None:
            await self._begins.end(rows)

    async def _pass(self, rows: list[PendingMessage], report: PassReport) -> None:
        lanes: list[_Lane] = []
        try:
            marker = MarkThread(self.drain.marker())  # one for every session: cheaper than one each
            stopped = asyncio.Event()
            lanes = [_Lane(items, SentMarks(marker)) for items in _lanes(rows, self.connections)]
            try:
                await marker.open()
                outcomes = await asyncio.gather(
                    *(self._send_lane(lane, stopped) for lane in lanes), return_exceptions=True
                )
            finally:
                await marker.close()  # after every session's last mark (each settles it first)
            errors = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
            bugs = [error for error in errors if not isinstance(error, Unavailable)]
            if bugs:  # a bug before the server going away: it says more
                raise bugs[0]
            if errors:
                assert isinstance(errors[0], Unavailable)
                report.unavailable = errors[0]
        finally:
            for lane in lanes:
                report.settled += [Settled(row, SENT) for row in lane.marks.sent] + lane.settled
            done = {s.row.id for s in report.settled}
            unsent = [row for row in rows if row.id not in done]
            await self._end(rows)
            if unsent:  # a session went away mid-pass (or the pass stopped): the rest given back at once
                await asyncio.to_thread(self.drain.release, [row.id for row in unsent])
                reason = str(report.unavailable) if report.unavailable is not None else "not tried in this pass"
                report.settled += [Settled(row, GIVEN_BACK, reason) for row in unsent if row.id in self._tried(lanes)]
            report.settled.sort(key=lambda s: s.row.id)

    @staticmethod
    def _tried(lanes: list[_Lane]) -> set[int]:
        return {lane.trying.id for lane in lanes if lane.trying is not None}

    async def _coalesce(self, rows: list[PendingMessage], superseded: list[Settled]) -> list[PendingMessage]:
        """Only the newest status row of each recipient is sent; the older are marked sent, superseded."""
        newest = {row.recipient: row.id for row in rows if row.kind == STATUS}
        kept: list[PendingMessage] = []
        for row in rows:
            if row.kind == STATUS and newest[row.recipient] != row.id:
                await asyncio.to_thread(self.drain.mark_sent, row.id, self.clock.now(), row.secret)
                superseded.append(Settled(row, SENT, "superseded"))
            else:
                kept.append(row)
        return kept

    async def _send_lane(self, lane: _Lane, stopped: asyncio.Event) -> None:
        """Send ``lane``'s rows on one session, in order, each marked before the next content."""
        try:
            async with self.transport.connect() as connection:
                prepares = connection if isinstance(connection, Prepares) else None
                for row in lane.items:
                    if stopped.is_set():
                        return  # another session met a hold: the rest keep their order for later
                    with log_fields(message_id=row.message_id):  # every line logged for this row names it
                        lane.trying = row
                        try:
                            outcome = await prepares.prepare(row) if prepares is not None else None
                            await self._settle_marks(lane)  # the last row is marked before this content goes
                            if outcome is None:
                                outcome = await connection.send(row)
                        except Unavailable:
                            raise
                        except Exception as exc:
                            await self._settle_marks(lane)
                            outcome = await self._bug(row, exc)
                        lane.trying = None
                        if isinstance(outcome, Sent):
                            lane.marks.start(row, self.clock.now())
                            lane.sending.append(row)
                            continue
                        lane.settled.append(await self._settle(row, outcome))
                        if isinstance(outcome, Retry) and outcome.hold is not None:
                            stopped.set()
                            return
        finally:
            await self._settle_marks(lane)

    async def _settle_marks(self, lane: _Lane) -> None:
        """Wait for the session's mark in flight; tell the transport of each row marked since."""
        await lane.marks.settle()
        followed, lane.sending = lane.sending, []
        if self._follows is not None:
            for row in followed:
                await self._follows.settled(row, Sent())

    async def _bug(self, row: PendingMessage, exc: Exception) -> Outcome:
        """A transport that raised: a failed attempt held like a retry, parked after ``max_attempts``."""
        reason = f"{type(exc).__name__}: {exc}"
        log.error("outbox #%d to %s failed: %s", row.id, row.recipient, reason, exc_info=exc)
        if row.attempts + 1 >= self.max_attempts:
            return Refused(f"{reason} (after {row.attempts + 1} attempts)")
        return Retry(reason, hold=0.0)

    async def _settle(self, row: PendingMessage, outcome: Retry | Refused) -> Settled:
        now = self.clock.now()
        if isinstance(outcome, Refused):
            await asyncio.to_thread(self.drain.park, row.id, now, outcome.reason)
            log.warning("outbox #%d to %s refused for good (%s): parked", row.id, row.recipient, outcome.reason)
            settled = Settled(row, PARKED, outcome.reason, outcome.code)
        else:
            when = await asyncio.to_thread(self.drain.mark_failed, row.id, now, outcome.reason)
            if outcome.hold is not None:
                self.held_until = max(when, now + timedelta(seconds=outcome.hold), self.held_until or when)
            log.warning("outbox #%d to %s not sent (%s); next try at %s", row.id, row.recipient, outcome.reason, when)
            settled = Settled(row, RETRY, outcome.reason)
        if self._follows is not None:
            await self._follows.settled(row, outcome)
        return settled

    async def drain_all(self) -> PassReport:
        """Passes until nothing is due (``referee serve --once``, the demo); stops at the first unavailability."""
        total = PassReport()
        while True:
            report = await self.send_due()
            total.settled += report.settled
            if report.unavailable is not None:
                total.unavailable = report.unavailable
                return total
            if not report.remaining:
                return total

    async def run(self, stop: asyncio.Event, server: str = "the channel's server") -> None:
        """Send until ``stop`` is set, backing off while the channel is away (see the module docstring).

        ``server`` names the channel's server in the log ("mail server unavailable ...")."""
        delay = self.retry_min
        doorbells = [self.bell.doorbell(channel) for channel in self.channels] if self.bell is not None else []
        try:
            while not stop.is_set():
                wait, on_ring = self.interval, True
                self._wake.clear()  # before the pass: a wake or a ring from now on ends the wait below
                for doorbell in doorbells:
                    doorbell.clear()
                try:
                    report = await self.send_due()
                    if report.unavailable is not None:
                        log.warning("%s unavailable (%s); retrying in %.1f s", server, report.unavailable, delay)
                        wait, delay, on_ring = delay, min(delay * 2, self.retry_max), False
                    else:
                        delay = self.retry_min
                        if report.remaining:
                            wait = 0.0
                except Exception:
                    log.exception("the sender (%s) failed; retrying in %.1f s", ", ".join(self.channels), delay)
                    wait, delay, on_ring = delay, min(delay * 2, self.retry_max), False
                if wait:
                    rings = [self._wake.wait(), *(doorbell.wait(wait) for doorbell in doorbells)] if on_ring else []
                    await _pause(wait, stop, rings)
        finally:
            await self.give_back_ahead()
            for doorbell in doorbells:
                doorbell.close()


async def _pause(seconds: float, stop: asyncio.Event, rings: list[Coroutine[Any, Any, bool]]) -> None:
    """Wait ``seconds``, or until ``stop`` is set or one of ``rings`` (a doorbell, the wake) rings."""
    waits: list[asyncio.Future[bool]] = [asyncio.ensure_future(stop.wait())]
    waits += [asyncio.ensure_future(ring) for ring in rings]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()


def _lanes(rows: list[PendingMessage], count: int) -> list[list[PendingMessage]]:
    """``rows`` dealt over at most ``count`` sessions, none empty.

    Every row of one recipient goes on one session, in the pass's order (so a
    recipient receives its messages in the order they were written); each
    recipient, in the order first seen, goes on the session with the fewest rows so far.
    """
    if count == 1:
        return [rows] if rows else []
    load = Counter(row.recipient for row in rows)
    lanes: list[list[PendingMessage]] = [[] for _ in range(count)]
    sizes = [0] * count
    lane_of: dict[str, int] = {}
    for row in rows:
        lane = lane_of.get(row.recipient)
        if lane is None:
            lane = lane_of[row.recipient] = min(range(count), key=sizes.__getitem__)
            sizes[lane] += load[row.recipient]
        lanes[lane].append(row)
    return [lane for lane in lanes if lane]


@dataclass(frozen=True)
class _Claim:
    """A pass's rows, claimed (leased) and begun; with the status rows superseded among them."""

    rows: list[PendingMessage]
    remaining: bool
    superseded: list[Settled]


class _Lane:
    """One session's share of a pass: its rows in order, its marks, what became of the rows not sent."""

    def __init__(self, items: list[PendingMessage], marks: SentMarks) -> None:
        self.items = items
        self.marks = marks
        self.sending: list[PendingMessage] = []
        """Rows whose mark was started and whose transport has not been told yet."""
        self.settled: list[Settled] = []
        self.trying: PendingMessage | None = None
        """The row being handed over (given back if the channel goes away meanwhile)."""
