"""Outbox rows as real RFC 5322 messages, rendered in the email form.

The row's template and data are rendered with ``templates/email/`` (the
first line of each is its Subject).  Every message carries the row's stable
Message-ID (a retry is recognisably the same message), Date, From, To,
Subject, the threading headers from the reply context the email intake put on
the envelope (In-Reply-To, References), ``Auto-Submitted`` (``auto-replied``
on replies, ``auto-generated`` on reports and notices, RFC 3834) and
``X-Auto-Response-Suppress: All`` so that auto-responders stay quiet, and a
``text/plain`` body: 7bit when it is plain ASCII, else UTF-8.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

import jinja2

from bot.core.outbox import PendingMessage
from bot.core.outcomes import REPLY
from bot.core.rendering import render_message

FORM = "email"
"""The template folder of the email channel (``templates/email/``)."""


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
        rendered = render_message(FORM, row.template, {**row.data, "context": row.context})
        message["Subject"] = rendered.title or "(no subject)"
        in_reply_to = row.context.get("message_id")
        if in_reply_to:
            message["In-Reply-To"] = str(in_reply_to)
            message["References"] = " ".join((*row.context.get("references", ()), str(in_reply_to)))
        message["Auto-Submitted"] = "auto-replied" if row.kind == REPLY else "auto-generated"
        message["X-Auto-Response-Suppress"] = "All"
        if rendered.body.isascii():
            message.set_content(rendered.body, charset="us-ascii", cte="7bit")
        else:
            message.set_content(rendered.body, charset="utf-8")
        for item in row.data.get("items", ()) if row.template == REPLY else ():
            if item.get("code") == "record":  # RECORD <game>: the sealed record as a file
                data = json.dumps(item["record"], indent=1).encode()
                message.add_attachment(data, maintype="application", subtype="json", filename=item["filename"])
    except (ValueError, TypeError, KeyError, jinja2.TemplateError) as exc:
        raise UnsendableMessage(f"{type(exc).__name__}: {exc}") from exc
    return message
