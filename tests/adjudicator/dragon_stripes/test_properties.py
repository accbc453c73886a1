"""Properties: in any game the gems held by the players, beside the knight and in the hoard always add
up to the same total, and every game ends (the third danger card is at the latest the last card)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adjudicator.games.dragon_stripes.cards import composition
from adjudicator.record import start_game
from adjudicator.rng import rng_for
from adjudicator.turn import advance
from tests.adjudicator.dragon_stripes.scenario import RULES

FULL_DECK = [card.label for card in composition((10, 10, 10, 8))]
MAX_RESOLUTIONS = 2 * 51 + 10
"""Each card needs at most two resolutions (a decision, then an offer window or a choice)."""


@st.composite
def games(draw):
    seats = [f"P{i}" for i in range(draw(st.integers(2, 6)))]
    options = {
        "bounty_rule": draw(st.sampled_from(["beside", "half_floor", "fixed"])),
        "bounty_fixed": draw(st.integers(0, 60)),
        "takeover_selection": draw(st.sampled_from(["seat_order", "holder_chooses"])),
        "next_after_taker": draw(st.booleans()),
        "hoard_initial": draw(st.sampled_from([0, 30, 400, 1000])),
    }
    if draw(st.booleans()):
        options["deck"] = " ".join(draw(st.permutations(FULL_DECK)))
    return seats, options, draw(st.text(min_size=1, max_size=8))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.data())
def test_gems_are_conserved_and_every_game_ends(game, data):
    seats, options, seed = game
    state = start_game(RULES, seats, options, seed)
    total = 40 * len(seats) + options["hoard_initial"]
    rng = rng_for(seed, 0)
    resolutions = 0
    while (phase := RULES.phase(state)) is not None:
        assert phase.number == resolutions
        orders = {}
        for seat in phase.owing:
            if data.draw(st.integers(0, 9)) == 0:
                continue  # silent: the no-moves-received rule
            text = RULES.example_orders(state, seat, rng)
            parsed = RULES.parse_orders(state, seat, text)
            assert parsed.accepted and not parsed.errors, (text, parsed.errors)
            assert RULES.parse_orders(state, seat, parsed.canonical).orders == parsed.orders
            orders[seat] = parsed.orders
        result = advance(RULES, state, orders, rng_for(seed, phase.number))
        state = result.state
        held = sum(p.gems for p in state.players)
        assert held + state.beside + state.hoard == total
        for line in result.report["lines"]:
            assert line["gems"] >= 0 and line["hoard"] >= 0 and line["beside"] >= 0
        assert RULES.load_state(RULES.dump_state(state)) == state
        resolutions += 1
        assert resolutions <= MAX_RESOLUTIONS
    assert state.dangers == 3 or state.knight == 18
    assert sum(s.score for s in RULES.standings(state)) + state.hoard == total


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.text(min_size=1, max_size=8))
def test_a_game_nobody_answers_still_ends(players, seed):
    """D12 all the way: every active player holds, every offer is declined; the deck runs to an end."""
    state = start_game(RULES, [f"P{i}" for i in range(players)], {}, seed)
    resolutions = 0
    while (phase := RULES.phase(state)) is not None:
        state = advance(RULES, state, {}, rng_for(seed, phase.number)).state
        resolutions += 1
        assert resolutions <= MAX_RESOLUTIONS
    assert state.dangers == 3 or state.knight == 18
