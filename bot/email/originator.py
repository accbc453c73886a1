"""Who sent a mail: the one address of its raw From field, read strictly.

The address is taken from the field as it arrived (unfolded, never decoded),
so what the referee believes is what the MTA, SPF, DKIM, DMARC and every mail
client see.  The structure is read by the standard library's RFC 5322 parser
(:mod:`email._header_value_parser`); the address it finds must then appear,
as a plain ``local@domain`` of ASCII atoms and LDH labels, in the raw text
itself: an address the parser found only by decoding an RFC 2047 encoded word
(``=?utf-8?q?ann?=@example.org``) is refused.  Encoded words are decoded for
the display name only, and the name is cleaned as every free text is (no
control, bidi or format character); it is never read for an address.

A From field is **not verifiable** (:attr:`Originator.problem` says why) when

* there is none, or more than one From field;
* it names more than one address, or a group;
* it holds a control character (CR, LF, NUL, ... once folding is undone);
* its address is not a plain ``local@domain`` in the raw text (an encoded word,
  a quoted or routed address, a domain literal), or it cannot be parsed;
* it is longer than :data:`MAX_FIELD_CHARS` (nothing longer is parsed).

For such a field :attr:`Originator.address` is the address to answer only
when one plain ``<local@domain>`` stands alone in the raw field (so there is
exactly one place a reply could go), else None; nothing in such a mail is
acted upon (:mod:`bot.email.understand`).  Reading is linear in the field's
length, and the field is bounded first.
"""

from __future__ import annotations

from dataclasses import dataclass
from email import _header_value_parser as rfc5322

from bot.core.basics import linear
from bot.core.basics.free_text import clean_line

MAX_FIELD_CHARS = 2048
"""A From, Sender or Return-Path field longer than this is not parsed (one address needs far less)."""
MAX_NAME_CHARS = 100
"""The display name is cut to this length."""

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_ADDR_SPEC = linear.compile(rf"{_ATEXT}+(?:\.{_ATEXT}+)*@{_LABEL}(?:\.{_LABEL})+")
"""A plain addr-spec: a dot-atom local part and a domain of LDH labels (no quoted, routed or literal forms)."""
_FOLD = linear.compile(r"\r?\n([ \t])")
_CONTROL = linear.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_COMMENT = linear.compile(r"\([^()\\]*\)")
_ANGLE = linear.compile(r"<([^<>]*)>")


@dataclass(frozen=True)
class Originator:
    """What the From field says: the address, the display name, and why it is not verifiable (or None)."""

    address: str | None
    """The sender's address (lower case); for a field that is not verifiable, the one address a
    reply may go to, or None."""
    name: str | None = None
    """The display name, decoded, without control characters (for greetings only)."""
    problem: str | None = None
    """Why the field is not verifiable; None when :attr:`address` is the verified sender."""


def read_originator(values: list[str]) -> Originator:
    """The sender named by the raw From field values ``values`` (every From field, in order)."""
    if not values:
        return Originator(None, None, "the message has no From field")
    if len(values) > 1:
        return Originator(None, None, "the message has more than one From field")
    raw = values[0]
    if len(raw) > MAX_FIELD_CHARS:
        return Originator(None, None, f"the From field is longer than {MAX_FIELD_CHARS} characters")
    text = _FOLD.sub(r"\1", raw).strip()
    fallback = _lone_angle_address(text)
    if _CONTROL.search(text):
        return Originator(fallback, None, "the From field holds control characters")
    try:
        parsed, rest = rfc5322.get_address_list(text)
        mailboxes = list(parsed.all_mailboxes)
        groups = any(address[0].token_type == "group" for address in parsed.addresses)
    except Exception:  # the parser raises HeaderParseError and, on odd input, the occasional IndexError
        return Originator(fallback, None, "the From field could not be read")
    if len(mailboxes) > 1 or groups:
        return Originator(None, None, "the From field names more than one address, or a group")
    if rest or len(mailboxes) != 1 or mailboxes[0].token_type != "mailbox":
        return Originator(fallback, None, "the From field could not be read")
    mailbox = mailboxes[0]
    written = _written_address(text)
    found = f"{mailbox.local_part}@{mailbox.domain}"
    if written is None or "=?" in written or written.lower() != found.lower():
        return Originator(
            fallback, None, "the address in the From field is not a plain address (an encoded word or a quoted form)"
        )
    return Originator(written.lower(), clean_name(mailbox.display_name))


def read_address(raw: str | None) -> str | None:
    """The one plain address of a Sender or Return-Path field (``a@b`` or ``<a@b>``), lower case;
    "" for the null path ``<>``; None when absent or not one plain address."""
    if raw is None:
        return None
    text = _FOLD.sub(r"\1", raw).strip()
    if len(text) > MAX_FIELD_CHARS or _CONTROL.search(text):
        return None
    if text in ("", "<>"):
        return ""
    written = _written_address(text)
    if written is None or "=?" in written:
        return None
    return written.lower()


def clean_name(name: str | None) -> str | None:
    """``name`` as free text of one line (:func:`bot.core.basics.free_text.clean_line`: no control, bidi or
    other invisible format character), its white space collapsed, cut to :data:`MAX_NAME_CHARS`."""
    if not name:
        return None
    cleaned = " ".join(clean_line(name).split())[:MAX_NAME_CHARS]
    return cleaned or None


def _written_address(text: str) -> str | None:
    """The addr-spec as it is written in ``text``: the content of the final ``<...>`` (which must end
    the field), or the whole field less comments; None when that is not a plain addr-spec."""
    if text.endswith(">"):
        start = text.rfind("<")
        candidate = text[start + 1 : -1].strip() if start >= 0 else ""
    elif "<" in text or ">" in text:
        return None
    else:
        candidate = _COMMENT.sub(" ", text).strip()
    return candidate if _ADDR_SPEC.fullmatch(candidate) else None


def _lone_angle_address(text: str) -> str | None:
    """The address of a field holding exactly one ``<...>``, when it is a plain addr-spec; else None."""
    if text.count("<") != 1 or text.count(">") != 1:
        return None
    match = _ANGLE.search(text)
    if match is None:
        return None
    candidate = match.group(1).strip()
    if "=?" in candidate or not _ADDR_SPEC.fullmatch(candidate):
        return None
    return candidate.lower()
