"""One intake pass over a mailbox: store what is new, process it, then acknowledge it.

The order is what makes the intake safe::

    list unacknowledged messages
      -> store each one not yet stored (raw bytes, committed)   <- before anything is told to the server
      -> process every stored message that is due
      -> acknowledge (move or flag) those whose row is done or parked

A crash before storing leaves the message on the server, unacknowledged; a
crash after storing finds the row on the next pass (by its source key) and
does not fetch it again; a crash after processing re-applies as a no-op; a
crash after settling and before acknowledging only acknowledges late.  A
second copy of a message (same Message-ID under another key) is acknowledged
as soon as the first copy is settled, and never processed.

:class:`Mailbox` is what a mail store offers (IMAP in :mod:`bot.email.imap`,
Maildir in :mod:`bot.email.maildir`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from bot.core.inbox import DONE, PARKED
from bot.email.mime import message_id_of
from bot.email.processor import MailProcessor, PassResult
from bot.email.understand import EMAIL

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MessageRef:
    """One message in a mailbox: its durable key, size, and arrival time at the server."""

    key: str
    size: int
    arrived_at: datetime | None
    handle: object


class Mailbox(Protocol):
    """A mail store the intake reads; every method may raise OSError when the store is gone."""

    def unacknowledged(self) -> Sequence[MessageRef]:
        """The messages not yet acknowledged, oldest first."""
        ...

    def read(self, ref: MessageRef, max_bytes: int) -> bytes:
        """The raw message (at most ``max_bytes``; a larger message is cut there)."""
        ...

    def acknowledge(self, refs: Sequence[MessageRef]) -> None:
        """Move (or flag) the messages so they are not listed again."""
        ...


@dataclass(frozen=True)
class IntakeResult:
    stored: int = 0
    duplicates: int = 0
    processed: PassResult = field(default_factory=PassResult)
    acknowledged: int = 0


class Intake:
    """Runs passes of the protocol above over one mailbox."""

    def __init__(self, processor: MailProcessor) -> None:
        self.processor = processor
        self.inbox = processor.inbox
        self.clock = processor.clock
        self.max_bytes = processor.policy.max_message_bytes
        """A larger message is fetched only this far (and answered "too large")."""

    def run_once(self, mailbox: Mailbox) -> IntakeResult:
        refs = list(mailbox.unacknowledged())
        known = self.inbox.statuses(ref.key for ref in refs)
        owner = {ref.key: ref.key for ref in refs if ref.key in known}
        stored = duplicates = 0
        for ref in refs:
            if ref.key in owner:
                continue
            raw = mailbox.read(ref, self.max_bytes)
            now = self.clock.now()
            arrived = min(ref.arrived_at, now) if ref.arrived_at is not None else now
            row = self.inbox.store(EMAIL, ref.key, message_id_of(raw), raw, arrived)
            owner[ref.key] = row.source_key
            if row.new:
                stored += 1
            else:
                duplicates += 1
                log.info("%s is a copy of stored message %s; it will not be processed", ref.key, row.source_key)
        processed = self.processor.process_pending()
        settled = self.inbox.statuses(owner.values())
        done = [ref for ref in refs if settled.get(owner[ref.key]) in (DONE, PARKED)]
        if done:
            mailbox.acknowledge(done)
        return IntakeResult(stored, duplicates, processed, len(done))
