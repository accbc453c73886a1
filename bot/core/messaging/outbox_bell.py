"""The outbox's bell: wakes this process's senders when outbox rows are committed here.

:func:`bot.core.messaging.outbox.enqueue` and :func:`~bot.core.messaging.outbox.enqueue_many` note the
channel in the session (:func:`note`); when that session's transaction commits
(the outermost one: a savepoint released is not a commit), the ``after_commit``
listener a bell put on that session factory (:meth:`OutboxBell.listen`) rings it for
those channels; the end of the transaction (a commit or a rollback) forgets the
note.  The bell is made by the composition root (:mod:`bot.host.wiring`) and handed to
the senders that wait on it: there is no bell of the module.  A sender waits on its :class:`Doorbell` with its interval as the
timeout, so a reply goes out as soon as it is committed, and rows written by
another process (which rings nothing here) are still picked up within one interval.

Rings come from any thread (the deadline worker and the intake are threads);
a waiter lives on an asyncio loop and is woken with ``call_soon_threadsafe``.
A wake is a hint, never a promise: a spurious one (a savepoint rolled back
inside a committed transaction, another channel's rows) costs one empty pass.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

_CHANNELS = "outbox_bell.channels"
"""``session.info`` key: the channels this transaction wrote outbox rows for."""


class Doorbell:
    """One waiter on the bell, for one channel, on the asyncio loop that made it (see :meth:`OutboxBell.doorbell`)."""

    def __init__(self, bell: OutboxBell, channel: str) -> None:
        self._bell = bell
        self.channel = channel
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    def clear(self) -> None:
        """Forget rings so far (call it before looking for due rows: a ring after it wakes the next wait)."""
        self._event.clear()

    async def wait(self, timeout: float) -> bool:
        """Until rung (since the last :meth:`clear`) or ``timeout`` seconds; True when rung."""
        with suppress(TimeoutError):
            await asyncio.wait_for(self._event.wait(), timeout)
        return self._event.is_set()

    def _ring(self) -> None:
        with suppress(RuntimeError):  # the loop is closed: nobody waits any more
            self._loop.call_soon_threadsafe(self._event.set)

    def close(self) -> None:
        self._bell._leave(self)

    def __enter__(self) -> Doorbell:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class OutboxBell:
    """Rings the doorbells of one process's senders (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._doorbells: list[Doorbell] = []

    def doorbell(self, channel: str) -> Doorbell:
        """A :class:`Doorbell` for ``channel``'s rows, woken on the running loop; close it when done."""
        doorbell = Doorbell(self, channel)
        with self._lock:
            self._doorbells.append(doorbell)
        return doorbell

    def ring(self, channels: Iterable[str]) -> None:
        """Wake every doorbell of ``channels`` (from any thread)."""
        wanted = set(channels)
        with self._lock:
            doorbells = [d for d in self._doorbells if d.channel in wanted]
        for doorbell in doorbells:
            doorbell._ring()

    def listen(self, sessions: sessionmaker[Session]) -> OutboxBell:
        """Ring when a session of ``sessions`` commits outbox rows (:func:`note`); returns the bell.

        Listening twice on one factory is one listener; :meth:`stop_listening` takes it away.
        """
        if not event.contains(sessions, "after_commit", self._rang):
            event.listen(sessions, "after_commit", self._rang)
        if not event.contains(sessions, "after_transaction_end", _forget):
            event.listen(sessions, "after_transaction_end", _forget)  # kept: other bells may listen too
        return self

    def stop_listening(self, sessions: sessionmaker[Session]) -> None:
        """No more rings from ``sessions``'s commits."""
        if event.contains(sessions, "after_commit", self._rang):
            event.remove(sessions, "after_commit", self._rang)

    def _rang(self, session: Session) -> None:
        if session.in_nested_transaction():  # a savepoint released: the rows are not committed yet
            return
        channels: Any = session.info.get(_CHANNELS)
        if channels:
            self.ring(channels)

    def _leave(self, doorbell: Doorbell) -> None:
        with self._lock, suppress(ValueError):
            self._doorbells.remove(doorbell)


def note(session: Session, channel: str) -> None:
    """``session``'s transaction writes a row for ``channel``: ring when it commits."""
    channels: set[str] | None = session.info.get(_CHANNELS)
    if channels is None:
        session.info[_CHANNELS] = {channel}
    else:
        channels.add(channel)


def _forget(session: Session, transaction: SessionTransaction) -> None:
    """The outermost transaction ended (after every bell's ``after_commit``): its note is done with."""
    if transaction.parent is None:
        session.info.pop(_CHANNELS, None)
