"""Outbox rows as real RFC 5322 messages, rendered in the email form.

The row's template and data are rendered with ``templates/email/`` (the
first line of each is its Subject).  Every message carries the row's stable
Message-ID (a retry is recognisably the same message), Date, From, To,
Subject, the threading headers from the reply context the email intake put on
the envelope (In-Reply-To, References), ``Auto-Submitted`` (``auto-replied``
on replies, ``auto-generated`` on reports and notices, RFC 3834) and
``X-Auto-Response-Suppress: All`` so that auto-responders stay quiet, and a
``text/plain`` body: 7bit when it is plain ASCII, else UTF-8.

Attachments, each built from the row's own data (never a query at send time):
the sealed record of ``RECORD <game>`` (``<game>-record.json``); the deadline
as a calendar entry (``deadline.ics``, ``text/calendar; method=PUBLISH``) when
the data carries ``calendar`` (the start, a moved deadline, a pause, a resume,
the end: :mod:`bot.core.games.calendar_entry`), so the reader's calendar adds
the entry or updates the one it holds (reports carry none: most mail is
reports, and they stay one plain part); and the
board drawn (``board.png``, :mod:`bot.pictures`) on a report to a player who
asked for it (``board_picture``, set at delivery: ``PICTURES ON``).

The sender takes :func:`compose_bytes`: the message built once as the bytes
that go on the wire.  A message whose headers and body are plain ASCII (the
usual report or reply) is written out directly, byte for byte what
:func:`compose` would serialise (``tests/email/test_compose_bytes.py``),
without the cost of the email package's header objects; any other goes
through :func:`compose`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

import jinja2

from bot.core.messaging.outbox import PendingMessage
from bot.core.messaging.rendering import READER_LANGUAGE, Rendered, render_message
from bot.core.model.outcomes import REPLY
from bot.core.views.calendars import entry_ics
from bot.pictures import draw, png

FORM = "email"
"""The template folder of the email channel (``templates/email/``)."""


@dataclass(frozen=True)
class MailIdentity:
    """Who the referee's mail comes from."""

    address: str
    name: str = "Referee"


class UnsendableMessage(ValueError):
    """A row that cannot become a valid message (a bad recipient or header): retrying will not help."""


@dataclass(frozen=True)
class BuiltMail:
    """A message built once, as the bytes to send (what :func:`compose_bytes` returns)."""

    message_id: str
    sender: str
    """The From address (MAIL FROM when no envelope sender is configured)."""
    raw: bytes

    def __getitem__(self, name: str) -> str:
        """The one header a transport asks for (``Message-ID``), as on an :class:`EmailMessage`."""
        if name.lower() != "message-id":
            raise KeyError(name)
        return self.message_id

    def as_bytes(self) -> bytes:
        return self.raw


def _recipient(row: PendingMessage) -> str:
    recipient = row.recipient.strip()
    if "@" not in recipient or any(ch in recipient for ch in " \r\n<>,;"):
        raise UnsendableMessage(f"not an email address: {recipient!r}")
    return recipient


def _render(row: PendingMessage) -> Rendered:
    try:
        return render_message(FORM, row.template, {**row.data, "context": row.context})
    except (ValueError, TypeError, KeyError, jinja2.TemplateError) as exc:
        raise UnsendableMessage(f"{type(exc).__name__}: {exc}") from exc


def _headers(row: PendingMessage, identity: MailIdentity, now: datetime, rendered: Rendered) -> list[tuple[str, str]]:
    headers = [
        ("Message-ID", row.message_id),
        ("Date", format_datetime(now)),
        ("From", formataddr((identity.name, identity.address))),
        ("To", _recipient(row)),
        ("Subject", rendered.title or "(no subject)"),
    ]
    in_reply_to = row.context.get("message_id")
    if in_reply_to:
        headers.append(("In-Reply-To", str(in_reply_to)))
        headers.append(("References", " ".join((*row.context.get("references", ()), str(in_reply_to)))))
    headers.append(("Auto-Submitted", "auto-replied" if row.kind == REPLY else "auto-generated"))
    headers.append(("X-Auto-Response-Suppress", "All"))
    return headers


def compose(row: PendingMessage, identity: MailIdentity, now: datetime) -> EmailMessage:
    """The message for ``row``; raise :class:`UnsendableMessage` when it cannot be built."""
    rendered = _render(row)
    return _message(_headers(row, identity, now, rendered), rendered.body, _attachments(row))


@dataclass(frozen=True)
class Attachment:
    """One file a message carries: its name, bytes and MIME type (``params``: more of its Content-Type)."""

    filename: str
    data: bytes
    maintype: str
    subtype: str
    params: tuple[tuple[str, str], ...] = ()


CALENDAR_FILE = "deadline.ics"
BOARD_FILE = "board.png"


def _attachments(row: PendingMessage) -> list[Attachment]:
    """The files ``row`` carries (the module docstring), from its data alone."""
    if row.template == REPLY:
        return [
            Attachment(str(item["filename"]), json.dumps(item["record"], indent=1).encode(), "application", "json")
            for item in row.data.get("items", ())
            if item.get("code") == "record"
        ]
    found: list[Attachment] = []
    entry = row.data.get("calendar")
    if isinstance(entry, dict):
        try:
            ics = entry_ics(entry, row.data.get(READER_LANGUAGE))
        except (KeyError, TypeError, ValueError) as exc:
            raise UnsendableMessage(f"calendar entry: {type(exc).__name__}: {exc}") from exc
        found.append(Attachment(CALENDAR_FILE, ics, "text", "calendar", (("method", "PUBLISH"),)))
    if row.data.get("board_picture") and row.data.get("kind"):
        picture = draw(str(row.data["kind"]), row.data.get("board"), row.data.get(READER_LANGUAGE))
        if picture is not None:
            found.append(Attachment(BOARD_FILE, png(picture), "image", "png"))
    return found


def _attach(message: EmailMessage, attachment: Attachment) -> None:
    if attachment.maintype == "text":  # a text part says its charset (calendars: RFC 5545 3.1.4, UTF-8)
        message.add_attachment(
            attachment.data.decode("utf-8"), subtype=attachment.subtype, charset="utf-8",
            filename=attachment.filename, params=dict(attachment.params),
        )  # fmt: skip
        return
    message.add_attachment(
        attachment.data, maintype=attachment.maintype, subtype=attachment.subtype, filename=attachment.filename,
        params=dict(attachment.params),
    )  # fmt: skip


def _message(headers: list[tuple[str, str]], body: str, attachments: Sequence[Attachment] = ()) -> EmailMessage:
    message = EmailMessage(policy=policy.SMTP)
    try:
        for name, value in headers:
            message[name] = value
        if body.isascii():
            message.set_content(body, charset="us-ascii", cte="7bit")
        else:
            message.set_content(body, charset="utf-8")
        for attachment in attachments:
            _attach(message, attachment)
    except (ValueError, TypeError, KeyError) as exc:
        raise UnsendableMessage(f"{type(exc).__name__}: {exc}") from exc
    return message


_PLAIN_TAIL = (
    b'Content-Type: text/plain; charset="us-ascii"\r\nContent-Transfer-Encoding: 7bit\r\nMIME-Version: 1.0\r\n\r\n'
)
_FOLD = 78
"""policy.SMTP's max_line_length: longer header lines are folded at a space."""


def _fold(name: str, value: str) -> str | None:
    """``Name: value`` when it fits one line; None when it needs folding, which only the email package
    does exactly as ``policy.SMTP`` does (a hand-made fold differed for long References: found by the
    property test in tests/email/test_compose_bytes.py)."""
    line = f"{name}: {value}"
    return line if len(line) <= _FOLD else None


def compose_bytes(row: PendingMessage, identity: MailIdentity, now: datetime) -> BuiltMail:
    """The message for ``row`` as the bytes to send; raise :class:`UnsendableMessage` when it cannot be built."""
    rendered = _render(row)
    headers = _headers(row, identity, now, rendered)
    body = rendered.body
    attachments = _attachments(row)
    lines: list[str] = []
    plain = not attachments and identity.name.isascii() and body.isascii()
    plain = plain and all(len(line) <= 998 for line in body.splitlines())
    for name, value in headers:
        if (
            not plain
            or not value.isascii()
            or "=?" in value
            or "\r" in value
            or "\n" in value
            or value != value.strip()
        ):
            plain = False
            break
        folded = _fold(name, value)
        if folded is None:
            plain = False
            break
        lines.append(folded)
    if not plain:
        raw = _message(headers, body, attachments).as_bytes()
    else:
        text = body if body.endswith("\n") else body + "\n"
        wire = b"\r\n".join(text.encode("ascii").splitlines()) + b"\r\n"  # as the email package splits
        raw = ("\r\n".join(lines) + "\r\n").encode("ascii") + _PLAIN_TAIL + wire
    return BuiltMail(row.message_id, identity.address, raw)
