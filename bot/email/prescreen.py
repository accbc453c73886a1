"""Cheap limits on a mail's bytes, checked before any parser sees it, and a cheap read of its From.

The email package's parsers cost more than linear time in what an outsider writes: parsing an
address list is quadratic in its length (the referee reads only the fields it needs, but a
parser of a whole field still sees it), a multipart nested a thousand deep exhausts the
interpreter's recursion limit, and each line of a nested part is checked against every
boundary around it (500 levels and 500,000 empty lines: 21 s of CPU).  What the screen does not
bound, the reader's time budget does (:mod:`bot.email.mail_reader`).  So the mail reader
(:mod:`bot.email.mail_reader`) first scans the raw bytes, in time linear in their length, and
refuses a mail that has

* a header block (the bytes before the first empty line) longer than ``header_bytes``;
* more than ``header_fields`` header fields;
* more than ``addresses`` addresses in its address fields (From, To, Cc, Bcc, Reply-To, Sender
  and the Resent- ones): per field, the number of ``@`` or of ``,`` plus one, whichever is more;
* more than ``multiparts`` Content-Type fields naming a ``multipart/`` type;
* more than ``nested_lines`` multipart sections times lines: the parser checks each line of a
  part against the boundary of every multipart around it, so this bounds those checks (about
  2 s of CPU at the default) whatever the nesting.

A refused mail is answered (:func:`refusal_envelope`) when :func:`cheap_sender` can read its
sender: the one ``From`` field, plain ASCII without control characters or encoded words, holding
exactly one address (``a@b``, ``<a@b>`` or ``Name <a@b>``), and the mail not automatic by its
fields (Auto-Submitted, Precedence, List-Id, the null envelope sender, a bounce or no-reply
sender).  Anything else is not a sender this scan vouches for as an address to answer, and the
mail is only recorded.  This read never decides who may act: a refusal carries no command, and
its envelope is :attr:`bot.core.model.commands.Trust.CLAIMED`.

:class:`NotRead` is what the reader gives for a mail it gave up on (over its time or memory
budget, :mod:`bot.email.mail_reader`): the intake parks it with its reason and answers it the
same way.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime

from bot.core.basics import linear
from bot.core.model import commands as c
from bot.email.understand import EMAIL, IntakePolicy, Understanding


@dataclass(frozen=True)
class MailLimits:
    """What a mail may hold before it is read at all (see the module docstring)."""

    header_bytes: int = 256 * 1024
    header_fields: int = 1000
    addresses: int = 1000
    multiparts: int = 100
    nested_lines: int = 20_000_000


DEFAULT_LIMITS = MailLimits()


@dataclass(frozen=True)
class Refusal:
    """Why a mail is not read: ``line`` is what the reply quotes, ``reason`` why."""

    line: str
    reason: str


@dataclass(frozen=True)
class NotRead:
    """A mail the reader gave up on: parked with ``reason``; ``reply``, when its sender could be
    read cheaply, says so to the sender."""

    reason: str
    reply: c.Envelope | None = None


_ADDRESS_FIELDS = frozenset(
    {b"from", b"sender", b"to", b"cc", b"bcc", b"reply-to", b"resent-from", b"resent-sender", b"resent-to",
     b"resent-cc", b"resent-bcc"}
)  # fmt: skip
_MULTIPART = linear.compile(rb"^content-type[ \t]*:[ \t]*(?:\r?\n[ \t]+)?\"?multipart/", re.IGNORECASE | re.MULTILINE)


def header_block(raw: bytes, limit: int) -> bytes | None:
    """The bytes of ``raw`` before its first empty line (all of it when there is none), or None
    when they are longer than ``limit``; only the first ``limit`` + 3 bytes are searched."""
    window = raw[: limit + 3]
    ends = [found for found in (window.find(b"\n\n"), window.find(b"\n\r\n")) if found >= 0]
    if ends:
        end = min(ends) + 1
        return raw[:end] if end <= limit else None
    return raw if len(raw) <= limit else None


def header_fields(head: bytes) -> list[tuple[bytes, bytes]]:
    """The fields of a header block: (lower-case name, raw value with its folding), in order;
    a line that is neither a field nor a continuation is a field with an empty name."""
    fields: list[tuple[bytes, list[bytes]]] = []
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1][1].append(line)  # joined once at the end: appending to bytes would be quadratic
        elif line.strip():
            name, colon, value = line.partition(b":")
            fields.append((name.strip().lower(), [value]) if colon else (b"", [line]))
    return [(name, b"\n".join(lines)) for name, lines in fields]


def screen(raw: bytes, limits: MailLimits) -> Refusal | None:
    """Why ``raw`` is over a limit of ``limits`` (module docstring), or None; time linear in its size."""
    head = header_block(raw, limits.header_bytes)
    if head is None:
        return Refusal(
            "(the header of your message)",
            f"too many recipients or headers: its header block is longer than {limits.header_bytes // 1024} KB; "
            "the message was not read",
        )
    fields = header_fields(head)
    if len(fields) > limits.header_fields:
        return Refusal(
            "(the header of your message)",
            f"too many headers: {len(fields):,} header fields, at most {limits.header_fields:,} are read; "
            "the message was not read",
        )
    addresses = sum(max(value.count(b"@"), value.count(b",") + 1) for name, value in fields if name in _ADDRESS_FIELDS)
    if addresses > limits.addresses:
        return Refusal(
            "(To, Cc and the other address fields)",
            f"too many recipients: {addresses:,} addresses, at most {limits.addresses:,} are read; "
            "the message was not read",
        )
    multiparts = sum(1 for _ in _MULTIPART.finditer(raw))
    if multiparts > limits.multiparts:
        return Refusal(
            "(the MIME structure of your message)",
            f"it could not be taken apart: {multiparts:,} multipart sections, at most {limits.multiparts:,} "
            "are read; send your commands as plain text",
        )
    lines = raw.count(b"\n") + 1
    if multiparts * lines > limits.nested_lines:
        return Refusal(
            "(the MIME structure of your message)",
            f"it could not be taken apart: {multiparts:,} multipart sections around {lines:,} lines, more "
            "than are read; send your commands as plain text",
        )
    return None


_ATOM = rb"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = rb"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_ADDRESS = _ATOM + rb"(?:\." + _ATOM + rb")*@" + _LABEL + rb"(?:\." + _LABEL + rb")+"
_FROM = linear.compile(
    rb"[ \t]*(?:(" + _ADDRESS + rb")|(?:\"[^\"\\<>@]*\"|[A-Za-z0-9 .'_-]*)[ \t]*<(" + _ADDRESS + rb")>)[ \t]*"
)
_MESSAGE_ID = linear.compile(rb"[ \t]*(<[\x21-\x3b\x3d\x3f-\x7e]{1,250}>)[ \t]*")
_BOUNCE_OR_NOREPLY = frozenset(
    {b"mailer-daemon", b"postmaster", b"mail-daemon", b"mailerdaemon", b"noreply", b"no-reply", b"no_reply",
     b"donotreply", b"do-not-reply", b"do_not_reply", b"bounce", b"bounces"}
)  # fmt: skip
_MAX_FROM = 998
_CHEAP_FIELDS = linear.compile(
    rb"^(from|message-id|auto-submitted|precedence|list-id|list-unsubscribe|feedback-type|return-path)[ \t]*:"
    rb"(.*(?:\n[ \t].*)*)",
    re.IGNORECASE | re.MULTILINE,
)
"""The fields read cheaply, with their continuation lines (``.`` stops at ``\n``)."""


def _cheap_fields(raw: bytes) -> list[tuple[bytes, bytes]]:
    """The fields of :data:`_CHEAP_FIELDS` in the header block of ``raw``, also an oversized one
    (one regular-expression scan: linear in its length)."""
    head = header_block(raw, len(raw))
    assert head is not None
    return [(match.group(1).lower(), match.group(2)) for match in _CHEAP_FIELDS.finditer(head)]


def _unfolded(value: bytes) -> bytes:
    return value.replace(b"\r\n", b"").replace(b"\n", b"").replace(b"\r", b"")


def _one(fields: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    values = [value for field, value in fields if field == name]
    return _unfolded(values[0]) if len(values) == 1 else None


def cheap_sender(raw: bytes, limits: MailLimits, own_addresses: frozenset[str] = frozenset()) -> str | None:
    """The address to answer a mail that is not read (module docstring), lower-cased, or None."""
    fields = _cheap_fields(raw)
    if _automatic(fields):
        return None
    value = _one(fields, b"from")
    if value is None or len(value) > _MAX_FROM or b"=?" in value:
        return None
    if any((byte < 0x20 and byte != 0x09) or byte > 0x7E for byte in value):
        return None  # control characters, or anything but ASCII
    match = _FROM.fullmatch(value)
    if match is None:
        return None
    address = (match.group(1) or match.group(2)).decode("ascii").lower()
    if address.encode().split(b"@")[0] in _BOUNCE_OR_NOREPLY or address in own_addresses:
        return None
    return address


def _automatic(fields: list[tuple[bytes, bytes]]) -> bool:
    """Whether the fields mark the mail as automatic (:mod:`bot.email.policy`, read cheaply)."""
    for name, value in fields:
        text = b" ".join(value.split()).lower()
        if name == b"auto-submitted" and text.split(b";")[0].strip() not in (b"", b"no"):
            return True
        if name == b"precedence" and text in (b"bulk", b"junk", b"list"):
            return True
        if name in (b"list-id", b"list-unsubscribe", b"feedback-type"):
            return True
        if name == b"return-path" and text in (b"<>", b""):
            return True
    return False


def cheap_message_id(raw: bytes, limits: MailLimits) -> str | None:
    """The one Message-ID of ``raw`` when it is a plain ``<...>``, else None."""
    value = _one(_cheap_fields(raw), b"message-id")
    match = _MESSAGE_ID.fullmatch(value) if value is not None else None
    return match.group(1).decode("ascii") if match is not None else None


def raw_digest(raw: bytes) -> str:
    """The inbox's digest of a mail that is not read: the SHA-256 of its bytes."""
    return hashlib.sha256(raw).hexdigest()


def refusal_envelope(
    raw: bytes, source_id: str, received_at: datetime, refusal: Refusal, policy: IntakePolicy, limits: MailLimits
) -> c.Envelope | None:
    """The envelope that answers a mail not read with ``refusal``, or None when its sender cannot
    be read cheaply (:func:`cheap_sender`)."""
    address = cheap_sender(raw, limits, policy.own_addresses)
    if address is None:
        return None
    message_id = cheap_message_id(raw, limits)
    return c.Envelope(
        sender=c.Sender(EMAIL, address, None),
        commands=(c.NotUnderstood(refusal.line, refusal.reason),),
        source_id=source_id,
        received_at=received_at,
        reply_context={
            "subject": "your message",
            "message_id": message_id,
            "references": [message_id] if message_id else [],
        },
        trust=c.Trust.CLAIMED,
    )


def refused(
    raw: bytes, source_id: str, received_at: datetime, refusal: Refusal, policy: IntakePolicy, limits: MailLimits
) -> Understanding:
    """What reading a refused mail gives: the refusal as a reply, or only a record of it."""
    envelope = refusal_envelope(raw, source_id, received_at, refusal, policy, limits)
    summary = f"not read: {refusal.reason.split(';')[0]}"
    if envelope is None:
        return Understanding(None, f"{summary}; its sender could not be read cheaply, so it is not answered", summary)
    return Understanding(envelope, None, summary)
