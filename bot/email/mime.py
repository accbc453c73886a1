"""Taking a raw RFC 5322 message apart: the headers the intake needs and the text to read.

Nothing here raises on bad input.  Whatever could not be read becomes a
:class:`Problem` (quoted back to the player as "not understood"), or an
:class:`Attachment` (listed as ignored).  The text read is the first
``text/plain`` part that is not an attachment, else the first ``text/html``
part converted to text; forwarded messages (``message/rfc822``) are treated
as attachments, not read.
"""

from __future__ import annotations

import codecs
import hashlib
import quopri
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import errors as mail_errors
from email import policy
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesHeaderParser, BytesParser
from typing import Any

from bot.core.basics import linear
from bot.core.basics.free_text import clean_line
from bot.email.htmltext import html_to_text
from bot.email.originator import read_address, read_originator
from bot.email.plainmime import PlainMessage, split_plain

FAST_PATHS = True
"""Whether the fast paths of :mod:`bot.email.plainmime` are taken (tests turn them off to compare)."""

MAX_TEXT_CHARS = 64_000
"""Only this much of the chosen text part is read (the rest is reported as ignored)."""

_STRUCTURE_DEFECTS = (
    mail_errors.NoBoundaryInMultipartDefect,
    mail_errors.StartBoundaryNotFoundDefect,
    mail_errors.MultipartInvariantViolationDefect,
    mail_errors.MissingHeaderBodySeparatorDefect,
    mail_errors.InvalidBase64CharactersDefect,
    mail_errors.InvalidBase64LengthDefect,
)


@dataclass(frozen=True)
class Problem:
    """Something in the message that could not be read: what to quote, and why."""

    line: str
    reason: str


@dataclass(frozen=True)
class Attachment:
    """A part that is not read: its name, type and (approximate, decoded) size."""

    filename: str | None
    content_type: str
    size: int

    def describe(self) -> str:
        name = f"'{self.filename}' " if self.filename else ""
        if self.content_type == "message/rfc822":
            return f"forwarded message {name}({describe_size(self.size)}): forwarded messages are not read"
        return f"attachment {name}({self.content_type}, {describe_size(self.size)}): attachments are not read"


@dataclass(frozen=True)
class MailText:
    """What the intake needs from one message."""

    size: int
    headers: dict[str, str] = field(default_factory=dict)
    """Lower-case name -> first value (decoded), for the loop and bounce policy."""
    message_id: str | None = None
    subject: str = ""
    """Decoded, as free text of one line (:func:`bot.core.basics.free_text.clean_line`): it is read, and
    a reply quotes it."""
    from_address: str | None = None
    """The sender, read strictly from the raw From field (:mod:`bot.email.originator`); when
    :attr:`from_problem` is set, only the one address a reply may go to (or None)."""
    from_name: str | None = None
    from_problem: str | None = None
    """Why the From field is not verifiable (nothing in the mail is acted upon), or None."""
    return_path: str | None = None
    """The envelope sender from ``Return-Path``: None when absent, "" for the null sender ``<>``.
    It tells a bounce from a person's mail, and vouches for nobody (:mod:`bot.email.policy`)."""
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    content_type: str = "text/plain"
    text: str = ""
    text_kind: str | None = None
    """"plain" or "html" (converted) for the part read; None when no text part was found."""
    truncated_chars: int = 0
    problems: tuple[Problem, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    too_large: bool = False
    authentication_results: tuple[str, ...] = ()
    """Every ``Authentication-Results`` header (RFC 8601), in order: see :mod:`bot.email.policy`."""


def describe_size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    if size >= 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size} bytes"


def message_id_of(raw: bytes, parsed: Message | None = None) -> str | None:
    """The Message-ID of ``raw`` (headers only are parsed), or None.

    ``parsed``: ``raw`` already parsed by :func:`parse_plain` (its headers are the ones a
    header parse would find: the same policy reads the same lines), so it is not parsed again.
    """
    if isinstance(parsed, PlainMessage):
        value: object = parsed.first("message-id")
        return None if value is None else _first_id(_without_nul(str(value)))
    try:
        headers = parsed if parsed is not None else BytesHeaderParser(policy=policy.compat32).parsebytes(raw)
        value = headers.get("Message-ID")
    except Exception:  # the stdlib parser is lenient; this guards the odd crash on garbage
        return None
    if value is None:
        return None
    return _first_id(_without_nul(str(value)))  # it is stored: PostgreSQL takes no NUL


_DIGEST_HEADERS = ("message-id", "from", "sender", "to", "cc", "date", "subject", "in-reply-to", "references")
"""What the sender wrote (not what the servers on the way added): the content a digest covers."""


def content_digest(raw: bytes, parsed: Message | None = None) -> str:
    """SHA-256 of the Message-ID, the originator headers and the body of ``raw``.

    Trace fields (Received, Return-Path, Delivered-To, Authentication-Results, ...) are left out,
    so the same mail delivered twice, by two routes, has one digest; a different mail that reuses
    an old Message-ID has another.  Line endings are normalised; nothing here raises.
    ``parsed``: ``raw`` already parsed by :func:`parse_plain`, whose headers are read instead of
    parsing them again (the same values: line endings and folding are normalised below).
    """
    text = raw.replace(b"\r\n", b"\n")
    head, _, body = text.partition(b"\n\n")
    digest = hashlib.sha256()
    found = False
    try:
        headers = parsed if parsed is not None else BytesHeaderParser(policy=policy.compat32).parsebytes(head + b"\n\n")
        for name in _DIGEST_HEADERS:
            values = parsed.by_name.get(name) if isinstance(parsed, PlainMessage) else headers.get_all(name)
            for value in values or ():
                found = True
                digest.update(name.encode() + b":" + " ".join(str(value).split()).encode("utf-8", "replace") + b"\n")
    except Exception:  # garbage headers: the whole head stands for them (below)
        found = False
    if not found:
        digest.update(head)
    digest.update(b"\n")
    digest.update(body)
    return digest.hexdigest()


def _too_large(raw: bytes, max_bytes: int, server_size: int | None) -> bool:
    return len(raw) >= max_bytes or (server_size or 0) >= max_bytes


def parse_plain(raw: bytes, max_bytes: int, server_size: int | None = None) -> Message | None:
    """``raw`` parsed whole as :func:`read_mail` would parse it, when that is with the compat32
    policy (plain mail, below ``max_bytes``: nearly all), else None (or if the parser raises).

    An intake parses each mail once with it and hands the result to :func:`message_id_of`,
    :func:`content_digest` and :func:`read_mail` (``parsed=``): one parse, not three.  The
    message must not be changed by whoever uses it.  A mail of the simple shape (one part, an
    ASCII header block: :func:`bot.email.plainmime.split_plain`) is taken apart without the feed
    parser, as a :class:`~bot.email.plainmime.PlainMessage` whose fields those three read directly.
    """
    if _too_large(raw, max_bytes, server_size) or not _plain_structure(raw):
        return None
    if FAST_PATHS:
        simple = split_plain(raw)
        if simple is not None:
            return simple
    try:
        return BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception:  # pragma: no cover - the stdlib parser does not raise on bad input in practice
        return None


def read_mail(raw: bytes, max_bytes: int, server_size: int | None = None, parsed: Message | None = None) -> MailText:
    """Take ``raw`` apart; a message of ``max_bytes`` or more is not read past its headers.

    ``server_size`` is the size the server reported, when ``raw`` was cut at ``max_bytes``;
    ``parsed``: ``raw`` parsed by :func:`parse_plain` with the same ``max_bytes`` and
    ``server_size`` (not parsed again).
    """
    too_large = _too_large(raw, max_bytes, server_size)
    # The compat32 policy parses about ten times faster than the modern one (which builds a header
    # object for every Content-Type it meets on the way), and reads a plain MIME structure the same
    # way (_plain_structure); anything else is parsed with the modern policy, as it always was.
    # Headers are decoded one by one either way (_header_text).
    if parsed is not None and not too_large:
        message = parsed
    else:
        chosen = policy.compat32 if _plain_structure(raw) else policy.default
        parser = BytesHeaderParser(policy=chosen) if too_large else BytesParser(policy=chosen)
        try:
            message = parser.parsebytes(raw)
        except Exception as exc:  # pragma: no cover - the stdlib parser does not raise on bad input in practice
            return MailText(len(raw), problems=(Problem("(the whole message)", f"it could not be parsed: {exc}"),))
    headers = _headers(message)
    originator = read_originator([_unescaped(value) for value in _raw_values(message, "from")])
    content_type = _content_type(message)
    body = {} if too_large else _body(content_type, message)
    return MailText(
        size=max(len(raw), server_size or 0),
        headers=headers,
        message_id=_first_id(headers.get("message-id", "")),
        subject=" ".join(clean_line(headers.get("subject", "")).split()),  # read, and quoted back in the reply
        from_address=originator.address,
        from_name=originator.name,
        from_problem=originator.problem,
        return_path=_return_path(_raw_values(message, "return-path")),
        in_reply_to=_first_id(headers.get("in-reply-to", "")),
        references=tuple(_message_ids(headers.get("references", ""))),
        content_type=content_type,
        too_large=too_large,
        authentication_results=tuple(
            " ".join(_unescaped(v)[:MAX_HEADER_CHARS].split())
            for v in _raw_values(message, "authentication-results")[:MAX_AUTH_RESULTS]
        ),
        **body,
    )


_TOKEN = rb"[A-Za-z0-9!#$%&'+.^_`{|}~-]+"
_QUOTED = rb'"(?:[^"\\\x00-\x1f\x7f-\xff=]|=+[^"\\\x00-\x1f\x7f-\xff=?])*=*"'
_PARAMS = rb"(?:\s*;\s*[A-Za-z0-9._-]+\s*=\s*(?:" + _TOKEN + rb"|" + _QUOTED + rb"))*\s*;?\s*"
_PLAIN_FIELD = {
    b"content-type": linear.compile(rb"\s*" + _TOKEN + rb"/" + _TOKEN + _PARAMS),
    b"content-disposition": linear.compile(rb"\s*" + _TOKEN + _PARAMS),
    b"content-transfer-encoding": linear.compile(rb"\s*" + _TOKEN + rb"\s*"),
}
_MIME_FIELD = linear.compile(
    rb"^(content-type|content-disposition|content-transfer-encoding)[ \t]*:(.*(?:\r?\n[ \t].*)*)", re.I | re.M
)


def _plain_structure(raw: bytes) -> bool:
    """Whether every MIME field in ``raw`` (Content-Type, -Disposition, -Transfer-Encoding, in any
    part, or any line of the body shaped like one) is plain: ASCII, a type and ``name=value``
    parameters without RFC 2231 or RFC 2047 forms.  The compat32 and modern email policies read
    such a message alike (the modern one reads its legacy accessors on its own rendering of the
    field, and renders a plain field as it is)."""
    for match in _MIME_FIELD.finditer(raw):
        pattern = _PLAIN_FIELD[match.group(1).lower()]
        if not pattern.fullmatch(match.group(2).replace(b"\r", b"").replace(b"\n", b"")):
            return False
    return True


POLICY_HEADERS = frozenset({
    "message-id", "subject", "in-reply-to", "references", "auto-submitted", "precedence", "list-id",
    "list-unsubscribe", "feedback-type", "x-autoreply", "x-autorespond", "x-autoresponder",
    "x-auto-response-suppress", "x-ms-exchange-generated-message-source",
})  # fmt: skip
"""The headers :attr:`MailText.headers` holds: those the intake and the loop policy read.  No
address list (To, Cc, ...) is ever parsed: From, Sender and Return-Path are read strictly, one
address each (:mod:`bot.email.originator`), so a mail's cost does not grow with its recipients."""
MAX_HEADER_CHARS = 16_000
"""Only this much of one header value is decoded (a Subject or References needs far less)."""
MAX_AUTH_RESULTS = 50
"""Only the first (topmost) this many Authentication-Results fields are kept."""


def _headers(message: Message) -> dict[str, str]:
    """The first value of each of :data:`POLICY_HEADERS`, decoded (a bounded length of it)."""
    found: dict[str, str] = {}
    for name, value in message.raw_items():
        key = name.lower()
        if key in POLICY_HEADERS and key not in found:
            found[key] = _without_nul(_header_text(name, str(value)[:MAX_HEADER_CHARS]))
    return found


def _raw_values(message: Message, name: str) -> list[str]:
    """Every value of the field ``name`` (lower case) as it arrived: not decoded, only as the parser split it."""
    if isinstance(message, PlainMessage):
        return list(message.by_name.get(name, ()))
    return [str(value) for key, value in message.raw_items() if key.lower() == name]


def _unescaped(text: str) -> str:
    """``text`` with the raw 8-bit bytes the parser kept as surrogates read as UTF-8 (unreadable
    ones replaced); control characters, NUL included, are kept for the strict reader to refuse."""
    if text.isascii():
        return text
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", "replace")


def _header_text(name: str, text: str) -> str:
    """The decoded header value (as the modern policy decodes it); RFC 2047 words in unknown
    charsets are kept as they are.  Only unstructured headers and message ids come here, never
    an address (:data:`POLICY_HEADERS`).

    A value in plain ASCII without encoded words (nearly every header) needs no parser: it is
    only unfolded.  Anything else goes through the modern policy's parser for that header.
    """
    if text.isascii() and "=?" not in text:
        return " ".join(text.split())
    try:
        return " ".join(str(policy.default.header_fetch_parse(name, text)).split())
    except Exception:  # a malformed header can make the modern policy's parser raise; fall back
        pass
    try:
        return " ".join(str(make_header(decode_header(text))).split())
    except (LookupError, UnicodeError, ValueError, mail_errors.HeaderParseError):
        return " ".join(text.split())


def _return_path(values: list[str]) -> str | None:
    """The envelope sender from the topmost ``Return-Path`` (the delivering server's): None when
    absent, "" for the null sender ``<>`` or a value that is not one plain address."""
    if not values:
        return None
    address = read_address(_unescaped(values[0]))
    return address or ""


def _message_ids(value: str) -> list[str]:
    ids: list[str] = []
    for token in value.replace(">", "> ").split():
        token = token.strip(",")
        if token.startswith("<") and token.endswith(">") and "@" in token and len(token) > 3:
            ids.append(token)
    if not ids and value.strip() and "@" in value and " " not in value.strip():
        ids.append(f"<{value.strip().strip('<>')}>")
    return ids


def _first_id(value: str) -> str | None:
    ids = _message_ids(value)
    return ids[0] if ids else None


def _content_type(message: Message) -> str:
    if isinstance(message, PlainMessage):
        return message.content_type
    try:
        return _without_nul(message.get_content_type())
    except Exception:  # pragma: no cover
        return "text/plain"


def _body(content_type: str, message: Message) -> dict[str, Any]:
    """The :class:`MailText` fields read from the body of ``message`` (whose type is ``content_type``)."""
    problems: list[Problem] = []
    attachments: list[Attachment] = []
    plain: list[Message] = []
    html: list[Message] = []
    broken = False
    for part in _leaves(message):
        broken = broken or any(isinstance(d, _STRUCTURE_DEFECTS) for d in part.defects)
        kind = _content_type(part)
        disposition = _disposition(part)
        if kind in ("text/plain", "text/html") and disposition != "attachment" and not _filename(part):
            (plain if kind == "text/plain" else html).append(part)
        elif not kind.startswith("multipart/"):
            attachments.append(Attachment(_filename(part), kind, _payload_size(part)))
    broken = broken or any(isinstance(d, _STRUCTURE_DEFECTS) for d in message.defects)
    chosen, kind_read = (plain[0], "plain") if plain else (html[0], "html") if html else (None, None)
    text = ""
    if chosen is not None:
        text, charset_problem = _decode(chosen)
        text = _without_nul(text)
        if charset_problem is not None:
            problems.append(charset_problem)
        broken = broken or any(isinstance(d, _STRUCTURE_DEFECTS) for d in chosen.defects)  # found while decoding
        if kind_read == "html":
            text = html_to_text(text)
    if broken:
        problems.append(
            Problem(
                f"Content-Type: {content_type}",
                "the message is damaged (its MIME structure or encoding); only what could be read is below"
                if chosen is not None
                else "the message is damaged (its MIME structure or encoding) and no text could be read: "
                "send plain text",
            )
        )
    elif chosen is None:
        problems.append(
            Problem(f"Content-Type: {content_type}", "no text part was found: send your commands as plain text")
        )
    truncated = max(0, len(text) - MAX_TEXT_CHARS)
    return {
        "text": text[:MAX_TEXT_CHARS], "text_kind": kind_read, "truncated_chars": truncated,
        "problems": tuple(problems), "attachments": tuple(attachments),
    }  # fmt: skip


def shown_texts(message: Message) -> Iterator[str]:
    """Every text ``message`` shows once decoded, whatever its encodings: each header value of each part
    (RFC 2047 words decoded; a forwarded message's too) and the content of each text part, attachments
    included (its transfer encoding undone, its charset applied, HTML also as text); an image or any other
    part that is not text is not read as text.  What :mod:`bot.email.redact` checks a stored mail by."""
    for part in message.walk():
        for name, value in part.items():
            yield _header_text(name, _unescaped(str(value)))
        if part.is_multipart() or not _content_type(part).startswith("text/"):
            continue
        text = _without_nul(_decode(part)[0])
        yield text
        if _content_type(part) == "text/html":
            yield html_to_text(text)


def _leaves(message: Message) -> Iterator[Message]:
    """Every non-multipart part, depth first; a forwarded message is one leaf (not opened)."""
    if message.is_multipart() and _content_type(message).startswith("multipart/"):
        payload = message.get_payload()
        if isinstance(payload, list):
            for part in payload:
                if isinstance(part, Message):
                    yield from _leaves(part)
            return
    yield message


def _disposition(part: Message) -> str | None:
    if isinstance(part, PlainMessage) and part.simple_text is not None:
        return None  # a simple text part has no Content-Disposition
    try:
        return part.get_content_disposition()
    except Exception:  # pragma: no cover
        return None


def _filename(part: Message) -> str | None:
    if isinstance(part, PlainMessage) and part.simple_text is not None:
        return None  # no Content-Disposition, no name parameter
    try:
        name = part.get_filename()
    except Exception:
        return "(unreadable name)"
    return _without_nul(" ".join(name.split())) if name else None


def _payload_size(part: Message) -> int:
    """The size of ``part``'s content in bytes, as sent (base64 counted decoded)."""
    try:
        payload = part.get_payload()
    except (LookupError, UnicodeError):  # 8-bit bytes under a charset that cannot decode them (idna, ...)
        decoded = part.get_payload(decode=True)
        return len(decoded) if isinstance(decoded, bytes) else 0
    if isinstance(payload, list):
        return sum(_payload_size(p) for p in payload if isinstance(p, Message))
    if not isinstance(payload, str):
        return 0
    encoding = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
    if encoding == "base64":
        return len("".join(payload.split())) * 3 // 4
    return len(payload)


def _decode(part: Message) -> tuple[str, Problem | None]:
    """The text of ``part``; an unknown or wrong charset is read as UTF-8 (or Latin-1) and reported."""
    simple = _simple_payload(part)
    if simple is not None:
        payload, declared = simple
        charset = (declared or "us-ascii").strip().strip('"') or "us-ascii"
    else:
        payload, charset = _payload_and_charset(part)
    charset = _without_nul(charset)
    try:
        codec: str | None = codecs.lookup(charset).name
    except (LookupError, ValueError):  # unknown, or a name no codec can have (a NUL in it)
        codec = None
    if codec is not None:
        try:
            return payload.decode(codec), None
        except UnicodeError:  # UnicodeDecodeError, or the plain UnicodeError of codecs such as idna and punycode
            if codec == "ascii":
                # 8-bit text labelled ASCII is common and harmless: take it as UTF-8 (or Latin-1).
                return _best_effort(payload)[0], None
            return _replaced(payload, codec), Problem(
                f"charset={charset}", "the text is not valid in its character set; unreadable characters were replaced"
            )
        except LookupError:  # a codec that is no character set: base64, zlib, rot13 (bytes to bytes)
            pass
    text, fallback = _best_effort(payload)
    return text, Problem(f"charset={charset}", f"unknown character set; the text was read as {fallback}")


def _simple_payload(part: Message) -> tuple[bytes, str | None] | None:
    """The decoded payload and charset of a simple text part (:class:`PlainMessage`), as
    ``get_payload(decode=True)`` and ``get_content_charset()`` give them; None for any other part."""
    if not isinstance(part, PlainMessage) or part.simple_text is None:
        return None
    encoding = (part.first("content-transfer-encoding") or "").lower()
    if encoding == "quoted-printable":
        return quopri.decodestring(part.body), part.simple_text.charset
    if encoding in ("base64", "x-uuencode", "uuencode", "uue", "x-uue"):
        return None
    return part.body, part.simple_text.charset


def _payload_and_charset(part: Message) -> tuple[bytes, str]:
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # pragma: no cover - decode=True is documented not to raise
        payload = None
    if not isinstance(payload, bytes):
        raw = part.get_payload()
        payload = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else b""
    try:
        charset = (part.get_content_charset() or "us-ascii").strip().strip('"') or "us-ascii"
    except Exception:  # an RFC 2231 parameter in a charset nobody knows
        charset = "unknown"
    return payload, charset


def _replaced(payload: bytes, codec: str) -> str:
    """``payload`` in ``codec`` with unreadable characters replaced (UTF-8 or Latin-1 for a codec
    that cannot replace, such as idna)."""
    try:
        return payload.decode(codec, "replace")
    except UnicodeError:
        return _best_effort(payload)[0]


def _without_nul(text: str) -> str:
    """``text`` with each NUL replaced by U+FFFD: PostgreSQL cannot store a NUL in a text column,
    and a message whose reply quotes one would fail on every attempt (found by tests/email/fuzz).

    Raw 8-bit bytes the parser kept as surrogates are read as UTF-8 (unreadable ones replaced),
    as the modern email policy reads them: a surrogate cannot be stored or sent.
    """
    if not text.isascii():
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = text.encode("utf-8", "surrogatepass")
        text = data.decode("utf-8", "replace")
    return text.replace("\x00", "\ufffd")


def _best_effort(payload: bytes) -> tuple[str, str]:
    try:
        return payload.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        return payload.decode("latin-1"), "Latin-1"
