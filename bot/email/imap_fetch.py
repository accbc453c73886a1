"""``UID FETCH`` with a fast parser for the exact responses the intake asks for.

imapclient parses every FETCH response with a general, pure-Python lexer (a
token at a time); on the intake's two commands (the listing's
``(RFC822.SIZE INTERNALDATE)`` and the bodies' ``(BODY.PEEK[])``), 2000 order
mails took 120-150 us of CPU a mail in the listing and the bodies' FETCH, 70-85
with this module (most of what is left is imaplib reading the lines).  :func:`uid_fetch` sends the command
through imapclient's own imaplib connection, as :meth:`IMAPClient.fetch`
does, and reads imaplib's raw untagged responses with strict patterns of the
shape a server like Dovecot sends::

    b'7 (UID 42 RFC822.SIZE 1234 INTERNALDATE "01-Dec-2026 14:47:59 +0000")'
    (b'7 (UID 42 BODY[] {1234}', b'<the literal>'), b')'

If any response of the command differs in the slightest (another order of
items, lowercase, a quoted string with an escape, NIL, extra items such as an
unsolicited ``FLAGS``, several literals in one response), the whole command's
responses go to imapclient's parser instead, so the result is always exactly
what :meth:`IMAPClient.fetch` returns (``normalise_times`` off, keyed by UID,
each message's dict with its ``SEQ``, unsolicited responses for other
messages dropped).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache

from imapclient import IMAPClient
from imapclient.datetime_util import parse_to_datetime
from imapclient.response_parser import parse_fetch_response

from bot.core.basics import linear

FetchData = dict[int, dict[bytes, object]]

_LISTING = linear.compile(rb'(\d+) \(UID (\d+) RFC822\.SIZE (\d+) INTERNALDATE "([^"\\\r\n]*)"\)')
_BODY = linear.compile(rb"(\d+) \(UID (\d+) BODY\[\](<0>)? \{(\d+)\}")


@lru_cache(maxsize=4096)
def _internaldate(text: bytes) -> datetime | None:
    """As imapclient converts an INTERNALDATE (unnormalised; None when it cannot be read).

    Cached: a batch of mail delivered together shares a handful of timestamps, and the
    datetimes are immutable."""
    try:
        moment: datetime = parse_to_datetime(text, normalise=False)
        return moment
    except ValueError:
        return None


def parse_fast(data: Sequence[bytes | tuple[bytes, bytes]]) -> FetchData | None:
    """imaplib's untagged FETCH ``data`` parsed as imapclient would, or None when any response
    is not of the exact shapes of the module docstring (the caller then uses imapclient's parser)."""
    parsed: FetchData = {}
    position, count = 0, len(data)
    while position < count:
        item = data[position]
        if isinstance(item, bytes):
            match = _LISTING.fullmatch(item)
            if match is None:
                return None
            seq, uid, size, date = match.groups()
            values: dict[bytes, object] = {
                b"SEQ": int(seq), b"RFC822.SIZE": int(size), b"INTERNALDATE": _internaldate(date)
            }  # fmt: skip
            position += 1
        else:
            head, literal = item
            match = _BODY.fullmatch(head)
            if match is None or position + 1 >= count or data[position + 1] != b")":
                return None
            seq, uid, partial, length = match.groups()
            if int(length) != len(literal):
                return None
            values = {b"SEQ": int(seq), b"BODY[]<0>" if partial else b"BODY[]": literal}
            position += 2
        known = parsed.get(int(uid))
        if known is None:
            parsed[int(uid)] = values
        else:  # a second response for the same message: merged, as imapclient does
            known.update(values)
    return parsed


def parse(data: Sequence[bytes | tuple[bytes, bytes]], uids: Iterable[int]) -> FetchData:
    """What :meth:`IMAPClient.fetch` returns for ``uids`` from imaplib's untagged FETCH ``data``."""
    fast = parse_fast(data)
    response: FetchData = fast if fast is not None else parse_fetch_response(list(data), False, True)
    return {uid: response[uid] for uid in uids if uid in response}


def uid_fetch(client: IMAPClient, uids: Sequence[int], items: str) -> FetchData:
    """``UID FETCH uids items`` (``items`` as sent, e.g. ``"(BODY.PEEK[])"``) on ``client``'s
    connection: the same result as ``client.fetch(uids, [...])`` (see the module docstring).

    Raises what :meth:`IMAPClient.fetch` raises (a ``NO``/``BAD`` answer, a dropped connection)."""
    if not uids:
        return {}
    imap = client._imap
    tag = imap._command("UID", "FETCH", ",".join(map(str, uids)), items)
    typ, data = imap._command_complete("FETCH", tag)
    client._checkok("fetch", typ, data)
    typ, data = imap._untagged_response(typ, data, "FETCH")
    if data == [None]:
        return {}
    return parse(data, uids)
