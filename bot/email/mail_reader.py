"""Reading fetched mail (parse, Message-ID, digest, understand) inline or in a process of its own.

What the intake needs of a fetched mail before the database is touched —
its Message-ID and content digest (to store it and find copies), and what
it asks for (:func:`bot.email.understand.understand`) — is a pure function
of its bytes.  :func:`read_mails` computes it for a batch.  A
:class:`MailReader` runs it either inline or, with ``processes=1``, in a
child process, so that on a machine with two cores the intake applies one
batch (database work, in its own process) while the next batch is read
(intake throughput).

The child is ``python -m bot.email.mail_reader`` (a new interpreter: never a
``fork`` of a process that runs threads, and it imports only the mail
reader), talks over its stdin and stdout, and has at most one batch in hand:
the intake hands it a batch, and takes its answer before handing over the
next, so neither side ever waits to send while the other waits to send.
The child holds nothing: a batch it was reading when it died is read
again inline, and the child is started again for a later batch (after
:data:`RESTART_AFTER` seconds).  It exits when its stdin closes, so it ends
with the intake's process, even after a kill -9.

Nothing here decides what is stored or acknowledged: the intake stores
and applies a batch, then acknowledges it, exactly as with inline reading.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.connection import Connection
from typing import IO, Any

from bot import heap
from bot.email.mime import content_digest, message_id_of, parse_plain
from bot.email.understand import IntakePolicy, Understanding, understand

log = logging.getLogger(__name__)

RESTART_AFTER = 30.0
"""Seconds after a reader process died before another is started (meanwhile batches are read inline)."""


@dataclass(frozen=True)
class ToRead:
    """One fetched mail: its key, its bytes, its arrival, and the server's size when the bytes were cut."""

    key: str
    raw: bytes
    received_at: datetime
    cut: int | None = None


class ReadingFailed(Exception):
    """Reading a mail raised (a bug in the reader): the text names the error and where it was raised."""


@dataclass(frozen=True)
class MailRead:
    """What reading one mail gave: its Message-ID, its digest, and its understanding or the error."""

    key: str
    message_id: str | None
    digest: str
    reading: Understanding | ReadingFailed


def read_mails(items: Sequence[ToRead], policy: IntakePolicy) -> list[MailRead]:
    """Read each of ``items``; never raises for one mail (its error is its ``reading``)."""
    read: list[MailRead] = []
    for item in items:
        parsed = parse_plain(item.raw, policy.max_message_bytes, item.cut)
        reading: Understanding | ReadingFailed
        try:
            reading = understand(item.raw, item.key, item.received_at, policy, item.cut, parsed)
        except Exception as exc:  # a bug in the reader: that mail fails in its own unit, later
            reading = ReadingFailed(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=20)}")
        read.append(MailRead(item.key, message_id_of(item.raw, parsed), content_digest(item.raw, parsed), reading))
    return read


def _serve(requests: Connection, answers: Connection) -> None:
    """The reader process: read each batch sent, send back the result, until the pipe closes."""
    while True:
        try:
            items, policy = requests.recv()
        except (EOFError, OSError):
            return  # the intake's process is gone, or closed the pipe: nothing is lost here
        try:
            answers.send(read_mails(items, policy))
        except OSError:
            return  # the intake's process went away meanwhile


class MailReader:
    """Reads batches of fetched mail, in a process of its own when ``processes`` is 1 (see the module).

    Use :meth:`start` to hand over a batch and :meth:`result` to take what it read; one batch at a
    time (``start`` takes the answer of a batch not collected yet first).  :meth:`close` stops the
    process.
    """

    def __init__(self, policy: IntakePolicy, processes: int = 0) -> None:
        if processes not in (0, 1):
            raise ValueError("a mail reader runs inline (0) or in one process of its own (1)")
        self.policy = policy
        self.processes = processes
        self._process: Any = None
        self._connection: _Duplex | None = None
        self._in_hand: Sequence[ToRead] | None = None
        self._ready: list[MailRead] | None = None
        self._failed_at: float | None = None
        self.batches_in_process = 0
        """Batches read by the reader process (the rest were read inline)."""

    def start(self, items: Sequence[ToRead]) -> None:
        """Hand ``items`` over to be read (inline: read now)."""
        if self._in_hand is not None or self._ready is not None:
            self.result()
        connection = self._child()
        if connection is not None:
            try:
                connection.send((list(items), self.policy))
                self._in_hand = items
                return
            except (OSError, ValueError) as exc:
                self._lost(exc)
        self._ready = read_mails(items, self.policy)

    def result(self) -> list[MailRead]:
        """What the batch handed over last gave (read inline if the reader process died meanwhile)."""
        if self._ready is not None:
            ready, self._ready = self._ready, None
            return ready
        items, self._in_hand = self._in_hand, None
        if items is None:
            raise RuntimeError("no batch was handed over to read")
        assert self._connection is not None
        try:
            answer: list[MailRead] = self._connection.recv()
            self.batches_in_process += 1
            return answer
        except (EOFError, OSError) as exc:
            self._lost(exc)
            return read_mails(items, self.policy)

    def read(self, items: Sequence[ToRead]) -> list[MailRead]:
        """Read ``items`` and wait for the answer."""
        self.start(items)
        return self.result()

    def warm_up(self) -> None:
        """Start the reader process now and wait until it reads (its start takes about a second), so
        the first batch does not wait for it."""
        if self.processes:
            self.read([])

    def close(self) -> None:
        """Stop the reader process (it ends when its pipe closes)."""
        self._in_hand = self._ready = None
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if self._process is not None:
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=5)
            self._process = None

    def _child(self) -> _Duplex | None:
        """The pipe to the reader process, started if needed; None when reading inline."""
        if self.processes == 0:
            return None
        if self._connection is not None:
            return self._connection
        if self._failed_at is not None and time.monotonic() - self._failed_at < RESTART_AFTER:
            return None
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True
            )
        except OSError as exc:
            self._failed_at = time.monotonic()
            log.warning("could not start the mail reader process (%s); reading mail inline", exc)
            return None
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        self._connection = _Duplex(process.stdout, process.stdin)
        return self._connection

    def _lost(self, error: BaseException) -> None:
        log.warning(
            "the mail reader process is gone (%s: %s); this batch is read inline, and a new process is "
            "started in %.0f s", type(error).__name__, error, RESTART_AFTER,
        )  # fmt: skip
        self._failed_at = time.monotonic()
        self.close()


class _Duplex:
    """One :class:`~multiprocessing.connection.Connection` each way over the reader's stdin and stdout."""

    def __init__(self, answers: IO[bytes], requests: IO[bytes]) -> None:
        self._streams = (answers, requests)
        self._answers = Connection(os.dup(answers.fileno()), writable=False)
        self._requests = Connection(os.dup(requests.fileno()), readable=False)

    def send(self, obj: Any) -> None:
        self._requests.send(obj)

    def recv(self) -> Any:
        return self._answers.recv()

    def close(self) -> None:
        for end in (self._requests, self._answers, *self._streams):
            end.close()  # the reader reads end-of-file and ends


def main() -> int:
    """``python -m bot.email.mail_reader``: the reader process (started by :class:`MailReader`)."""
    requests = Connection(os.dup(0), writable=False)
    answers = Connection(os.dup(1), readable=False)
    sys.stdout = sys.stderr  # the pipe carries answers only
    heap.settle()  # its imports live as long as it does (bot.heap)
    _serve(requests, answers)
    return 0


if __name__ == "__main__":
    from bot.email.mail_reader import main as serve  # under its own name, so what it sends unpickles there

    sys.exit(serve())
