"""Commitments to the orders on file: a player can check that each report used exactly their orders.

Every accepted set of orders gets a commitment, a keyed hash of the game, the
turn, the seat and the orders.  The confirmation shows it to the seat, each
turn's report publishes the commitment of the set it resolved (or says the
no-moves-received rule was applied), and the game record keeps them, so
``referee verify`` can check that every turn's orders hash to what was
published.

The key is a per-seat salt derived from the game's secret seed
(:func:`seat_salt`): nothing new is stored, nobody can test guesses of
another seat's orders against a published commitment while the seed is
secret, and revealing the seed at the end (:mod:`adjudicator.rng`) reveals
every salt.

The canonical byte form, version 1 (:data:`FORM_VERSION`), is the
concatenation of five netstrings (``<length in decimal>:<bytes>,``, the length
counting bytes), each field UTF-8::

    netstring("referee-orders-v1")
    netstring(game)        the game's name as players write it (``gs1``)
    netstring(turn)        the turn number in decimal, no sign or leading zeros
    netstring(seat)        the seat's name
    netstring(orders)      the canonical orders: the game's canonical text with
                           every line's trailing white space removed, empty lines
                           dropped, lines joined by a single LF, no final LF

Netstrings make the form unambiguous whatever the fields hold (a seat name
with a newline or a colon cannot shift one field into another).  The salt is
``HMAC-SHA256(key=seed, msg="orders-salt:" + seat)`` (both UTF-8) and the
commitment ``HMAC-SHA256(key=salt, msg=canonical form)``, in lower-case hex
(64 digits).  Standard library only: anyone can recompute it with ``hmac``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass

FORM_VERSION = 1
"""The version of the canonical byte form (its first field is ``referee-orders-v1``)."""
_TAG = f"referee-orders-v{FORM_VERSION}"
SALT_LABEL = "orders-salt:"
SHORT_DIGITS = 32
"""How many hex digits a report or confirmation shows (128 bits, eight groups of four: fits a mail line)."""


def netstring(value: str) -> bytes:
    """``<byte length>:<UTF-8 bytes>,``."""
    data = value.encode("utf-8")
    return str(len(data)).encode("ascii") + b":" + data + b","


def canonical_orders(text: str) -> str:
    """The orders as hashed: lines without trailing white space, no empty lines, joined by LF."""
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip())


def canonical_form(game: str, turn: int, seat: str, orders: str) -> bytes:
    """The exact bytes a commitment hashes (see the module docstring, version 1)."""
    if turn < 0:
        raise ValueError("a turn number is never negative")
    return b"".join(netstring(part) for part in (_TAG, game, str(turn), seat, canonical_orders(orders)))


def seat_salt(seed: str, seat: str) -> bytes:
    """The seat's salt: ``HMAC-SHA256(seed, "orders-salt:" + seat)``, derived, never stored."""
    return hmac.new(seed.encode("utf-8"), (SALT_LABEL + seat).encode("utf-8"), hashlib.sha256).digest()


def order_commitment(seed: str, game: str, turn: int, seat: str, orders: str) -> str:
    """The commitment to ``seat``'s ``orders`` for ``turn`` of ``game``: 64 lower-case hex digits."""
    message = canonical_form(game, turn, seat, orders)
    return hmac.new(seat_salt(seed, seat), message, hashlib.sha256).hexdigest()


def short_commitment(full: str) -> str:
    """The first :data:`SHORT_DIGITS` hex digits in groups of four (``3f2a 9c01 ...``, 39 columns)."""
    digits = full[:SHORT_DIGITS]
    return " ".join(digits[i : i + 4] for i in range(0, len(digits), 4))


@dataclass(frozen=True)
class Mismatch:
    """A seat whose orders in a turn do not hash to what was published (or that lacks one side)."""

    turn: int
    seat: str
    reason: str

    def __str__(self) -> str:
        return f"turn {self.turn}, seat {self.seat}: {self.reason}"


def check_turn(
    seed: str, game: str, turn: int, orders: Mapping[str, str], published: Mapping[str, str]
) -> Mismatch | None:
    """The first seat (in seat order of ``orders``, then ``published``) whose orders and published
    commitment disagree: orders without a commitment, a commitment without orders, or a different hash."""
    for seat, text in orders.items():
        given = published.get(seat)
        if given is None:
            return Mismatch(turn, seat, "the record holds orders but no commitment was published for them")
        computed = order_commitment(seed, game, turn, seat, text)
        if not hmac.compare_digest(given.strip().lower().encode("utf-8"), computed.encode("ascii")):
            return Mismatch(turn, seat, "the orders do not match the commitment the report published")
    for seat in published:
        if seat not in orders:
            return Mismatch(turn, seat, "a commitment was published but the record holds no orders")
    return None
