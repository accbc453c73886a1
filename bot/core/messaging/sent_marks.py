"""Marking sent rows in order, each committed before its session's next content goes.

A sending pass opens one :class:`MarkThread` (one thread holding one database
connection: :class:`bot.core.messaging.outbox.SentMarker`), and each of its
sessions keeps its own :class:`SentMarks` on it.  The sender loop
(:mod:`bot.core.messaging.sender_loop`) starts a row's mark as soon as the
channel took it and settles it before that session hands over its next row's
content, so a process killed at any moment has at most one delivered row per
session unmarked (sent again, with the same Message-ID, on the next run).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from bot.core.basics.log_fields import log_fields
from bot.core.messaging.outbox import PendingMessage, SentMarker

log = logging.getLogger(__name__)


class MarkThread:
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


class SentMarks:
    """One session's sent marks, committed in order on a :class:`MarkThread`.

    :meth:`start` hands a row's mark (:meth:`bot.core.messaging.outbox.SentMarker.mark_sent`)
    to the thread and returns at once; :meth:`settle` waits until that mark is
    committed (the loop calls it before it hands over the session's next
    message's content, so at most one delivered row of a session is ever
    unmarked).  One mark of a session is in flight at a time; the mark itself
    is shielded from a cancellation (a delivered row is still marked).
    ``sent``: the rows whose mark is committed, in order.
    """

    def __init__(self, thread: MarkThread) -> None:
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
