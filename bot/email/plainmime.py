"""Fast paths of :mod:`bot.email.mime` for the common, simple shape of a mail.

Nearly every mail the referee reads is one ``text/plain`` part with a few ASCII headers.  The
email package reads such a mail through its general machinery (a feed parser a line at a time,
an address parser a character at a time, a parameter parser per lookup), which costs most of the
time the bot spends reading a mail.  Each function here recognises exactly a simple shape and
gives what the email package gives for it; for anything else it answers None and the caller takes
the email package's path, as before.  ``tests/email/test_fast_paths.py`` runs both paths over the
corpus and the fuzzers' generated mails and checks that the results are the same.

* :func:`split_plain`: a :class:`PlainMessage` (a compat32 :class:`~email.message.Message` with
  the headers and payload the feed parser would have set) for a mail whose header block is
  ASCII, every line of it a ``Name: value`` field or a folded continuation, ended by an empty
  line, and whose Content-Type is neither ``multipart/*`` nor ``message/*``;
* :attr:`PlainMessage.simple_text`: the content type and charset of a Content-Type field of
  the form ``type/subtype; name=value; ...`` (tokens, or quoted strings without ``"``, ``\\``,
  ``;`` or white space), with no ``name`` parameter and no Content-Disposition field.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import Message
from email.policy import compat32

from bot.core.basics import linear

_FIELD = linear.compile(r"[\x21-\x39\x3b-\x7e]+:")
"""The start of a header line as the feed parser reads one (its ``headerRE``, without ``From ``)."""
_BAD_HEAD = linear.compile(r"[^\t\n\r\x20-\x7e]|\r(?:[^\n]|\z)")
"""What a simple header block has not: anything but printable ASCII, tab and line ends; a lone CR
(the feed parser ends a line there)."""


@dataclass(frozen=True)
class SimpleText:
    """What a simple Content-Type field says (see the module docstring)."""

    content_type: str
    """As :meth:`email.message.Message.get_content_type` reads it."""
    charset: str | None
    """As :meth:`email.message.Message.get_content_charset` reads it (None: no parameter)."""


class PlainMessage(Message):
    """A compat32 message built by :func:`split_plain`, with what the readers look up indexed.

    It is a whole :class:`~email.message.Message` (its headers and payload are those the feed
    parser would have set), so whatever reads it as one reads the same; it must not be changed.
    """

    def __init__(self, fields: list[tuple[str, str]], body: bytes) -> None:
        super().__init__(policy=compat32)
        values: dict[str, list[str]] = {}
        for name, value in fields:
            self.set_raw(name, value)
            values.setdefault(name.lower(), []).append(value)
        self.set_payload(body.decode("ascii", "surrogateescape"))
        self.body = body
        """The payload's bytes (what ``get_payload(decode=True)`` starts from)."""
        self.by_name = values
        """Lower-case field name -> its values, in order (what ``get_all`` gives: the head is ASCII)."""
        self.content_type = _content_type(values.get("content-type", [None])[0])
        """As :meth:`~email.message.Message.get_content_type` reads it."""
        self.simple_text = _simple_text(values) if self.content_type == "text/plain" else None
        """The Content-Type of a simple text/plain part, else None (the Message's methods read it)."""

    def first(self, name: str) -> str | None:
        """The first value of the (lower-case) field ``name``, as ``get`` gives it; None if absent."""
        found = self.by_name.get(name)
        return found[0] if found else None


def split_plain(raw: bytes) -> PlainMessage | None:
    """``raw`` as the compat32 feed parser reads it, when it has the simple shape (module docstring)."""
    head_end = -1
    for separator in (b"\n\n", b"\n\r\n"):
        found = raw.find(separator)
        if found >= 0 and (head_end < 0 or found < head_end):
            head_end, body_start = found + 1, found + len(separator)
    if head_end <= 0:
        return None
    head = raw[:head_end].decode("ascii", "replace")  # not ASCII: U+FFFD, refused below
    if _BAD_HEAD.search(head) is not None:
        return None
    fields: list[tuple[str, str]] = []
    lines: list[str] = []
    for line in head.splitlines(keepends=True):
        if line[0] in " \t":
            if not lines:
                return None  # the first line is a continuation
            lines.append(line)
            continue
        if _FIELD.match(line) is None:
            return None  # "From " (an mbox line), or not a field: the feed parser ends the head there
        if lines:
            fields.append(_field(lines))
        lines = [line]
    fields.append(_field(lines))
    message = PlainMessage(fields, raw[body_start:])
    if message.content_type.startswith(("multipart/", "message/")):
        return None
    return message


def _field(lines: list[str]) -> tuple[str, str]:
    """compat32's ``header_source_parse``."""
    name, value = lines[0].split(":", 1)
    value = value.lstrip(" \t") + "".join(lines[1:])
    return name, value.rstrip("\r\n")


def _content_type(value: str | None) -> str:
    """:meth:`~email.message.Message.get_content_type` of a message whose first Content-Type is ``value``."""
    if value is None:
        return "text/plain"
    kind = value.partition(";")[0].strip().lower()
    return kind if kind.count("/") == 1 else "text/plain"


_TOKEN = r"[A-Za-z0-9!#$%&'+.^_`{|}~-]+"
_WS = r"[ \t\r\n]*"
_PARAMETER = linear.compile(rf';{_WS}([A-Za-z0-9_.-]+){_WS}={_WS}({_TOKEN}|"[^"\\;\s]*"){_WS}')
_SIMPLE_TYPE = linear.compile(
    rf'{_WS}{_TOKEN}/{_TOKEN}{_WS}((?:;{_WS}[A-Za-z0-9_.-]+{_WS}={_WS}(?:{_TOKEN}|"[^"\\;\s]*"){_WS})*)(?:;{_WS})?'
)


def _simple_text(values: dict[str, list[str]]) -> SimpleText | None:
    if "content-disposition" in values:
        return None
    kinds = values.get("content-type")
    if kinds is None:
        return SimpleText("text/plain", None)
    match = _SIMPLE_TYPE.fullmatch(kinds[0])
    if match is None:
        return None
    charset: str | None = None
    for parameter in _PARAMETER.finditer(match.group(1)):
        name = parameter.group(1).lower()
        if name == "name":
            return None  # a file name: read by the Message's methods
        if name == "charset" and charset is None:
            value = parameter.group(2)
            charset = (value[1:-1] if value.startswith('"') else value).lower()
    return SimpleText("text/plain", charset)
