"""Processing stored mail: understand it, apply it, settle its inbox row.

Each step commits on its own, and each is safe to repeat: applying is
idempotent by the envelope's source id (the inbox row's source key), so a
crash after applying and before marking the row done only means the next pass
applies it again as a no-op.  A message whose handling raises is marked
failed, retried with back-off, and parked after the inbox's bounded number of
attempts; nothing is dropped.

**The reply limit** stops mail loops without muting a busy
player.  A message is applied but not answered only when all of these hold:

* it carries no command that can change a game (ORDERS, JOIN, RESIGN, the
  game master's commands): such a message either changes a game or is
  refused, and its sender always hears which;
* the address has had ``ReplyLimit.replies`` replies within
  ``ReplyLimit.window``;
* it has no command at all (only lines that are not commands, or nothing), or
  it reads exactly the same commands as the address's previous message.

An auto-responder without RFC 3834 headers sends text that is no command (or
the same text again and again), so it is stopped after the limit; a player
asking STATUS of one game, then of another, is still answered.  The rule is
stated in ``templates/common/help.txt.j2``.

Every message's outcome is logged and kept on its inbox row (``referee inbox
list``): which orders were accepted or refused, what else it asked for, and
why automatic mail was only recorded.
"""

from __future__ import annotations

import hashlib
import logging
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from bot.core import commands as c
from bot.core.batch import Batch, Redo
from bot.core.clock import Clock
from bot.core.inbox import PARKED, Inbox, Pending
from bot.core.log_fields import game_named, log_fields
from bot.core.ratelimit import ReplyBudget
from bot.core.service import Applied, GameService
from bot.email.understand import EMAIL, IntakePolicy, Understanding, understand

log = logging.getLogger(__name__)


ACTING = (c.SubmitOrders, c.JoinGame, c.Resign, c.CreateGame, c.StartGame)
"""Commands that change a game or are refused: a message with one is always answered."""


@dataclass(frozen=True)
class ReplyLimit:
    """Above ``replies`` replies per address per ``window``, loop-like mail is applied but not answered.

    See the module docstring for what counts as loop-like.
    """

    replies: int = 20
    window: timedelta = timedelta(hours=1)


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

    def process_pending(self, batch: int = 50) -> PassResult:
        """Process every stored message that is due, oldest first, ``batch`` messages a transaction."""
        total = PassResult()
        while True:
            if not self.inbox.pending(self.clock.now(), EMAIL, 1):
                return total  # nothing due: no write transaction (no lock taken) for an idle pass
            with self.inbox.batch() as work:
                pending = self.inbox.pending(self.clock.now(), EMAIL, batch, batch=work)
                total += self.process_batch(work, pending)
            if len(pending) < batch:
                return total

    def process_batch(
        self, batch: Batch, items: Sequence[Pending], read: Mapping[str, Understanding | Exception] | None = None
    ) -> PassResult:
        """Process ``items`` in ``batch`` (committed with it), each message in its own unit.

        Every message is read first, so the core can load what the batch will need in a few
        queries (:meth:`bot.core.service.GameService.prepare`); a message that cannot be read
        fails in its own unit, as any other error would.  ``read``: what reading gave for
        messages read already (:mod:`bot.email.mail_reader`), by source key, not read again.
        """
        readings: list[Understanding | Exception] = []
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

    def process(
        self, item: Pending, batch: Batch | None = None, reading: Understanding | Exception | None = None
    ) -> PassResult:
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

    def _settle(self, item: Pending, batch: Batch, reading: Understanding | Exception | None) -> PassResult:
        try:
            with batch.unit():
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

    def _process(self, item: Pending, batch: Batch, understood: Understanding) -> PassResult:
        envelope = understood.envelope
        if envelope is None:
            outcome = f"recorded, not answered: {understood.skip}"
            log.info("inbox #%d (%s): %s", item.id, item.source_key, outcome)
            self.inbox.mark_done(item.id, self.clock.now(), outcome, batch=batch)
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
            envelope = replace(envelope, automatic=True)
        applied = self.service.apply(envelope, batch=batch)
        outcome = self._outcome(envelope, applied, quiet)
        log.log(
            logging.WARNING if quiet else logging.INFO, "inbox #%d (%s) from %s [%s]: %s",
            item.id, item.source_key, envelope.sender.address, understood.summary, outcome,
        )  # fmt: skip
        self.inbox.mark_done(item.id, self.clock.now(), outcome, envelope.sender.address, digest, batch=batch)
        return PassResult(done=1)

    def _quiet_reason(self, row_id: int, envelope: c.Envelope, digest: str, batch: Batch) -> str | None:
        """Why this message gets no reply under the reply limit (module docstring), or None."""
        if self.budget is None or any(isinstance(command, ACTING) for command in envelope.commands):
            return None
        since = self.clock.now() - self.limit.window
        address = envelope.sender.address
        replies = self.budget.replies_since(EMAIL, address, since, batch)
        if replies < self.limit.replies:
            return None
        if all(isinstance(command, c.NotUnderstood) for command in envelope.commands):
            return f"no command, after {replies} replies within {self.limit.window}"
        if self.budget.previous_commands(EMAIL, address, row_id, since, batch) == digest:
            return f"the same commands as the previous message, after {replies} replies within {self.limit.window}"
        return None

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


def _refusal(problems: tuple[str, ...]) -> str:
    """The core's reasons for refusing (its problem codes, never player text)."""
    return ", ".join(dict.fromkeys(code for code in problems if code != "as_given"))


def command_digest(envelope: c.Envelope) -> str:
    """A digest of what ``envelope`` asks for, case and spacing ignored: equal for a repeated text."""
    text = " | ".join(repr(command) for command in envelope.commands)
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()
