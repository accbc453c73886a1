"""Seeded, reproducible randomness and the seed commitment.

Every game has a secret seed chosen by the host when the game is created.  The
first report publishes ``commitment(seed)`` (SHA-256), the final report reveals
the seed, and anyone can check that they match and replay the game.  The
generator for each turn is derived from the seed, the turn number and the
turn's *draw*, so resolving turn N never depends on how many numbers earlier
turns drew, and a restarted bot draws exactly what it would have drawn.

A turn's draw is 0 unless a game master rolled the game back to it or before
it with a fresh draw: then the turns played again draw from a generator no
player has seen the outcome of (the record keeps each turn's draw, so a replay
draws the same).  Draw 0 is the generator of the seed and turn alone, as ever.
"""

from __future__ import annotations

import hashlib
import hmac
import random

SETUP_TURN = -1
"""The ``turn`` used for the generator handed to ``new_game``."""


def commitment(seed: str) -> str:
    """The SHA-256 hex digest of the seed, published before play starts."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def verify_commitment(seed: str, published: str) -> bool:
    """True when ``seed`` is the one whose commitment was published."""
    return hmac.compare_digest(commitment(seed), published.strip().lower())


def rng_for(seed: str, turn: int, draw: int = 0) -> random.Random:
    """A fresh generator for one turn of one game (``SETUP_TURN`` for setup), for the turn's ``draw`` (0: its
    first; each later draw, after a rollback, a generator of its own)."""
    text = f"{seed}\x00{turn}" if draw == 0 else f"{seed}\x00{turn}\x00draw\x00{draw}"
    digest = hashlib.sha256(text.encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))
