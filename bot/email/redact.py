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
is masked whole, and a mail with a part in base64 or quoted-printable (where
a secret may be encoded, or split by a soft line break) keeps its header
block and loses its body (replaced by a note saying why).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.core.basics import linear

MASK = b"*"
BODY_REMOVED = b"(the body of this mail is not kept: it held a password or a code in an encoded part)\r\n"

_AFTER_KEYWORD = linear.compile(rb"\b(?:password|link[ \t]+code)\b[ \t]*[:=]?[ \t]*([^\r\n]*)")
_SECRET_SHAPE = linear.compile(rb"\b[a-z]+-[a-z]+-\d{4}\b")
_SHAPE_TAIL = linear.compile(rb"-\d{4}")
"""What every seat secret has: a cheap look before :data:`_SECRET_SHAPE` (most mail has none)."""
_ENCODED_PART = linear.compile(rb"content-transfer-encoding:[ \t]*(?:base64|quoted-printable)", re.IGNORECASE)
_ENCODED_WORD = linear.compile(rb"=\?[^?\s]+\?[bq]\?[^?\s]*\?=", re.IGNORECASE)
_END_OF_HEADERS = linear.compile(rb"\r?\n\r?\n")


def redact_mail(raw: bytes, secrets: Iterable[str] = ()) -> bytes | None:
    """``raw`` with its secrets masked (see the module docstring); None when it shows none to mask
    and the reading found none (the stored copy stays as it is)."""
    found = [secret.strip().encode("utf-8", "replace") for secret in secrets if secret and secret.strip()]
    spans = _spans(raw, found)
    if not spans and not found:
        return None
    masked = bytearray(raw)
    for start, end in spans:
        masked[start:end] = MASK * (end - start)
    headers = _END_OF_HEADERS.search(bytes(masked))
    cut = len(masked) if headers is None else headers.end()
    head = _ENCODED_WORD.sub(lambda word: MASK * len(word.group()), bytes(masked[:cut]))
    body = BODY_REMOVED if headers is not None and _ENCODED_PART.search(raw) else bytes(masked[cut:])
    kept = head + body
    return None if kept == raw else kept


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
