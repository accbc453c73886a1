"""A simple computer player for L'autobus (the demo and the property tests).

It always sends a legal card for every rider that holds cards (no special on
the first turn), written in one of several styles as a person would.
"""

from __future__ import annotations

import random

from adjudicator.games.lautobus.cards import SPRINT, ZERO, Card, CardKind
from adjudicator.games.lautobus.state import State


def example_orders(state: State, seat: str, rng: random.Random) -> str:
    """A legal card for every rider with cards, written in one of several styles."""
    plays = [
        (c.rider, _pick(c.cards, state.first_turn, rng))
        for c in sorted(state.team(seat), key=lambda c: c.rider)
        if c.has_cards
    ]
    style = rng.randrange(5)
    if style == 0 or (style == 3 and len(plays) < 3):
        return ", ".join(f"{rider}: {card.label}" for rider, card in plays)
    if style == 1:
        return "\n".join(f"Rider {rider} plays {card.label}" for rider, card in plays)
    if style == 2:
        return "; ".join(f"R{rider} {card.label.capitalize()}" for rider, card in plays)
    if style == 3:
        return " ".join(card.label.upper() for _, card in plays)
    return "  ".join(f"{rider}={_short(card)}" for rider, card in plays)


def _pick(hand: tuple[Card, ...], first_turn: bool, rng: random.Random) -> Card:
    """Mostly movement cards; a special now and then (never on the first turn), a SPRINT more
    likely when few cards are left."""
    choices: list[Card] = []
    weights: list[int] = []
    for card in dict.fromkeys(hand):
        if card.special and first_turn:
            continue
        choices.append(card)
        if card.kind is CardKind.MOVE:
            weights.append(6)
        elif card == SPRINT:
            weights.append(6 if len(hand) <= 3 else 1)
        else:
            weights.append(1)
    return rng.choices(choices, weights)[0]


def _short(card: Card) -> str:
    return {ZERO: "z", SPRINT: "s"}.get(card, card.label)
