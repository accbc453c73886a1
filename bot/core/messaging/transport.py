"""What a channel's transport tells the core's sender loop (:mod:`bot.core.messaging.sender_loop`).

A transport opens sessions (:meth:`Transport.connect`) on which rows are sent
one at a time; each send says what became of its row: :class:`Sent`,
:class:`Retry` or :class:`Refused`, or raises :class:`Unavailable` when the
channel's server is away.  Anything else it raises is a bug (retried, then
parked).  Optional parts: :class:`Prepares` (a session that readies a row
without delivering it), :class:`Begins` (work on a pass's rows before any is
sent), :class:`Follows` (told of each row's settlement).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bot.core.messaging.outbox import PendingMessage


@dataclass(frozen=True)
class Sent:
    """The channel took the row."""


@dataclass(frozen=True)
class Retry:
    """Not taken for now: tried again after the outbox's back-off.

    ``hold``: the channel as a whole is busy (a rate limit, a server error):
    the pass stops at this row and nothing is sent for ``hold`` seconds, nor
    before the row's next attempt.  None: only this row waits.
    """

    reason: str
    hold: float | None = None


@dataclass(frozen=True)
class Refused:
    """Refused for good (no such recipient, no permission): parked with ``reason``, never retried."""

    reason: str
    code: int | None = None
    """The channel's own code for the refusal, if it has one."""


Outcome = Sent | Retry | Refused


class Unavailable(Exception):
    """The channel's server is away: the pass stops and its unsent rows are given back (no attempt counted)."""


class Connection(Protocol):
    """One session of a transport: sends rows one at a time."""

    async def send(self, row: PendingMessage) -> Outcome: ...


@runtime_checkable
class Prepares(Protocol):
    """A session that can get a row ready without delivering anything (SMTP's envelope).

    ``prepare`` runs while the previous row's mark commits; an :data:`Outcome` it
    returns settles the row without sending it (a recipient refused at once).
    """

    async def prepare(self, row: PendingMessage) -> Outcome | None: ...


class Transport(Protocol):
    """What a channel brings to the loop: sessions that send rows."""

    def connect(self) -> AbstractAsyncContextManager[Connection]: ...


@runtime_checkable
class Begins(Protocol):
    """A transport that works on a pass's rows before any is handed over (building the batch's messages).

    What ``begin`` raises is a bug: the pass stops, every row is given back, and the error is raised.
    ``begin`` may run for the next pass's rows while a pass sends (the loop claims ahead), so what it
    keeps is kept by row; ``end`` says a pass is over (its rows sent, settled or given back): what
    ``begin`` kept for them can go.
    """

    async def begin(self, rows: Sequence[PendingMessage]) -> None: ...

    async def end(self, rows: Sequence[PendingMessage]) -> None: ...


@runtime_checkable
class Follows(Protocol):
    """A transport told of each row's settlement once it is committed (what the channel learns from it)."""

    async def settled(self, row: PendingMessage, outcome: Outcome) -> None: ...
