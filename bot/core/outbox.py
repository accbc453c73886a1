"""The outbox: messages written in the same transaction as their cause, drained by senders.

Channel adapters drain it through :class:`OutboxDrain` (they never touch the
models).  A row is handed out until a sender marks it sent; a failed attempt
is retried with exponential back-off.  Each row has a stable Message-ID, so a
retry after a crash between "sent" and "marked" is recognisable downstream.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage

MAX_BACKOFF = timedelta(hours=1)
PARKED_UNTIL = datetime(9999, 1, 1, tzinfo=UTC)
"""The next attempt of a parked row: never."""


@dataclass(frozen=True)
class Outgoing:
    """A message to send: channel-neutral text plus the data it was rendered from."""

    channel: str
    recipient: str
    kind: str
    subject: str
    body: str
    template: str
    headers: Mapping[str, Any] = field(default_factory=dict)
    game_id: int | None = None
    turn_number: int | None = None
    key: str = ""
    """What makes this message unique (with channel and recipient): its Message-ID is derived from it."""


@dataclass(frozen=True)
class PendingMessage:
    """An outbox row as a sender sees it."""

    id: int
    message_id: str
    channel: str
    recipient: str
    kind: str
    subject: str
    body: str
    headers: Mapping[str, Any]
    attempts: int


def stable_message_id(channel: str, recipient: str, key: str, domain: str) -> str:
    """``<hash@domain>`` derived from what the message is, so it is the same on every retry."""
    digest = hashlib.sha256(f"{channel}\x00{recipient}\x00{key}".encode()).hexdigest()[:32]
    return f"<{digest}@{domain}>"


def enqueue(session: Session, message: Outgoing, now: datetime, domain: str = "referee.invalid") -> OutboxMessage:
    """Add ``message`` to the outbox inside the caller's transaction."""
    row = OutboxMessage(
        message_id=stable_message_id(message.channel, message.recipient, message.key or message.subject, domain),
        channel=message.channel,
        recipient=message.recipient,
        kind=message.kind,
        subject=message.subject,
        body=message.body,
        template=message.template,
        headers=dict(message.headers),
        game_id=message.game_id,
        turn_number=message.turn_number,
        created_at=now,
        next_attempt_at=now,
        attempts=0,
        last_error=None,
        sent_at=None,
    )
    session.add(row)
    return row


class OutboxDrain:
    """What a sender uses: fetch due rows of its channel, mark them sent or failed."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def due(self, channel: str, now: datetime, limit: int = 100) -> list[PendingMessage]:
        """Unsent rows of ``channel`` whose next attempt is due, oldest first."""
        with unit_of_work(self._sessions) as session:
            rows = session.scalars(
                select(OutboxMessage)
                .where(
                    OutboxMessage.channel == channel,
                    OutboxMessage.sent_at.is_(None),
                    OutboxMessage.next_attempt_at <= now,
                )
                .order_by(OutboxMessage.id)
                .limit(limit)
            ).all()
            return [
                PendingMessage(
                    r.id, r.message_id, r.channel, r.recipient, r.kind, r.subject, r.body, dict(r.headers), r.attempts
                )
                for r in rows
            ]

    def mark_sent(self, message_id: int, now: datetime) -> None:
        with unit_of_work(self._sessions) as session:
            row = session.get_one(OutboxMessage, message_id)
            if row.sent_at is None:
                row.sent_at = now
                row.attempts += 1

    def mark_failed(self, message_id: int, now: datetime, error: str) -> datetime:
        """Record a failed attempt; returns when the row is due again (back-off doubles)."""
        with unit_of_work(self._sessions) as session:
            row = session.get_one(OutboxMessage, message_id)
            row.attempts += 1
            row.last_error = error[:2000]
            delay = min(MAX_BACKOFF, timedelta(seconds=5 * 2 ** min(row.attempts - 1, 12)))
            row.next_attempt_at = now + delay
            return row.next_attempt_at

    def park(self, message_id: int, now: datetime, reason: str) -> None:
        """Stop retrying a row the channel refused for good (unknown channel, missing permission, closed DMs).

        The row stays unsent with ``last_error`` = ``parked: <reason>`` and is
        never due again (its next attempt is set to :data:`PARKED_UNTIL`), so
        a GM can see why it was not delivered.
        """
        with unit_of_work(self._sessions) as session:
            row = session.get_one(OutboxMessage, message_id)
            if row.sent_at is None:
                row.attempts += 1
                row.last_error = f"parked: {reason}"[:2000]
                row.next_attempt_at = PARKED_UNTIL

    def unsent_count(self, channel: str | None = None) -> int:
        with unit_of_work(self._sessions) as session:
            query = select(OutboxMessage.id).where(OutboxMessage.sent_at.is_(None))
            if channel is not None:
                query = query.where(OutboxMessage.channel == channel)
            return len(session.scalars(query).all())
