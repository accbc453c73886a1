"""The key of a player's private calendar address: derived, so no secret is stored.

A player's private calendar (every deadline of every game they hold a seat in,
:mod:`bot.core.views.calendars`) is read at ``<web_base_url>/calendars/<key>.ics``.
The key is ``<player id>-<mac>``: ``mac`` is an HMAC-SHA256, under the service's
secret key (``ServiceConfig.secret_key``, the key of the seat secrets,
:func:`bot.core.people.seat_secrets.load_secret_key`), of the player id and the
player's ``calendar_epoch``, its first 128 bits in unpadded base64url (22
characters: beyond guessing, and short enough that the whole address fits a
mailed line of 78 columns with a base address of up to 36 characters).  Nothing is stored but the
epoch: ``CALENDAR NEW`` raises it, and every address made with the old epoch
stops working.  A copy of the database alone gives no address.

Reading a key costs an outsider bounded work: anything longer than
:data:`MAX_KEY_CHARS` or not of the key's exact shape is refused before any
query or hash (:func:`parse_calendar_key`), and a well-shaped one costs one
lookup by primary key and one HMAC, compared in constant time
(:func:`key_matches`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from bot.core.basics import linear

_MAC_BYTES = 16
_MAC_CHARS = 22
"""The first 16 bytes of an HMAC-SHA256, in unpadded base64url."""
_ID_DIGITS = 10
MAX_PLAYER_ID = 2**31 - 1
"""``players.id`` is a 32-bit integer: a larger number is no player's (and PostgreSQL refuses to look for it)."""
MAX_KEY_CHARS = _ID_DIGITS + 1 + _MAC_CHARS
"""The longest key there is; a longer text is refused unread."""
_KEY = linear.compile(rf"([1-9][0-9]{{0,{_ID_DIGITS - 1}}})-([A-Za-z0-9_-]{{{_MAC_CHARS}}})")
_LABEL = b"referee private calendar\x00"
"""Keeps these MACs apart from any other use of the same key."""


def _mac(player_id: int, epoch: int, secret_key: bytes) -> str:
    message = _LABEL + f"{player_id}:{epoch}".encode("ascii")
    digest = hmac.new(secret_key, message, hashlib.sha256).digest()[:_MAC_BYTES]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def calendar_key(player_id: int, epoch: int, secret_key: bytes) -> str:
    """The key of the player's private calendar address for ``epoch``."""
    return f"{player_id}-{_mac(player_id, epoch, secret_key)}"


def calendar_url(web_base_url: str, key: str) -> str | None:
    """``<web_base_url>/calendars/<key>.ics``, or None when no web pages are configured."""
    base = web_base_url.strip().rstrip("/")
    return f"{base}/calendars/{key}.ics" if base else None


def parse_calendar_key(text: str) -> tuple[int, str] | None:
    """(player id, mac) of a key of the right shape, or None (too long, or not a key): no query, no hash."""
    if len(text) > MAX_KEY_CHARS:
        return None
    found = _KEY.fullmatch(text)
    if found is None or int(found.group(1)) > MAX_PLAYER_ID:
        return None
    return int(found.group(1)), found.group(2)


def key_matches(player_id: int, epoch: int, mac: str, secret_key: bytes) -> bool:
    """Whether ``mac`` is the player's for ``epoch`` (constant-time comparison)."""
    return hmac.compare_digest(_mac(player_id, epoch, secret_key).encode("ascii"), mac.encode("ascii"))
