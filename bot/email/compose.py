"""Outbox rows as real RFC 5322 messages.

Every message carries the row's stable Message-ID (a retry is recognisably the
same message), Date, From, To, Subject, the threading headers the core put on
the row (In-Reply-To, References), ``Auto-Submitted`` (``auto-replied`` on
replies, ``auto-generated`` on reports and notices, RFC 3834) and
``X-Auto-Response-Suppress: All`` so that auto-responders stay quiet, and a
``text/plain; charset=utf-8`` body.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from bot.core.outbox import PendingMessage


@dataclass(frozen=True)
class MailIdentity:
    """Who the referee's mail comes from."""

    address: str
    name: str = "Referee"


class UnsendableMessage(ValueError):
    """A row that cannot become a valid message (a bad recipient or header): retrying will not help."""


def compose(row: PendingMessage, identity: MailIdentity, now: datetime) -> EmailMessage:
    """The message for ``row``; raise :class:`UnsendableMessage` when it cannot be built."""
    recipient = row.recipient.strip()
    if "@" not in recipient or any(ch in recipient for ch in " \r\n<>,;"):
        raise UnsendableMessage(f"not an email address: {recipient!r}")
    message = EmailMessage(policy=policy.SMTP)
    try:
        message["Message-ID"] = row.message_id
        message["Date"] = format_datetime(now)
        message["From"] = formataddr((identity.name, identity.address))
        message["To"] = recipient
        message["Subject"] = row.subject
        for name in ("In-Reply-To", "References"):
            value = row.headers.get(name)
            if value:
                message[name] = str(value)
        message["Auto-Submitted"] = "auto-replied" if row.kind == "reply" else "auto-generated"
        message["X-Auto-Response-Suppress"] = "All"
        message.set_content(row.body, charset="utf-8")
    except (ValueError, TypeError) as exc:
        raise UnsendableMessage(str(exc)) from exc
    return message
