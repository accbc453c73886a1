"""Reading fetched mail (parse, Message-ID, digest, understand) inline or in a process of its own.

What the intake needs of a fetched mail before the database is touched —
its Message-ID and content digest (to store it and find copies), and what
it asks for (:func:`bot.email.understand.understand`) — is a pure function
of its bytes.  :func:`read_mails` computes it for a batch.  A
:class:`MailReader` runs it either inline or, with ``processes=1``, in a
child process, so that on a machine with two cores the intake applies one
batch (database work, in its own process) while the next batch is read
(intake throughput).

**No mail can hold up the others.**  Before any parser sees a mail, its
bytes are screened (:mod:`bot.email.prescreen`: header block size, header
fields, addresses, nested multiparts, in time linear in its size); a mail
over a limit is not read, only answered.  In the reader process each mail
then has a budget (:class:`ReadingBudget`): its address space is limited
(``RLIMIT_AS``: an allocation past it raises ``MemoryError`` in the child),
and the intake kills the child when one mail has taken longer than the
wall-clock budget, measured from the moment the child says it started that
mail (its ``time.monotonic``, the same clock in both processes), whatever
the child was doing (a quadratic loop in C or in Python alike).  A mail
over either budget is :class:`~bot.email.prescreen.NotRead`: the intake
parks it with its reason and answers it when its sender can be read
cheaply; a new child reads the rest of the batch at once.  Inline
(``processes=0``) only the screen applies.

The child is ``python -m bot.email.mail_reader`` (a new interpreter: never a
``fork`` of a process that runs threads, and it imports only the mail
reader), talks over its stdin and stdout, and has at most one batch in hand:
the intake hands it a batch, and takes its answers (a "start" and a "done"
for each mail, then an "end", each with the child's time) before handing over
the next, so neither side ever waits to send while the other waits to send;
the answers' pipe has room for a whole batch (:data:`ANSWERS_PIPE_BYTES`), so
the child reads on while the intake applies the batch before.  A mail's
reading time (what its sender's budget is charged) is the child's own, from
its "start" to its "done", however late the intake collects them.  The child holds nothing:
when it dies of something else than the budget (killed from outside), what
it had not answered of its batch is read again inline, and the child is
started again for a later batch (after :data:`RESTART_AFTER` seconds).  It
exits when its stdin closes, so it ends with the intake's process, even
after a kill -9.

Nothing here decides what is stored or acknowledged: the intake stores
and applies a batch, then acknowledges it, exactly as with inline reading.
"""

from __future__ import annotations

import fcntl
import logging
import os
import resource
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.connection import Connection
from typing import IO, TYPE_CHECKING, Any

from bot.core.runtime import heap
from bot.email.mime import content_digest, message_id_of, parse_plain
from bot.email.prescreen import (
    DEFAULT_LIMITS,
    MailLimits,
    NotRead,
    Refusal,
    cheap_message_id,
    cheap_sender,
    raw_digest,
    refusal_envelope,
    refused,
    screen,
)
from bot.email.understand import IntakePolicy, Understanding, understand

if TYPE_CHECKING:  # the reader process imports the reader only
    from bot.core.intake.sender_budgets import SenderBudgets

log = logging.getLogger(__name__)

RESTART_AFTER = 30.0
"""Seconds after a reader process died before another is started (meanwhile batches are read inline)."""
START_ALLOWANCE = 15.0
"""Seconds a reader process may take to say it started a batch's first mail, on top of the budget
(a new interpreter imports the reader first); past it the process counts as lost."""
_MB = 1024 * 1024


@dataclass(frozen=True)
class ReadingBudget:
    """What reading one mail may cost in the reader process: ``seconds`` of wall-clock time (the
    process is killed past it) and ``memory_mb`` of address space for the whole process."""

    seconds: float = 20.0
    memory_mb: int = 1024


DEFAULT_BUDGET = ReadingBudget()


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
    """What reading one mail gave: its Message-ID, its digest, and its understanding, the error, or
    why it was not read (:class:`~bot.email.prescreen.NotRead`)."""

    key: str
    message_id: str | None
    digest: str
    reading: Understanding | ReadingFailed | NotRead


_UNPARSABLE = Refusal(
    "(your whole message)",
    "it could not be taken apart (it is damaged, or nested too deep); send your commands as plain text",
)


def read_mails(items: Sequence[ToRead], policy: IntakePolicy, limits: MailLimits = DEFAULT_LIMITS) -> list[MailRead]:
    """Read each of ``items``; never raises for one mail (its error is its ``reading``)."""
    return [read_mail(item, policy, limits) for item in items]


def read_mail(item: ToRead, policy: IntakePolicy, limits: MailLimits = DEFAULT_LIMITS) -> MailRead:
    """Read one mail: screened first (a mail over ``limits`` is only answered), then parsed once and
    understood; a ``MemoryError`` (the reader's budget) makes it :class:`NotRead`.  Never raises
    (a bug anywhere is that mail's :class:`ReadingFailed`, so the reader process goes on)."""
    try:
        return _read(item, policy, limits)
    except MemoryError:
        return not_read(item, "reading it needed more memory than the mail reader's budget", policy, limits)
    except Exception as exc:
        failed = ReadingFailed(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=20)}")
        return MailRead(item.key, None, raw_digest(item.raw), failed)


def _read(item: ToRead, policy: IntakePolicy, limits: MailLimits) -> MailRead:
    refusal = screen(item.raw, limits)
    if refusal is not None:
        reading = refused(item.raw, item.key, item.received_at, refusal, policy, limits)
        return MailRead(item.key, cheap_message_id(item.raw, limits), raw_digest(item.raw), reading)
    parsed = parse_plain(item.raw, policy.max_message_bytes, item.cut)
    understood: Understanding | ReadingFailed
    try:
        understood = understand(item.raw, item.key, item.received_at, policy, item.cut, parsed)
    except MemoryError:
        raise
    except Exception as exc:  # a bug in the reader: that mail fails in its own unit, later
        understood = ReadingFailed(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=20)}")
    if isinstance(understood, Understanding) and understood.envelope is None and understood.skip == "no From address":
        understood = _unparsable(item, understood, policy, limits)
    return MailRead(item.key, message_id_of(item.raw, parsed), content_digest(item.raw, parsed), understood)


def _unparsable(item: ToRead, understood: Understanding, policy: IntakePolicy, limits: MailLimits) -> Understanding:
    """A mail in which the parser found no From while its raw From field names one sender: the
    parser could not take it apart, and the sender is told so (else it stays as it was)."""
    envelope = refusal_envelope(item.raw, item.key, item.received_at, _UNPARSABLE, policy, limits)
    if envelope is None:
        return understood
    return Understanding(envelope, None, "not read: it could not be taken apart")


def not_read(item: ToRead, reason: str, policy: IntakePolicy, limits: MailLimits) -> MailRead:
    """``item`` given up on for ``reason``: to be parked, and answered when its sender reads cheaply."""
    refusal = Refusal("(your whole message)", f"it could not be read: {reason}; it is kept for the host to look at")
    reply = refusal_envelope(item.raw, item.key, item.received_at, refusal, policy, limits)
    return MailRead(item.key, cheap_message_id(item.raw, limits), raw_digest(item.raw), NotRead(reason, reply))


def _serve(requests: Connection, answers: Connection) -> None:
    """The reader process: read each batch sent, saying when each mail starts, until the pipe closes
    (a ``None`` in a batch is a mail the intake does not want read: answered ``None`` at once)."""
    while True:
        try:
            base, items, policy, limits = requests.recv()
        except (EOFError, OSError):
            return  # the intake's process is gone, or closed the pipe: nothing is lost here
        try:
            for offset, item in enumerate(items):
                if item is None:
                    answers.send(("done", base + offset, None, time.monotonic()))
                    continue
                answers.send(("start", base + offset, None, time.monotonic()))
                read = read_mail(item, policy, limits)
                answers.send(("done", base + offset, read, time.monotonic()))
            answers.send(("end", base + len(items), None, time.monotonic()))
        except OSError:
            return  # the intake's process went away meanwhile


class MailReader:
    """Reads batches of fetched mail, in a process of its own when ``processes`` is 1 (see the module).

    Use :meth:`start` to hand over a batch and :meth:`result` to take what it read; one batch at a
    time (``start`` takes the answer of a batch not collected yet first).  :meth:`close` stops the
    process.  ``limits``: the screen before parsing; ``budget``: what one mail may cost in the
    reader process.
    """

    def __init__(
        self,
        policy: IntakePolicy,
        processes: int = 0,
        limits: MailLimits = DEFAULT_LIMITS,
        budget: ReadingBudget = DEFAULT_BUDGET,
        senders: SenderBudgets | None = None,
    ) -> None:
        if processes not in (0, 1):
            raise ValueError("a mail reader runs inline (0) or in one process of its own (1)")
        self.policy = policy
        self.processes = processes
        self.limits = limits
        self.budget = budget
        self.senders = senders
        """Reading time per sender across mails (:mod:`bot.core.intake.sender_budgets`); None: per mail only."""
        self._process: Any = None
        self._connection: _Duplex | None = None
        self._in_hand: Sequence[ToRead] | None = None
        self._ready: list[MailRead] | None = None
        self._failed_at: float | None = None
        self.batches_in_process = 0
        """Batches read by the reader process (the rest were read inline)."""
        self.over_budget = 0
        """Mails given up on because they took longer than the budget (the process was killed)."""

    def start(self, items: Sequence[ToRead]) -> None:
        """Hand ``items`` over to be read (inline: read now)."""
        if self._in_hand is not None or self._ready is not None:
            self.result()
        if self._send(0, items):
            self._in_hand = items
            return
        self._ready = self._read_inline(items)

    def result(self) -> list[MailRead]:
        """What the batch handed over last gave (read inline if the reader process died meanwhile)."""
        if self._ready is not None:
            ready, self._ready = self._ready, None
            return ready
        items, self._in_hand = self._in_hand, None
        if items is None:
            raise RuntimeError("no batch was handed over to read")
        found, whole = self._collect(items)
        if whole:
            self.batches_in_process += 1
        return found

    def read(self, items: Sequence[ToRead]) -> list[MailRead]:
        """Read ``items`` and wait for the answer."""
        self.start(items)
        return self.result()

    def spawn(self) -> None:
        """Start the reader process now if it is to run and is not running, without waiting for it:
        its interpreter starts while the intake connects and fetches (the first batch then waits less)."""
        if self.processes:
            self._child()

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

    def _send(self, base: int, items: Sequence[ToRead]) -> bool:
        """Hand ``items`` (the batch's from position ``base`` on) to the reader process; False when
        there is none to take them (they are to be read inline)."""
        connection = self._child()
        if connection is None:
            return False
        wanted = [item if self._allowance(item) > 0 else None for item in items]
        try:
            connection.send((base, wanted, self.policy, self.limits))
            return True
        except (OSError, ValueError) as exc:
            self._lost(exc)
            return False

    def _collect(self, items: Sequence[ToRead]) -> tuple[list[MailRead], bool]:
        """The reader process's answers for ``items``, each mail within its budget (module
        docstring); whether the process (or its successors) read all of them."""
        found: dict[int, MailRead] = {}
        started: tuple[int, float, float] | None = None
        """The mail being read: its index, when it started, and the seconds it may take."""
        waiting_since = time.monotonic()
        whole = True
        while len(found) < len(items) or (self._connection is not None and whole):
            connection = self._connection
            if connection is None:  # lost (or killed at the batch's last mail): the rest inline
                unread = [index for index in range(len(items)) if index not in found]
                found.update(zip(unread, self._read_inline([items[i] for i in unread]), strict=True))
                return [found[index] for index in range(len(items))], whole and not unread
            if started is not None:
                wait = started[1] + started[2] - time.monotonic()
            else:
                wait = waiting_since + self.budget.seconds + START_ALLOWANCE - time.monotonic()
            try:
                if not connection.poll(max(0.0, wait)):
                    if started is None:
                        raise TimeoutError(f"no answer within {self.budget.seconds + START_ALLOWANCE:.0f} s")
                    found[started[0]] = self._give_up(items[started[0]], started[2])
                    rest = started[0] + 1
                    started, waiting_since = None, time.monotonic()
                    if rest < len(items) and not self._send(rest, items[rest:]):
                        whole = False
                    continue
                kind, index, payload, at = connection.recv()
            except (EOFError, OSError, TimeoutError) as exc:
                self._lost(exc)
                whole = False
                continue
            if kind == "start":
                started = (index, at, self._allowance(items[index]))
            elif kind == "done":
                if payload is None:  # not sent to be read (_send): the strangers' budget was spent
                    found[index] = self._not_now(items[index])
                else:
                    found[index] = payload
                    if started is not None:  # the child's own time for it (not when it was collected)
                        self._spend(items[index], at - started[1])
                started, waiting_since = None, time.monotonic()
            else:  # "end": the process has answered everything it was handed
                break
        return [found[index] for index in range(len(items))], whole

    def _give_up(self, item: ToRead, seconds: float) -> MailRead:
        """``item`` took longer than its budget (``seconds``): the process is killed, the mail not read."""
        self._kill()
        self.over_budget += 1
        self._spend(item, seconds)
        log.warning(
            "reading mail %s took more than %.4g s; the mail reader process was stopped, the mail is parked "
            "unread, and a new process reads the rest", item.key, seconds,
        )  # fmt: skip
        return not_read(item, f"reading it took longer than the mail reader's budget of {seconds:.4g} s",
                        self.policy, self.limits)  # fmt: skip

    def _sender(self, item: ToRead) -> str | None:
        """The sender's address as read cheaply from the raw bytes (never from decoded text)."""
        return cheap_sender(item.raw, self.limits, self.policy.own_addresses)

    def _allowance(self, item: ToRead) -> float:
        """Seconds reading ``item`` may take: the budget per mail, within its sender's budget
        across mails (:mod:`bot.core.intake.sender_budgets`); 0: not to be read now."""
        if self.senders is None:
            return self.budget.seconds
        return self.senders.allowance(self._sender(item), self.budget.seconds)

    def _spend(self, item: ToRead, seconds: float) -> None:
        if self.senders is not None:
            self.senders.spend(self._sender(item), seconds)

    def _not_now(self, item: ToRead) -> MailRead:
        """``item``'s sender is one the referee does not know, and the strangers' budget is spent."""
        assert self.senders is not None
        self.senders.refused += 1
        log.warning("mail %s is parked unread: senders the referee does not know have spent their reading "
                    "budget (the host can requeue it)", item.key)  # fmt: skip
        return not_read(item, "the referee is reading too much costly mail from senders it does not know",
                        self.policy, self.limits)  # fmt: skip

    def _read_inline(self, items: Sequence[ToRead]) -> list[MailRead]:
        """Read ``items`` in this process (the screen applies, no wall-clock budget), each within its
        sender's budget across mails."""
        found = []
        for item in items:
            if self._allowance(item) <= 0:
                found.append(self._not_now(item))
                continue
            began = time.monotonic()
            found.append(read_mail(item, self.policy, self.limits))
            self._spend(item, time.monotonic() - began)
        return found

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=5)
            self._process = None
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _child(self) -> _Duplex | None:
        """The pipe to the reader process, started if needed; None when reading inline."""
        if self.processes == 0:
            return None
        if self._connection is not None:
            return self._connection
        if self._failed_at is not None and time.monotonic() - self._failed_at < RESTART_AFTER:
            return None
        command = [sys.executable, "-m", __name__, str(self.budget.memory_mb)]
        try:
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True)
        except OSError as exc:
            self._failed_at = time.monotonic()
            log.warning("could not start the mail reader process (%s); reading mail inline", exc)
            return None
        assert process.stdin is not None and process.stdout is not None
        widen_pipe(process.stdout.fileno())
        self._process = process
        self._connection = _Duplex(process.stdout, process.stdin)
        return self._connection

    def _lost(self, error: BaseException) -> None:
        log.warning(
            "the mail reader process is gone (%s: %s); what it had not read of this batch is read inline, "
            "and a new process is started in %.0f s", type(error).__name__, error, RESTART_AFTER,
        )  # fmt: skip
        self._failed_at = time.monotonic()
        in_hand, ready = self._in_hand, self._ready
        if self._process is not None and self._process.poll() is None:
            self._process.kill()  # a process that stopped answering is not waited for
        self.close()
        self._in_hand, self._ready = in_hand, ready


ANSWERS_PIPE_BYTES = 1024 * 1024
"""The room of the pipe that carries the reader's answers (Linux's default is 64 KB).

An answer is about 1 KB (a mail's reading, pickled), and the intake takes a batch's answers only
after it has applied the batch before (about 1 ms a mail): in a 64 KB pipe the reader stopped
after some 60 mails of a batch of 200, waiting for room, and the intake then waited for it (85-93
ms a batch, measured).  With room for a whole batch the reader reads on while the intake applies."""


def widen_pipe(descriptor: int, room: int = ANSWERS_PIPE_BYTES) -> int:
    """Give the pipe ``descriptor`` up to ``room`` bytes (at most the system's ``pipe-max-size``); its
    room afterwards, or 0 where the system cannot tell (not Linux): the pipe is then as it was."""
    if not hasattr(fcntl, "F_SETPIPE_SZ"):
        return 0
    try:
        with open("/proc/sys/fs/pipe-max-size") as limit:
            room = min(room, int(limit.read()))
    except (OSError, ValueError):
        pass
    try:
        return fcntl.fcntl(descriptor, fcntl.F_SETPIPE_SZ, room)
    except OSError:
        return 0


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

    def poll(self, timeout: float) -> bool:
        return self._answers.poll(timeout)

    def close(self) -> None:
        for end in (self._requests, self._answers, *self._streams):
            end.close()  # the reader reads end-of-file and ends


def main() -> int:
    """``python -m bot.email.mail_reader [MEMORY_MB]``: the reader process (started by
    :class:`MailReader`), its address space limited to ``MEMORY_MB`` when given."""
    if len(sys.argv) > 1:
        limit = int(sys.argv[1]) * _MB
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    requests = Connection(os.dup(0), writable=False)
    answers = Connection(os.dup(1), readable=False)
    sys.stdout = sys.stderr  # the pipe carries answers only
    heap.settle()  # its imports live as long as it does (bot.core.runtime.heap)
    _serve(requests, answers)
    return 0


if __name__ == "__main__":
    from bot.email.mail_reader import main as serve  # under its own name, so what it sends unpickles there

    sys.exit(serve())
