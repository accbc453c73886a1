"""Seeded, reproducible randomness and the seed commitment.

Every game has a secret seed chosen by the host when the game is created.  The
first report publishes ``commitment(seed)`` (SHA-256), the final report reveals
the seed, and anyone can check that they match and replay the game.  The
generator for each turn is derived from the seed and the turn number, so
resolving turn N never depends on how many numbers earlier turns drew, and a
restarted bot draws exactly what it would have drawn.
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


def rng_for(seed: str, turn: int) -> random.Random:
    """A fresh generator for one turn of one game (``SETUP_TURN`` for setup)."""
    digest = hashlib.sha256(f"{seed}\x00{turn}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))
