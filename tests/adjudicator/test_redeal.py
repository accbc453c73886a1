"""``GameRules.redeal`` (adjudicator/api.py), what a rollback's fresh draw deals again: every registered game,
at every phase of a whole game, keeps every player's view exactly (nothing anyone saw moves), keeps its
invariants, and deals the same cards; a game that hides chance (Strike Gold's pile and face-down cards,
Dragon Stripes' deck) hides it somewhere else afterwards.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from adjudicator import registry
from adjudicator.record import start_game
from adjudicator.rng import rng_for
from adjudicator.turn import advance, advance_drawn

KINDS = registry.kinds()
HIDING_CHANCE = {"strike-gold", "dragon-stripes"}


def seats_for(rules: Any) -> list[str]:
    return [f"Seat {i + 1}" for i in range(rules.min_seats)]


def leaves(value: Any) -> Counter[str]:
    """The scalars of a JSON value, counted (a deal again moves cards, it never adds or drops one)."""
    if isinstance(value, dict):
        return sum((leaves(item) for item in value.values()), Counter())
    if isinstance(value, list):
        return sum((leaves(item) for item in value), Counter())
    return Counter({repr(value): 1})


@pytest.mark.parametrize("kind", KINDS)
def test_a_deal_again_changes_nothing_any_player_saw(kind: str) -> None:
    rules = registry.get_rules(kind)
    seats = seats_for(rules)
    rng = random.Random(kind)
    state = start_game(rules, seats, {}, f"seed-{kind}")
    moved = 0
    while (phase := rules.phase(state)) is not None:
        dealt = rules.redeal(state, rng_for(f"seed-{kind}", phase.number, 1))
        rules.check_invariants(dealt)
        assert rules.public_state(dealt) == rules.public_state(state), (kind, phase.title)
        for seat in seats:
            assert rules.seat_view(dealt, seat) == rules.seat_view(state, seat), (kind, phase.title, seat)
        assert rules.phase(dealt) == phase
        if kind == "strike-gold":  # the cards of the pile and the grids: the same 150, elsewhere
            before, after = rules.dump_state(state), rules.dump_state(dealt)
            assert leaves(before["deck"]) + leaves(before["grids"]) == leaves(after["deck"]) + leaves(after["grids"])
        moved += rules.dump_state(dealt) != rules.dump_state(state)
        orders = {seat: rules.parse_orders(state, seat, rules.example_orders(state, seat, rng)).orders
                  for seat in phase.owing}  # fmt: skip
        state = advance(rules, state, orders, rng_for(f"seed-{kind}", phase.number)).state
    assert (moved > 0) == (kind in HIDING_CHANCE), (kind, moved)


@pytest.mark.parametrize("kind", sorted(HIDING_CHANCE))
def test_draw_zero_without_a_deal_again_is_the_turn_as_it_always_was(kind: str) -> None:
    """Records made before draws existed replay unchanged: draw 0 is the generator of the seed and turn alone."""
    rules = registry.get_rules(kind)
    state = start_game(rules, seats_for(rules), {}, "old")
    phase = rules.phase(state)
    assert phase is not None
    orders = {seat: rules.default_orders(state, seat) for seat in phase.owing}
    assert advance_drawn(rules, state, orders, "old", 0, redeal=False) == advance(
        rules, state, orders, rng_for("old", phase.number)
    )
