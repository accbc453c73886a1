"""Property tests (hypothesis): whole races played by the example player, with some teams
sending nothing (ruling L8) and random option settings."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.games.lautobus import Lautobus
from adjudicator.games.lautobus.scoring import penalty
from adjudicator.rng import SETUP_TURN, rng_for
from adjudicator.turn import advance, parse_turn_orders

SEATS = ["north", "south", "east", "west", "centre"]

options_strategy = st.fixed_dictionaries(
    {},
    optional={
        "movement_cards": st.lists(st.integers(1, 8), min_size=1, max_size=7),
        "start_assignment": st.sampled_from(["latin", "seeded_random"]),
        "slipstream_timing": st.sampled_from(["before", "after"]),
        "sprint1_retainable": st.booleans(),
        "sprint_includes_zero": st.booleans(),
        "team_tie": st.sampled_from(["best_cyclist", "shared"]),
        "start_layout": st.lists(st.integers(1, 60), min_size=25, max_size=25, unique=True),
    },
)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), options=options_strategy, silence=st.floats(0, 0.5))
def test_races_keep_spaces_apart_end_and_the_winner_scores_zero(
    seed: int, options: dict[str, object], silence: float
) -> None:
    rules = Lautobus()
    state = rules.new_game(SEATS, options, rng_for(str(seed), SETUP_TURN))
    rules.check_invariants(state)
    player = random.Random(seed)
    cards_held = sum(len(c.cards) for c in state.cyclists)
    turns = 0
    while (phase := rules.phase(state)) is not None:
        assert phase.number == turns
        texts = {s: rules.example_orders(state, s, player) for s in phase.owing if player.random() >= silence}
        for seat, text in texts.items():
            notes = rules.parse_orders(state, seat, text).notes
            assert not any(n.startswith("WARNING") for n in notes), (text, notes)
        orders, errors = parse_turn_orders(rules, state, texts)
        assert errors == {}
        result = advance(rules, state, orders, rng_for(str(seed), phase.number))  # checks the invariants
        state = result.state
        spaces = [c.space for c in state.cyclists]
        assert len(set(spaces)) == len(spaces), "two cyclists share a space"
        held = sum(len(c.cards) for c in state.cyclists)
        assert held < cards_held, "ruling L7: at least one card leaves play every turn"
        cards_held = held
        turns += 1
        assert turns <= 25 * 14, "the race must end"
    assert state.finished and all(not c.cards for c in state.cyclists)
    winner = max(state.cyclists, key=lambda c: c.space)
    assert penalty(winner, state.cyclists) == 0
    others = sorted((c for c in state.cyclists if c is not winner), key=lambda c: -c.space)
    assert penalty(others[0], state.cyclists) >= 1 and penalty(others[1], state.cyclists) >= 2
    table = rules.standings(state)
    assert sorted(s.seat for s in table) == sorted(SEATS)
    assert table[0].place == 1 and table[0].score == min(s.score for s in table)
