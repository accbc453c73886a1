"""Count to Ten's computer player: a random addition."""

from __future__ import annotations

import random


def example_orders(rng: random.Random) -> str:
    return f"add {rng.randint(1, 2)}"
