"""Property tests: whatever orders are given, the card cycle, squares, race ends and points hold.

Orders come from the simple computer player (conditions and readjustments included), from
raw orders naming any card 1-12 (legal or not: ruling P6 replaces the illegal ones), or are
missing (seed rule 10).
"""

from __future__ import annotations

import random
from collections import defaultdict
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.games.three_races import ThreeRaces
from adjudicator.games.three_races.orders import DeadlineOrders, MoveOrders
from adjudicator.games.three_races.state import CYCLE, RACES, State
from adjudicator.options import resolve_options
from adjudicator.turn import advance

RULES = ThreeRaces()
SEATS = ("North", "East", "South", "West")

options_strategy = st.fixed_dictionaries(
    {
        "moves_per_deadline": st.integers(1, 4),
        "top_tie_mode": st.sampled_from(["literal", "skip_equal"]),
        "placing_tie": st.sampled_from(["average", "all_higher", "countback_previous_square"]),
        "readjust_timing": st.sampled_from(["cycle_start", "any_move"]),
        "overall_tie": st.sampled_from(["countback", "shared"]),
        "max_moves": st.sampled_from([12, 40, 100]),
    }
)


def raw_orders(state: State, rng: random.Random) -> DeadlineOrders:
    """Any card 1-12 for each race and move, sometimes none: legal or not."""
    moves = []
    for _ in range(state.options.moves_per_deadline):
        cards = tuple((race, rng.randint(1, 12)) for race in RACES if rng.random() < 0.8)
        moves.append(MoveOrders((), cards))
    return DeadlineOrders(tuple(moves))


def orders_for(state: State, rng: random.Random, style: int) -> dict[str, object]:
    orders: dict[str, object] = {}
    for seat in state.seats:
        choice = (style + rng.randrange(3)) % 4
        if choice == 3:
            continue  # no orders: seed rule 10
        if choice == 2 and state.turn > 0:
            orders[seat] = raw_orders(state, rng)
            continue
        text = RULES.example_orders(state, seat, rng)
        parsed = RULES.parse_orders(state, seat, text)
        assert parsed.orders is not None and not parsed.errors, (text, parsed.errors)
        assert RULES.parse_orders(state, seat, parsed.canonical).orders == parsed.orders
        orders[seat] = parsed.orders
    return orders


@settings(max_examples=60, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 2**32), style=st.integers(0, 3))
def test_whole_games_keep_the_rules(options: dict[str, object], seed: int, style: int) -> None:
    rng = random.Random(seed)
    state = RULES.new_game(SEATS, resolve_options(RULES.options(), options), rng)
    per = state.options.moves_per_deadline
    played: dict[tuple[str, int, int], list[int]] = defaultdict(list)  # (seat, race, cycle) -> cards
    hands: dict[tuple[str, int, int], tuple[int, ...]] = {}  # (seat, race, cycle) -> hand
    deadlines = 0
    while RULES.phase(state) is not None:
        assert deadlines <= state.options.max_moves // per + 2, "the game must end"
        result = advance(RULES, state, orders_for(state, rng, style), rng)
        before, state = state, result.state
        deadlines += 1
        if before.turn == 0:
            continue
        for race in RACES:
            for seat in SEATS:
                assert state.race(race).squares[seat] >= before.race(race).squares[seat], "squares never decrease"
        for move in result.report["move_details"]:
            cycle = (move["move"] - 1) // CYCLE
            for race_name, line in move["races"].items():
                for seat, card in line["cards"].items():
                    played[(seat, int(race_name), cycle)].append(card)
                    hands.setdefault((seat, int(race_name), cycle), state.team(seat).hands[int(race_name)])

    assert all(race.finished for race in state.races), "every race ends"
    for race in state.races:
        total = sum(race.points.values(), Fraction(0))
        if state.options.placing_tie == "all_higher":
            assert total >= 11
        else:
            assert total == 11, "the points handed out in each race total 11"
        assert sorted(race.points.values(), reverse=True) == [
            race.points[s] for s in sorted(SEATS, key=lambda s: race.places[s])
        ]

    by_team_cycle: dict[tuple[str, int], list[int]] = defaultdict(list)
    for (seat, race, cycle), cards in played.items():
        assert len(cards) == len(set(cards)), "no card twice in a cycle"
        by_team_cycle[(seat, cycle)].extend(cards)
        finished_at = state.race(race).finished_at or 0
        complete = finished_at >= (cycle + 1) * CYCLE
        if complete:
            assert len(cards) == CYCLE
            if state.options.readjust_timing == "cycle_start":
                assert sorted(cards) == sorted(hands[(seat, race, cycle)]), "each card exactly once per cycle"
    for cards in by_team_cycle.values():
        assert len(cards) == len(set(cards)), "a team plays each of its cards at most once per cycle"
    standings = RULES.standings(state)
    assert sorted(s.seat for s in standings) == sorted(SEATS)
    assert RULES.load_state(RULES.dump_state(state)) == state
