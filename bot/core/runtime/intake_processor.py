"""Processing stored messages: apply what was understood, settle the inbox row, retry, park.

Each step commits with its batch, and each is safe to repeat: applying is
idempotent by the envelope's source id (the inbox row's source key), so a
crash after applying and before marking the row done only means the next pass
applies it again as a no-op.  A message whose handling raises (its reading
included) is marked failed, retried with back-off, and parked after the
inbox's bounded number of attempts; nothing is dropped.  A message the reader
gave up on (a :class:`~bot.core.intake.understanding.Skip` with ``park``) is
answered when it can be and parked at once with its reason.

A channel may bring two policies of its own: a :class:`ReplyPolicy` (which
messages are applied without an answer: a loop or a flood of replies) and
``redact`` (the stored raw message without the secrets it carried, once
applied).  Every message's outcome is logged and kept on its inbox row
(``referee inbox list``): which orders were accepted or refused, what else
it asked for, and why a message was only recorded.
"""

from __future__ import annotations

import hashlib
import logging
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from bot.core.basics.batch import Batch, Redo
from bot.core.basics.clock import Clock
from bot.core.basics.log_fields import game_named, log_fields
from bot.core.intake.inbox import PARKED, Inbox, Pending
from bot.core.intake.understanding import Arrived, Reading, Skip, Understander, Understood
from bot.core.model import commands as c
from bot.core.runtime.service import Applied, GameService

log = logging.getLogger(__name__)

ReadPending = Callable[[Sequence[Pending]], Mapping[str, Reading]]
"""Reads stored messages (by source key) before their transaction opens (a reader within its budget)."""
Redact = Callable[[bytes, Sequence[str]], bytes | None]
"""The raw message without the given secrets, or None when it holds none of them."""


class ReplyPolicy(Protocol):
    """Which messages a channel applies without answering (its reply limit)."""

    def prepare(self, batch: Batch, envelopes: Sequence[c.Envelope]) -> None:
        """Load at once what :meth:`quiet_reason` will ask of ``batch`` for these envelopes."""
        ...

    def quiet_reason(self, row_id: int, envelope: c.Envelope, digest: str, batch: Batch) -> str | None:
        """Why this message gets no reply, or None (``digest``: :func:`command_digest`)."""
        ...

    def quieted(self, envelope: c.Envelope, quiet: str, batch: Batch) -> c.Envelope:
        """The envelope as applied when it gets no reply for ``quiet``."""
        ...


@dataclass(frozen=True)
class PassResult:
    done: int = 0
    failed: int = 0
    parked: int = 0

    def __add__(self, other: PassResult) -> PassResult:
        return PassResult(self.done + other.done, self.failed + other.failed, self.parked + other.parked)


def arrived(item: Pending) -> Arrived:
    """A stored message as its channel's reader takes it."""
    return Arrived(item.source_key, item.raw, item.received_at, item.server_size)


class Processor:
    """Turns one channel's stored messages into applied envelopes; see the module docstring."""

    def __init__(
        self,
        inbox: Inbox,
        service: GameService,
        clock: Clock,
        channel: str,
        understander: Understander,
        replies: ReplyPolicy | None = None,
        redact: Redact | None = None,
    ) -> None:
        self.inbox = inbox
        self.service = service
        self.clock = clock
        self.channel = channel
        self.understander = understander
        self.replies = replies
        self.redact = redact

    def process_pending(self, batch: int = 50, read: ReadPending | None = None) -> PassResult:
        """Process every stored message that is due, oldest first, ``batch`` messages a transaction.

        ``read``: how to read them (the channel's reader, within its budget), before their
        transaction opens; only the messages read are processed in it.  Without it each message
        is read in this process, in the transaction.
        """
        total = PassResult()
        while True:
            due = self.inbox.pending(self.clock.now(), self.channel, batch if read is not None else 1)
            if not due:
                return total  # nothing due: no write transaction (no lock taken) for an idle pass
            readings = read(due) if read is not None else None
            with self.inbox.batch() as work:
                pending = self.inbox.pending(self.clock.now(), self.channel, batch, batch=work)
                if readings is not None:
                    pending = [item for item in pending if item.source_key in readings]
                total += self.process_batch(work, pending, readings)
            if len(pending) < batch:
                return total

    def process_batch(
        self, batch: Batch, items: Sequence[Pending], read: Mapping[str, Reading] | None = None
    ) -> PassResult:
        """Process ``items`` in ``batch`` (committed with it), each message in its own unit.

        Every message is read first, so the core can load what the batch will need in a few
        queries (:meth:`bot.core.runtime.service.GameService.prepare`); a message that cannot be read
        fails in its own unit, as any other error would.  ``read``: what reading gave for
        messages read already, by source key, not read again.
        """
        readings: list[Reading] = []
        for item in items:
            known = read.get(item.source_key) if read is not None else None
            readings.append(known if known is not None else self._read(item))
        envelopes = [r.envelope for r in readings if isinstance(r, Understood)]
        self.service.prepare(batch, envelopes, [item.source_key for item in items])
        if self.replies is not None:
            self.replies.prepare(batch, envelopes)
        total = PassResult()
        for item, reading in zip(items, readings, strict=True):
            total += self.process(item, batch, reading)
        return total

    def _read(self, item: Pending) -> Reading:
        return self.understander.read([arrived(item)])[0].reading

    def process(self, item: Pending, batch: Batch | None = None, reading: Reading | None = None) -> PassResult:
        """Process one stored message and settle its row; never raises for a bad message.

        With ``batch``, everything happens in the batch's transaction: the message's work in a
        unit of its own, so a message that raises is rolled back alone and its row is marked
        failed in the batch (the error of the database itself still ends the batch).
        ``reading``: the message already read (or the error reading it raised).
        """
        if batch is None:
            with self.inbox.batch() as work:
                return self.process(item, work, reading)
        with log_fields(message_id=item.source_key):  # every line logged for this message names it
            return self._settle(item, batch, reading)

    def _settle(self, item: Pending, batch: Batch, reading: Reading | None) -> PassResult:
        try:
            with batch.unit():
                if reading is None:
                    reading = self._read(item)
                if isinstance(reading, Exception):
                    raise reading
                if isinstance(reading, Skip):
                    return self._park(item, batch, reading) if reading.park else self._skip(item, batch, reading)
                return self._process(item, batch, reading)
        except Redo:
            raise  # an optimistic batch: rolled back whole and run again carefully by the runner
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=20)}"
            status = self.inbox.mark_failed(item.id, self.clock.now(), error, batch=batch)
            if status == PARKED:
                log.error(
                    "inbox #%d (%s) parked after %d attempts: %s; inspect with `referee inbox list`, "
                    "then `referee inbox requeue %d`",
                    item.id, item.source_key, item.attempts + 1, exc, item.id,
                )  # fmt: skip
                return PassResult(parked=1)
            log.warning("inbox #%d (%s) failed (attempt %d): %s", item.id, item.source_key, item.attempts + 1, exc)
            return PassResult(failed=1)

    def _park(self, item: Pending, batch: Batch, reading: Skip) -> PassResult:
        """A message the reader gave up on: answered when it can be (``reading.answer``), then parked
        with its reason for the host (``referee inbox list``; ``referee inbox requeue`` reads it again)."""
        outcome = "not read, not answered (its sender could not be read cheaply)"
        sender = None
        if reading.answer is not None:
            envelope = reading.answer
            quiet = self._quiet_reason(item.id, envelope, command_digest(envelope), batch)
            if quiet is not None:
                envelope = replace(envelope, automatic=True)
            applied = self.service.apply(envelope, batch=batch)
            outcome = "not read; " + describe(envelope, applied, quiet)
            sender = envelope.sender.address
        log.warning(
            "inbox #%d (%s) parked unread: %s (%s); inspect with `referee inbox list`",
            item.id, item.source_key, reading.reason, outcome,
        )  # fmt: skip
        self.inbox.park(item.id, self.clock.now(), reading.reason, outcome, sender, batch=batch)
        return PassResult(parked=1)

    def _skip(self, item: Pending, batch: Batch, reading: Skip) -> PassResult:
        outcome = f"recorded, not answered: {reading.reason}"
        log.info("inbox #%d (%s): %s", item.id, item.source_key, outcome)
        self.inbox.mark_done(item.id, self.clock.now(), outcome, batch=batch)
        self._forget_secrets(item, (), batch)
        return PassResult(done=1)

    def _process(self, item: Pending, batch: Batch, understood: Understood) -> PassResult:
        envelope = understood.envelope
        message_id = envelope.reply_context.get("message_id")
        with log_fields(
            message_id=message_id or item.source_key, game=game_named(envelope.commands)
        ):  # the message's own id once read
            return self._apply(item, batch, understood, envelope)

    def _apply(self, item: Pending, batch: Batch, understood: Understood, envelope: c.Envelope) -> PassResult:
        digest = command_digest(envelope)
        quiet = self._quiet_reason(item.id, envelope, digest, batch)
        if quiet is not None and self.replies is not None:
            envelope = self.replies.quieted(envelope, quiet, batch)
        applied = self.service.apply(envelope, batch=batch)
        if applied.reply is not None:  # answered after all: its sender proved a seat with its password
            quiet = None
        outcome = describe(envelope, applied, quiet)
        log.log(
            logging.WARNING if quiet else logging.INFO, "inbox #%d (%s) from %s [%s]: %s",
            item.id, item.source_key, envelope.sender.address, understood.summary, outcome,
        )  # fmt: skip
        self.inbox.mark_done(item.id, self.clock.now(), outcome, envelope.sender.address, digest, batch=batch)
        self._forget_secrets(item, secrets_given(envelope), batch)
        return PassResult(done=1)

    def _quiet_reason(self, row_id: int, envelope: c.Envelope, digest: str, batch: Batch) -> str | None:
        return self.replies.quiet_reason(row_id, envelope, digest, batch) if self.replies is not None else None

    def _forget_secrets(self, item: Pending, secrets: Sequence[str], batch: Batch) -> None:
        """Keep the message without the passwords and codes it carried (the channel's ``redact``)."""
        if self.redact is None:
            return
        redacted = self.redact(item.raw, secrets)
        if redacted is not None:
            self.inbox.redact(item.id, redacted, batch=batch)


def describe(envelope: c.Envelope, applied: Applied, quiet: str | None) -> str:
    """What applying did, in words for the log and ``referee inbox list`` (never message text)."""
    if applied.duplicate:
        return f"receipt {applied.receipt}: already applied"
    accepted, problems, receipt = applied.accepted, applied.problems, applied.receipt
    parts: list[str] = []
    for command in envelope.commands:
        if isinstance(command, c.SubmitOrders):
            seats = [f"{seat} turn {turn}" for game, turn, seat in accepted if game == command.game]
            reason = "" if seats else _refusal(problems)
            parts.append(
                f"orders for {command.game} accepted ({', '.join(seats)})"
                if seats
                else f"orders for {command.game} refused" + (f" ({reason})" if reason else "")
            )
        elif not isinstance(command, c.NotUnderstood):
            parts.append(type(command).__name__)
    lines = sum(isinstance(command, c.NotUnderstood) for command in envelope.commands)
    if lines:
        parts.append(f"{lines} line{'' if lines == 1 else 's'} not understood")
    text = f"receipt {receipt}: " + ("; ".join(parts) or "no command")
    return f"{text}; not answered: {quiet}" if quiet else text


def _refusal(problems: tuple[str, ...]) -> str:
    """The core's reasons for refusing (its problem codes, never player text)."""
    return ", ".join(dict.fromkeys(code for code in problems if code != "as_given"))


def command_digest(envelope: c.Envelope) -> str:
    """A digest of what ``envelope`` asks for, case and spacing ignored: equal for a repeated text."""
    text = " | ".join(repr(command) for command in envelope.commands)
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()


def secrets_given(envelope: c.Envelope) -> list[str]:
    """The secrets a message gave: its password, the link codes it gave back."""
    given = [command.code for command in envelope.commands if isinstance(command, c.ConfirmLink)]
    return [envelope.password, *given] if envelope.password else given
