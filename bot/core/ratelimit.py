"""How many replies an address has been sent lately: the brake on mail loops.

An auto-responder that does not mark its mail as automatic (RFC 3834) would
answer every reply with another message, and each would get a reply.  The
email intake asks :meth:`ReplyBudget.replies_since` before answering and stops
answering an address that has had its share for the window; the messages are
still applied and kept.  The count comes from the outbox itself, so it needs
no table of its own and survives restarts.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage


class ReplyBudget:
    """Counts the replies written to the outbox for one address."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def replies_since(self, channel: str, recipient: str, since: datetime) -> int:
        """Replies queued for ``recipient`` on ``channel`` at or after ``since`` (address case ignored)."""
        with unit_of_work(self._sessions) as session:
            count = session.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(
                    OutboxMessage.channel == channel,
                    func.lower(OutboxMessage.recipient) == recipient.strip().lower(),
                    OutboxMessage.kind == "reply",
                    OutboxMessage.created_at >= since,
                )
            )
        return int(count or 0)
