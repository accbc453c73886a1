"""What the inbox keeps of a processed mail: its raw bytes without the secrets it carried.

A mail gives a seat or GM password (a ``PASSWORD`` line, in the subject or
the body) or a link code (``LINK CODE ...``); once the mail is processed the
secret has done its work, and the stored copy (kept a while for support and
replay, ``inbound_raw_retention_days``) must not hold it.  :func:`redact_mail`
masks, byte for byte with ``*`` (the mail keeps its shape and size):

* what follows ``PASSWORD`` or ``LINK CODE`` to the end of its line;
* every word shaped like a seat secret (``amber-raven-4821``), wherever it is
  (a quoted reply, a signature);
* each secret the reading found (``secrets``), wherever it occurs, in any case.

That is complete only where the text is in the bytes as it was read.  In a
mail that carries a secret, an encoded word in a header (``=?utf-8?b?...?=``)
is masked whole, and a mail with an *encoded* part keeps its header block and
loses its body (replaced by a note saying why): a part in any transfer
encoding but ``7bit``, ``8bit`` and ``binary`` (base64, quoted-printable,
uuencode and its spellings, or one nobody knows), where a secret may be
encoded or split by a soft line break, or in a character set whose bytes are
not ASCII where the text is (UTF-16, UTF-7, EBCDIC...).

What is kept is then checked as a reader would see it: a mail with an encoded
part or an HTML one is decoded, every part of it, forwarded messages
included (:func:`bot.email.mime.shown_texts`), and if any text still shows a
``PASSWORD`` or ``LINK CODE`` line, a word shaped like a secret or a secret
the reading found, its body is not kept either.  So a secret the reading did
not find (in a part it did not read) is not kept in an encoded part any more
than in a plain one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from email import policy
from email.parser import BytesParser

from bot.core.basics import linear
from bot.email.mime import shown_texts

MASK = b"*"
BODY_REMOVED = b"(the body of this mail is not kept: it held a password or a code in an encoded part)\r\n"

_KEYWORD = r"\b(?:password|link[ \t]+code)\b[ \t]*[:=]?[ \t]*([^\r\n]*)"
_SHAPE = r"\b[a-z]+-[a-z]+-\d{4}\b"
_AFTER_KEYWORD = linear.compile(_KEYWORD.encode())
_SECRET_SHAPE = linear.compile(_SHAPE.encode())
_SHAPE_TAIL = linear.compile(rb"-\d{4}")
"""What every seat secret has: a cheap look before :data:`_SECRET_SHAPE` (most mail has none)."""
_TRANSFER_ENCODING = linear.compile(rb"^content-transfer-encoding[ \t]*:([^\r\n]*)", re.IGNORECASE | re.MULTILINE)
_BYTES_ARE_TEXT = linear.compile(rb"[ \t]*(?:7bit|8bit|binary)[ \t]*", re.IGNORECASE)
"""A part whose transfer encoding is not one of these has bytes that are not its text (a folded or odd
value counts as such)."""
_CHARSET = linear.compile(rb"\bcharset\*?[ \t]*=[ \t]*\"?([^\s;\"]*)", re.IGNORECASE)
_ASCII_WHERE_TEXT_IS = linear.compile(
    rb"(?:us-)?ascii|utf-?8|iso[-_]?8859[-_]?\d{1,2}|latin[-_]?\d|(?:windows|cp)-?125\d", re.IGNORECASE
)
"""Character sets whose bytes are the ASCII of their text wherever the text is ASCII (every other one, and a
charset nobody knows, may write ``PASSWORD`` in other bytes)."""
_HTML = linear.compile(rb"text/html", re.IGNORECASE)
_SHOWN_KEYWORD = linear.compile(_KEYWORD, re.ASCII)
_SHOWN_SHAPE = linear.compile(_SHAPE, re.ASCII)
_ENCODED_WORD = linear.compile(rb"=\?[^?\s]+\?[bq]\?[^?\s]*\?=", re.IGNORECASE)
_END_OF_HEADERS = linear.compile(rb"\r?\n\r?\n")


def redact_mail(raw: bytes, secrets: Iterable[str] = ()) -> bytes | None:
    """``raw`` with its secrets masked (see the module docstring); None when it shows none to mask
    and the reading found none (the stored copy stays as it is)."""
    named = [secret.strip() for secret in secrets if secret and secret.strip()]
    found = [secret.encode("utf-8", "replace") for secret in named]
    spans = _spans(raw, found)
    encoded = _encoded(raw)
    decoded = encoded or _HTML.search(raw) is not None  # what a reader sees is not the bytes: checked decoded
    if not spans and not found and not decoded:
        return None
    masked = bytearray(raw)
    for start, end in spans:
        masked[start:end] = MASK * (end - start)
    headers = _END_OF_HEADERS.search(bytes(masked))
    cut = len(masked) if headers is None else headers.end()
    carries = bool(spans or found)
    drop = headers is not None and ((carries and encoded) or (decoded and _still_shows(bytes(masked), named)))
    head = bytes(masked[:cut])
    if carries or drop:
        head = _ENCODED_WORD.sub(lambda word: MASK * len(word.group()), head)
    kept = head + (BODY_REMOVED if drop else bytes(masked[cut:]))
    return None if kept == raw else kept


def _encoded(raw: bytes) -> bool:
    """Whether a part of ``raw`` may hold text in other bytes than its own: a transfer encoding, or a
    character set that does not write ASCII as ASCII."""
    if any(not _BYTES_ARE_TEXT.fullmatch(match.group(1)) for match in _TRANSFER_ENCODING.finditer(raw)):
        return True
    return any(not _ASCII_WHERE_TEXT_IS.fullmatch(match.group(1)) for match in _CHARSET.finditer(raw))


def _still_shows(data: bytes, secrets: list[str]) -> bool:
    """Whether a text of the mail ``data``, decoded as a reader would (every part, every encoding), shows a
    keyword line with more than a mask after it, a word shaped like a secret, or one of ``secrets``."""
    try:
        message = BytesParser(policy=policy.compat32).parsebytes(data)
        texts = list(shown_texts(message))
    except Exception:  # a mail the parser cannot take apart is not kept as it is either
        return True
    needles = [secret.lower() for secret in secrets]
    for text in texts:
        lowered = text.lower()
        if any(match.group(1).strip(" \t*") for match in _SHOWN_KEYWORD.finditer(lowered)):
            return True
        if _SHOWN_SHAPE.search(lowered) is not None or any(needle in lowered for needle in needles):
            return True
    return False


def _spans(raw: bytes, secrets: list[bytes]) -> list[tuple[int, int]]:
    """Where ``raw`` shows a secret.  Searched in its ASCII lower case (the same length, each byte
    where it was): case-sensitive patterns, several times faster than ``re.IGNORECASE``."""
    lowered = raw.lower()
    spans: list[tuple[int, int]] = []
    if b"password" in lowered or b"link" in lowered:
        spans += [match.span(1) for match in _AFTER_KEYWORD.finditer(lowered) if match.group(1)]
    if _SHAPE_TAIL.search(raw) is not None:
        spans += [match.span() for match in _SECRET_SHAPE.finditer(lowered)]
    for secret in secrets:
        needle = secret.lower()
        start = lowered.find(needle)
        while start >= 0:
            spans.append((start, start + len(needle)))
            start = lowered.find(needle, start + 1)
    return spans
