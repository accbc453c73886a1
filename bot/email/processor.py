"""Processing stored mail: understand it, apply it, settle its inbox row.

Each step commits on its own, and each is safe to repeat: applying is
idempotent by the envelope's source id (the inbox row's source key), so a
crash after applying and before marking the row done only means the next pass
applies it again as a no-op.  A message whose handling raises is marked
failed, retried with back-off, and parked after the inbox's bounded number of
attempts; nothing is dropped.
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass, replace
from datetime import timedelta

from bot.core.clock import Clock
from bot.core.inbox import PARKED, Inbox, Pending
from bot.core.ratelimit import ReplyBudget
from bot.core.service import GameService
from bot.email.understand import EMAIL, IntakePolicy, understand

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplyLimit:
    """At most ``replies`` replies per address per ``window``; above it mail is applied but not answered."""

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
        """Process every stored message that is due, in batches, oldest first."""
        total = PassResult()
        while True:
            pending = self.inbox.pending(self.clock.now(), EMAIL, batch)
            for item in pending:
                total += self.process(item)
            if len(pending) < batch:
                return total

    def process(self, item: Pending) -> PassResult:
        """Process one stored message and settle its row; never raises for a bad message."""
        try:
            understood = understand(item.raw, item.source_key, item.received_at, self.policy)
            envelope = understood.envelope
            if envelope is None:
                log.info("inbox #%d (%s): recorded, not answered: %s", item.id, item.source_key, understood.skip)
            else:
                if self._over_limit(envelope.sender.address):
                    log.warning(
                        "inbox #%d: %s has had %d replies within %s; applied without a reply",
                        item.id, envelope.sender.address, self.limit.replies, self.limit.window,
                    )  # fmt: skip
                    envelope = replace(envelope, automatic=True)
                applied = self.service.apply(envelope)
                log.info(
                    "inbox #%d (%s) from %s: %s -> receipt %s%s",
                    item.id, item.source_key, envelope.sender.address, understood.summary, applied.receipt,
                    " (already applied)" if applied.duplicate else "",
                )  # fmt: skip
            self.inbox.mark_done(item.id, self.clock.now())
            return PassResult(done=1)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=20)}"
            status = self.inbox.mark_failed(item.id, self.clock.now(), error)
            if status == PARKED:
                log.error(
                    "inbox #%d (%s) parked after %d attempts: %s; inspect with `referee inbox list`, "
                    "then `referee inbox requeue %d`",
                    item.id, item.source_key, item.attempts + 1, exc, item.id,
                )  # fmt: skip
                return PassResult(parked=1)
            log.warning("inbox #%d (%s) failed (attempt %d): %s", item.id, item.source_key, item.attempts + 1, exc)
            return PassResult(failed=1)

    def _over_limit(self, address: str) -> bool:
        if self.budget is None:
            return False
        since = self.clock.now() - self.limit.window
        return self.budget.replies_since(EMAIL, address, since) >= self.limit.replies
