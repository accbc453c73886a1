"""What a channel's understanding step gives the intake runner for one received message.

A channel reads its raw messages its own way (a mail parser in a process of
its own, a JSON payload, a line of text); the runner
(:mod:`bot.core.intake.runner`) only needs, for each message:

* :class:`Understood`: an envelope to apply (with a summary for the log:
  command names, never message text nor a secret);
* :class:`Skip`: recorded, nothing to apply (automatic mail, a message
  without a usable sender); ``park`` when the reader gave up on it (over its
  budget): then it is parked at once for the host, answered first with
  ``answer`` when its sender could be read cheaply;
* an exception: a bug in the reader; the message fails alone, is retried, and
  is parked after the inbox's bounded attempts (nothing is dropped).

A channel whose understanding is a plain function uses :class:`Inline`; one
that pipelines (reads the next batch while this one is applied) implements
:class:`Understander` itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.core.model.commands import Envelope


@dataclass(frozen=True)
class Understood:
    """Apply ``envelope``."""

    envelope: Envelope
    summary: str = ""
    """Command names and policy notes, for the log (never a secret, never message text)."""


@dataclass(frozen=True)
class Skip:
    """Record the message and apply nothing; see the module docstring."""

    reason: str
    answer: Envelope | None = None
    """Applied before the message is parked (a ``park`` skip only): it answers the sender."""
    park: bool = False


Reading = Understood | Skip | Exception
"""What understanding one message gave."""


@dataclass(frozen=True)
class Arrived:
    """One received message to understand: its key, raw bytes and arrival time."""

    key: str
    raw: bytes
    received_at: datetime
    cut: int | None = None
    """The size the server gave when ``raw`` was cut shorter (too large), else None."""


@dataclass(frozen=True)
class Read:
    """What understanding one :class:`Arrived` gave, with what the inbox keeps of it."""

    key: str
    reading: Reading
    message_id: str | None = None
    """The message's own id, when it has one (a resent copy is recognised by it with ``digest``)."""
    digest: str = ""
    """A digest of the content: a second copy under another key is not applied twice."""


class Understander(Protocol):
    """A channel's understanding step, in batches; :meth:`start` may hand a batch to another process."""

    def start(self, items: Sequence[Arrived]) -> None:
        """Begin reading ``items`` (their :meth:`result` comes next)."""
        ...

    def result(self) -> list[Read]:
        """What reading the started batch gave, in its order."""
        ...

    def read(self, items: Sequence[Arrived]) -> list[Read]:
        """Read ``items`` at once."""
        ...

    def close(self) -> None:
        """Let go of what it holds (a reader process)."""
        ...


def digest_of(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


class Inline:
    """An :class:`Understander` calling ``understand`` on each message in this process; an exception
    it raises is that message's reading (it fails alone)."""

    def __init__(self, understand: Callable[[Arrived], Envelope | Understood | Skip]) -> None:
        self.understand = understand
        self._started: list[Read] = []

    def read(self, items: Sequence[Arrived]) -> list[Read]:
        return [self._read_one(item) for item in items]

    def _read_one(self, item: Arrived) -> Read:
        reading: Reading
        try:
            given = self.understand(item)
            reading = Understood(given) if isinstance(given, Envelope) else given
        except Exception as exc:  # a bug in the reader: the message fails alone
            reading = exc
        return Read(item.key, reading, None, digest_of(item.raw))

    def start(self, items: Sequence[Arrived]) -> None:
        self._started = self.read(items)

    def result(self) -> list[Read]:
        started, self._started = self._started, []
        return started

    def close(self) -> None:
        """Nothing to let go of."""
