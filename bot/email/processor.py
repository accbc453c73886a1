"""Processing stored mail: understand it, apply it, settle its inbox row.

Each step commits on its own, and each is safe to repeat: applying is
idempotent by the envelope's source id (the inbox row's source key), so a
crash after applying and before marking the row done only means the next pass
applies it again as a no-op.  A message whose handling raises is marked
failed, retried with back-off, and parked after the inbox's bounded number of
attempts; nothing is dropped.  A message the mail reader gave up on (over its
time or memory budget, :class:`bot.email.prescreen.NotRead`) is answered when
its sender can be read cheaply and parked at once with its reason.

**The reply limit** stops mail loops and backscatter without muting a busy
player.  Once the address has had ``ReplyLimit.replies`` replies within
``ReplyLimit.window``, a message is applied but not answered when:

* its sender is not vouched for (a From line anyone could have written: the
  address may be a forged victim's), unless it carries a password that
  proves a seat (or the GM) of a game that exists: a forger knows none; or
* its sender is vouched for, it carries no command that changes a game that
  exists (ORDERS, JOIN, RESIGN, START for an existing game, or CREATE: such a
  message changes a game or is refused, and its sender always hears which),
  and it has no command at all or reads exactly the same commands as the
  address's previous message.

So a forged victim gets at most the limit's worth of replies, however the
forged mail varies; an auto-responder without RFC 3834 headers sends text
that is no command (or the same text again and again), so it is stopped
after the limit; a vouched player asking STATUS of one game, then of
another, is still answered.  The rule is stated in
``templates/email/help.txt.j2``.

Every message's outcome is logged and kept on its inbox row (``referee inbox
list``): which orders were accepted or refused, what else it asked for, and
why automatic mail was only recorded.
"""

from __future__ import annotations

import hashlib
import logging
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from bot.core.basics.batch import Batch, Redo
from bot.core.basics.clock import Clock
from bot.core.basics.log_fields import game_named, log_fields
from bot.core.intake.inbox import PARKED, Inbox, Pending
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.model import commands as c
from bot.core.runtime.service import Applied, GameService
from bot.email.prescreen import NotRead
from bot.email.redact import redact_mail
from bot.email.understand import EMAIL, IntakePolicy, Understanding, understand

log = logging.getLogger(__name__)


ACTING = (c.SubmitOrders, c.JoinGame, c.Resign, c.CreateGame, c.StartGame)
"""Commands that change a game or are refused: answered beyond the limit for a vouched sender and a game that exists."""


@dataclass(frozen=True)
class ReplyLimit:
    """Above ``replies`` replies per address per ``window``, loop-like mail is applied but not answered.

    See the module docstring for what counts as loop-like.
    """

    replies: int = 20
    window: timedelta = timedelta(hours=1)


Reading = Understanding | Exception | NotRead
"""What reading a stored message gave: its understanding, the error reading it raised, or why the
reader gave up on it (:mod:`bot.email.mail_reader`)."""
ReadPending = Callable[[Sequence[Pending]], Mapping[str, Reading]]
"""Reads stored messages (by source key) before their transaction opens (the intake's mail reader)."""


@dataclass(frozen=True)
class PassResult:
    done: int = 0
    failed: int = 0
    parked: int = 0

    def __add__(self, other: PassResult) -> PassResult:
        return PassResult(self.done + other.done, self.failed + other.failed, self.parked + other.parked)


class MailProcessor:
    """Turns stored mail into applied envelopes; see the module docstring."""

    def __init__(
        self,
        inbox: Inbox,
        service: GameService,
        clock: Clock,
        policy: IntakePolicy,
        budget: ReplyBudget | None = None,
        limit: ReplyLimit = ReplyLimit(),
    ) -> None:
        self.inbox = inbox
        self.service = service
        self.clock = clock
        self.policy = policy
        self.budget = budget
        self.limit = limit

    def process_pending(self, batch: int = 50, read: ReadPending | None = None) -> PassResult:
        """Process every stored message that is due, oldest first, ``batch`` messages a transaction.

        ``read``: how to read them (the intake's mail reader, within its budget), before their
        transaction opens; only the messages read are processed in it.  Without it each message
        is read in this process, in the transaction.
        """
        total = PassResult()
        while True:
            due = self.inbox.pending(self.clock.now(), EMAIL, batch if read is not None else 1)
            if not due:
                return total  # nothing due: no write transaction (no lock taken) for an idle pass
            readings = read(due) if read is not None else None
            with self.inbox.batch() as work:
                pending = self.inbox.pending(self.clock.now(), EMAIL, batch, batch=work)
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
        messages read already (:mod:`bot.email.mail_reader`), by source key, not read again.
        """
        readings: list[Reading] = []
        for item in items:
            known = read.get(item.source_key) if read is not None else None
            if known is not None:
                readings.append(known)
                continue
            try:
                readings.append(understand(item.raw, item.source_key, item.received_at, self.policy, item.server_size))
            except Exception as exc:  # a bug in the reader: that message fails below, in its unit
                readings.append(exc)
        envelopes = [r.envelope for r in readings if isinstance(r, Understanding) and r.envelope is not None]
        self.service.prepare(batch, envelopes, [item.source_key for item in items])
        total = PassResult()
        for item, reading in zip(items, readings, strict=True):
            total += self.process(item, batch, reading)
        return total

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
        with log_fields(message_id=item.source_key):  # every line logged for this mail names it
            return self._settle(item, batch, reading)

    def _settle(self, item: Pending, batch: Batch, reading: Reading | None) -> PassResult:
        try:
            with batch.unit():
                if isinstance(reading, NotRead):
                    return self._park(item, batch, reading)
                if isinstance(reading, Exception):
                    raise reading
                if reading is None:
                    reading = understand(item.raw, item.source_key, item.received_at, self.policy, item.server_size)
                return self._process(item, batch, reading)
        except Redo:
            raise  # an optimistic batch: rolled back whole and run again carefully by the intake
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

    def _park(self, item: Pending, batch: Batch, reading: NotRead) -> PassResult:
        """A message the reader gave up on: answered when it can be (``reading.reply``), then parked
        with its reason for the host (``referee inbox list``; ``referee inbox requeue`` reads it again)."""
        outcome = "not read, not answered (its sender could not be read cheaply)"
        sender = None
        if reading.reply is not None:
            envelope = reading.reply
            quiet = self._quiet_reason(item.id, envelope, command_digest(envelope), batch)
            if quiet is not None:
                envelope = replace(envelope, automatic=True)
            applied = self.service.apply(envelope, batch=batch)
            outcome = "not read; " + self._outcome(envelope, applied, quiet)
            sender = envelope.sender.address
        log.warning(
            "inbox #%d (%s) parked unread: %s (%s); inspect with `referee inbox list`",
            item.id, item.source_key, reading.reason, outcome,
        )  # fmt: skip
        self.inbox.park(item.id, self.clock.now(), reading.reason, outcome, sender, batch=batch)
        return PassResult(parked=1)

    def _process(self, item: Pending, batch: Batch, understood: Understanding) -> PassResult:
        envelope = understood.envelope
        if envelope is None:
            outcome = f"recorded, not answered: {understood.skip}"
            log.info("inbox #%d (%s): %s", item.id, item.source_key, outcome)
            self.inbox.mark_done(item.id, self.clock.now(), outcome, batch=batch)
            self._forget_secrets(item, (), batch)
            return PassResult(done=1)
        message_id = envelope.reply_context.get("message_id")
        with log_fields(
            message_id=message_id or item.source_key, game=game_named(envelope.commands)
        ):  # the mail's own Message-ID once read
            return self._apply(item, batch, understood, envelope)

    def _apply(self, item: Pending, batch: Batch, understood: Understanding, envelope: c.Envelope) -> PassResult:
        digest = command_digest(envelope)
        quiet = self._quiet_reason(item.id, envelope, digest, batch)
        if quiet is not None:
            envelope = self._quieted(envelope, quiet, batch)
        applied = self.service.apply(envelope, batch=batch)
        if applied.reply is not None:  # answered after all: its sender proved a seat with its password
            quiet = None
        outcome = self._outcome(envelope, applied, quiet)
        log.log(
            logging.WARNING if quiet else logging.INFO, "inbox #%d (%s) from %s [%s]: %s",
            item.id, item.source_key, envelope.sender.address, understood.summary, outcome,
        )  # fmt: skip
        self.inbox.mark_done(item.id, self.clock.now(), outcome, envelope.sender.address, digest, batch=batch)
        self._forget_secrets(item, secrets_given(envelope), batch)
        return PassResult(done=1)

    def _forget_secrets(self, item: Pending, secrets: Sequence[str], batch: Batch) -> None:
        """Keep the mail without the passwords and codes it carried (:mod:`bot.email.redact`)."""
        redacted = redact_mail(item.raw, secrets)
        if redacted is not None:
            self.inbox.redact(item.id, redacted, batch=batch)

    def _quiet_reason(self, row_id: int, envelope: c.Envelope, digest: str, batch: Batch) -> str | None:
        """Why this message gets no reply under the reply limit (module docstring), or None."""
        if self.budget is None:
            return None
        vouched = envelope.trust in (c.Trust.VOUCHED, c.Trust.VERIFIED)
        if vouched and self._acts_on_a_game(envelope, batch):
            return None
        since = self.clock.now() - self.limit.window
        address = envelope.sender.address
        replies = self.budget.replies_since(EMAIL, address, since, batch)
        if replies < self.limit.replies:
            return None
        if not vouched:
            return f"{UNVOUCHED}, after {replies} replies within {self.limit.window}"
        if all(isinstance(command, c.NotUnderstood) for command in envelope.commands):
            return f"no command, after {replies} replies within {self.limit.window}"
        if self.budget.previous_commands(EMAIL, address, row_id, since, batch) == digest:
            return f"the same commands as the previous message, after {replies} replies within {self.limit.window}"
        return None

    def _quieted(self, envelope: c.Envelope, quiet: str, batch: Batch) -> c.Envelope:
        """The envelope as applied under the reply limit: never answered, except an unvouched sender's
        password-carrying commands for a game that exists, answered when the password proves them."""
        if quiet.startswith(UNVOUCHED) and envelope.password and self._acts_on_a_game(envelope, batch):
            return replace(envelope, answer_if_proven=True)
        return replace(envelope, automatic=True)

    def _acts_on_a_game(self, envelope: c.Envelope, batch: Batch) -> bool:
        """Whether the envelope creates a game or acts on one that exists (always answered for a vouched sender)."""
        acting = [command for command in envelope.commands if isinstance(command, ACTING)]
        if any(isinstance(command, c.CreateGame) for command in acting):
            return True
        slugs = {command.game for command in acting if not isinstance(command, c.CreateGame)}
        return self.budget is not None and bool(self.budget.existing_games(slugs, batch))

    def _outcome(self, envelope: c.Envelope, applied: Applied, quiet: str | None) -> str:
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


UNVOUCHED = "sender not vouched for"
"""The reply limit's reason for a sender nobody vouches for (answered only when a password proves it)."""


def _refusal(problems: tuple[str, ...]) -> str:
    """The core's reasons for refusing (its problem codes, never player text)."""
    return ", ".join(dict.fromkeys(code for code in problems if code != "as_given"))


def command_digest(envelope: c.Envelope) -> str:
    """A digest of what ``envelope`` asks for, case and spacing ignored: equal for a repeated text."""
    text = " | ".join(repr(command) for command in envelope.commands)
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()


def secrets_given(envelope: c.Envelope) -> list[str]:
    """The secrets a mail gave: its password, the link codes it gave back."""
    given = [command.code for command in envelope.commands if isinstance(command, c.ConfirmLink)]
    return [envelope.password, *given] if envelope.password else given
