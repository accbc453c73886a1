"""Property: any legal sequence of orders keeps every Golden Strider invariant.

Hands of 5 cards, no card older than 7 turns (with the default G3 enforcement,
and either G4 shortfall mode: a substitute keeps rule 8 too), replacement values
0-10, squares and restitution never negative, and the race always ends.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.record import start_game
from adjudicator.rng import rng_for
from adjudicator.turn import advance
from tests.adjudicator.golden_strider.scenario import RULES


@st.composite
def races(draw):
    seats = [f"R{i}" for i in range(draw(st.integers(6, 10)))]
    options = {"steeplechase": draw(st.booleans()), "first_charged_overtake_round": draw(st.sampled_from([2, 3])),
               "shortfall_mode": draw(st.sampled_from(["carry", "substitute_lowest_sufficient"]))}  # fmt: skip
    if not options["steeplechase"]:
        options["race_length"] = draw(st.integers(20, 65))
    return seats, options, draw(st.randoms(use_true_random=False))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.large_base_example, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(races(), st.data())
def test_any_legal_orders_keep_the_invariants(race, data):
    seats, options, rng = race
    state = start_game(RULES, seats, options, "prop")
    rounds = 0
    while RULES.phase(state) is not None:
        phase = RULES.phase(state)
        orders = {}
        for seat in phase.owing:
            if phase.number == 0:
                orders[seat] = RULES.parse_orders(state, seat, RULES.example_orders(state, seat, rng)).orders
                continue
            runner = state.runner(seat)
            choice = data.draw(st.sampled_from(["nmr", *range(len(runner.hand))]))
            if choice == "nmr":
                continue
            card = runner.hand[choice]
            bank = data.draw(st.integers(0, card.value))
            parsed = RULES.parse_orders(state, seat, f"play {card.label} bank {bank}")
            assert parsed.accepted, parsed.errors
            orders[seat] = parsed.orders
        result = advance(RULES, state, orders, rng_for("prop", phase.number))
        state = result.state
        rounds += 1
        if phase.number > 0:
            for line in result.report["lines"]:
                assert 0 <= line["R"] <= 10
                played = [c["label"] for c in line["cards"] if c["played"]]
                assert len(played) == 1
                value = int(played[0].split("/")[0])
                assert line["D"] + line["M"] + line["B"] == value
                assert line["M"] >= 0 and 0 <= line["B"] <= value - line["D"]
        for runner in state.runners:
            assert len(runner.hand) == 5
            assert all(0 <= card.value <= 10 for card in runner.hand)
            assert all(card.deadline >= state.round for card in runner.hand)
            assert runner.owed >= 0
        assert rounds <= 101
    assert RULES.standings(state)[0].place == 1
