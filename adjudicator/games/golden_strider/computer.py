"""A simple computer player for Golden Strider (the demo and the property tests).

It always sends a legal order (a setup of five cards totalling 30, a card that
keeps the seven-turn rule 8), written in one of several styles as a person would.
"""

from __future__ import annotations

import random

from adjudicator.games.golden_strider.resolve import default_play, keeps_seven_turn_rule
from adjudicator.games.golden_strider.state import HAND_SIZE, MAX_CARD, State


def example_orders(state: State, seat: str, rng: random.Random) -> str:
    """A plausible human order: a random legal setup, or a card that keeps rule 8."""
    if state.turn == 0:
        values = _random_setup(rng, state.options.min_initial_card)
        return "Cards: " + ", ".join(str(v) for v in values)
    runner = state.runner(seat)
    legal = [c for c in runner.hand if keeps_seven_turn_rule(runner.hand, c, state.round)]
    card = rng.choice(legal or [default_play(runner).card])
    spare = max(0, card.value - runner.owed)
    bank = rng.randint(0, min(spare, 3))
    style = rng.randrange(3)
    if style == 0:
        return f"play {card.label} bank {bank}"
    if style == 1:
        return f"Play {card.label}, bank {bank}" if bank else f"play {card.label}"
    return f"play {card.label} move {spare - bank} bank {bank}"


def _random_setup(rng: random.Random, low: int) -> list[int]:
    while True:
        values = [rng.randint(low, MAX_CARD) for _ in range(HAND_SIZE - 1)]
        last = 30 - sum(values)
        if low <= last <= MAX_CARD:
            return sorted([*values, last], reverse=True)
