"""docs/rules/three-races.md 2.3: every worked example of the three-race game, by its id."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from adjudicator.games.three_races.cycle import pick_card
from adjudicator.games.three_races.orders import DeadlineOrders, MoveOrders
from adjudicator.games.three_races.readjust import apply_readjust, make, parse_readjust, readjust_problem
from adjudicator.games.three_races.scoring import move_runners
from adjudicator.turn import advance

SEED_CARDS = {"A": 3, "B": 6, "C": 8, "D": 2}
TIE_CARDS = {"A": 9, "B": 7, "C": 7, "D": 3}


def test_PA_1_seed_examples() -> None:
    """PA-1: cards {3, 6, 8, 2}. R25: ref = 6, so the 8 moves 2. R55: ref = 3, so the 8 moves 5
    and the 6 moves 3. R85: ref = 2, so the 8 moves 6, the 6 moves 4 and the 3 moves 1."""
    r25 = move_runners(SEED_CARDS, 1)
    assert r25.reference == 6
    assert r25.moved == {"A": 0, "B": 0, "C": 2, "D": 0}
    r55 = move_runners(SEED_CARDS, 2)
    assert r55.reference == 3
    assert r55.moved == {"A": 0, "B": 3, "C": 5, "D": 0}
    r85 = move_runners(SEED_CARDS, 3)
    assert r85.reference == 2
    assert r85.moved == {"A": 1, "B": 4, "C": 6, "D": 0}


def test_PA_1_seed_examples_through_a_game(tr: SimpleNamespace) -> None:
    """PA-1 played at move 1 of a real game, the four cards {3, 6, 8, 2} in every race
    (each team plays a different one of them in each race)."""
    hands = {
        "A": {25: [3], 55: [6], 85: [8]},
        "B": {25: [6], 55: [8], 85: [2]},
        "C": {25: [8], 55: [2], 85: [3]},
        "D": {25: [2], 55: [3], 85: [6]},
    }
    move = {seat: {race: cards[0] for race, cards in h.items()} for seat, h in hands.items()}
    state, (result,) = tr.game(hands, [move], moves_per_deadline=1)
    assert tr.squares(state, 25) == {"A": 0, "B": 0, "C": 2, "D": 0}
    assert tr.squares(state, 55) == {"A": 3, "B": 5, "C": 0, "D": 0}
    assert tr.squares(state, 85) == {"A": 6, "B": 0, "C": 1, "D": 4}
    details = result.report["move_details"][0]["races"]
    assert [details[r]["reference"] for r in ("25", "55", "85")] == [6, 3, 2]


def test_PA_2_seed_commonsense_examples() -> None:
    """PA-2: cards {9, 7, 7, 3}. R25: ref = c2 = 7, so the 9 moves 2. R55: ref = c3 = 7, so the
    9 moves 2 and no-one else moves. R85: ref = c4 = 3, so the 9 moves 6 and each 7 moves 4."""
    r25 = move_runners(TIE_CARDS, 1)
    assert (r25.reference, r25.moved) == (7, {"A": 2, "B": 0, "C": 0, "D": 0})
    r55 = move_runners(TIE_CARDS, 2)
    assert (r55.reference, r55.moved) == (7, {"A": 2, "B": 0, "C": 0, "D": 0})
    r85 = move_runners(TIE_CARDS, 3)
    assert (r85.reference, r85.moved) == (3, {"A": 6, "B": 4, "C": 4, "D": 0})


@pytest.mark.parametrize(("race", "expected"), [(25, [2, 0, 0, 0]), (55, [2, 0, 0, 0]), (85, [6, 4, 4, 0])])
def test_PA_2_seed_commonsense_examples_through_a_game(tr: SimpleNamespace, race: int, expected: list[int]) -> None:
    """PA-2 in a real game: 9, 7, 7, 3 played in one race at move 1."""
    hands = {seat: {race: [card]} for seat, card in TIE_CARDS.items()}
    move = {seat: {race: card} for seat, card in TIE_CARDS.items()}
    state, _ = tr.game(hands, [move], moves_per_deadline=1)
    assert list(tr.squares(state, race).values()) == expected


def _pa7_state(tr: SimpleNamespace) -> object:
    """Team A's 25 runner holds {2, 4, 5, 10}; it played 2 at move 1 and 10 at move 2."""
    hands = {"A": {25: [2, 4, 5, 10]}}
    state, _ = tr.game(hands, [{"A": {25: 2}}, {"A": {25: 10}}])
    return state


def test_PA_7_card_cycle_legality(tr: SimpleNamespace) -> None:
    """PA-7: cards {2, 4, 5, 10}; 2 played at move 1 and 10 at move 2.  At move 3 an order
    for card 10 is illegal; by default it is treated as an NMR for that runner: the lowest
    available card, 4.  At move 4 the only card left is 5.  At move 5 all four are available."""
    state = _pa7_state(tr)
    team = state.team("A")
    assert team.available(25) == (4, 5)
    assert pick_card(team, 25, 10).card == 4
    assert "already played" in (pick_card(team, 25, 10).problem or "")

    moves = (MoveOrders((), ((25, 10),)), MoveOrders())
    orders = {"A": DeadlineOrders(moves)}
    result = advance(tr.rules, state, orders, random.Random(0))
    assert result.report["move_details"][0]["races"]["25"]["cards"]["A"] == 4
    assert result.report["move_details"][1]["races"]["25"]["cards"]["A"] == 5
    assert [e.kind for e in result.events if e.seat == "A"].count("substitute") == 1
    assert any("already played" in note for note in result.private["A"]["notes"])
    assert result.state.team("A").available(25) == (2, 4, 5, 10)


def test_PA_7_illegal_card_is_refused_when_written(tr: SimpleNamespace) -> None:
    """PA-7 at the parser: the player is told at once that 10 was already played."""
    state = _pa7_state(tr)
    parsed = tr.rules.parse_orders(state, "A", "move 3: 25=10\nmove 4: 25=5")
    assert parsed.errors[0].line == "move 3: 25=10"
    assert "move 3, 25=10: card 10 was already played this cycle" in parsed.errors[0].message
    assert parsed.orders is not None
    assert tr.rules.format_orders(state, "A", parsed.orders) == "move 4: 25=5"


def test_PA_7_no_orders_play_4_then_5(tr: SimpleNamespace) -> None:
    """PA-7 by the NMR rule (seed rule 10): lowest available at move 3 (4), then 5 at move 4."""
    state = _pa7_state(tr)
    default = tr.rules.default_orders(state, "A")
    assert [dict(move.cards)[25] for move in default.moves] == [4, 5]


PA9_HANDS = {25: (2, 4, 5, 10), 55: (1, 6, 9, 11), 85: (3, 7, 8, 12)}


@pytest.fixture
def pa9(tr: SimpleNamespace) -> object:
    return tr.setup(tr.start(), {"A": PA9_HANDS})


def test_PA_9_swap_is_valid(tr: SimpleNamespace, pa9: object) -> None:
    """PA-9: swap A:10 <-> B:11 is valid.  Result: A {2, 4, 5, 11}, B {1, 6, 9, 10}."""
    parsed = tr.rules.parse_orders(pa9, "A", "swap 25:10 55:11\nmove 1: 25=2 55=1 85=3")
    assert not parsed.errors
    assert parsed.canonical.split("; ")[0] == "swap 25:10 55:11"
    result = advance(tr.rules, pa9, {"A": parsed.orders}, random.Random(0))
    team = result.state.team("A")
    assert team.hands[25] == (2, 4, 5, 11)
    assert team.hands[55] == (1, 6, 9, 10)
    assert team.hands[85] == (3, 7, 8, 12)
    assert team.readjustments == 1
    assert result.private["A"]["readjustments_left"] == 1


def test_PA_9_rotation_is_valid(tr: SimpleNamespace, pa9: object) -> None:
    """PA-9: 3-cycle A:10 -> B, B:11 -> C, C:12 -> A is valid.
    Result: A {2, 4, 5, 12}, B {1, 6, 9, 10}, C {3, 7, 8, 11}."""
    parsed = tr.rules.parse_orders(pa9, "A", "rotate 25:10 55:11 85:12\nmove 1: 25=12 55=10 85=11")
    assert not parsed.errors
    result = advance(tr.rules, pa9, {"A": parsed.orders}, random.Random(0))
    team = result.state.team("A")
    assert (team.hands[25], team.hands[55], team.hands[85]) == ((2, 4, 5, 12), (1, 6, 9, 10), (3, 7, 8, 11))
    assert result.report["move_details"][0]["races"]["25"]["cards"]["A"] == 12


def test_PA_9_two_cards_out_of_one_runner_is_invalid(tr: SimpleNamespace, pa9: object) -> None:
    """PA-9: A gives 10 to B and 5 to C: invalid (two cards leave A)."""
    team = pa9.team("A")
    readjust, problem = parse_readjust("25:10 55:11 25:5", team)
    assert readjust is None
    assert "no more than one card may leave any one runner" in problem
    parsed = tr.rules.parse_orders(pa9, "A", "rotate 10 11 5\nmove 1: 25=2")
    assert "no more than one card may leave any one runner" in parsed.errors[0].message


def test_PA_9_one_way_move_is_invalid(tr: SimpleNamespace, pa9: object) -> None:
    """PA-9: one-way A:10 -> B is invalid by default (A would hold 3 cards and B 5)."""
    parsed = tr.rules.parse_orders(pa9, "A", "swap 25:10\nmove 1: 25=2")
    assert parsed.errors and "name two runners (a swap) or three (a rotation)" in parsed.errors[0].message
    assert parsed.orders is not None and parsed.orders.readjust is None


def test_PA_9_third_readjustment_is_invalid(tr: SimpleNamespace, pa9: object) -> None:
    """PA-9: a third readjustment in the same game is invalid."""
    team = pa9.team("A")
    once = apply_readjust(team, make([(25, 10), (55, 11)]))
    twice = apply_readjust(once, make([(25, 11), (55, 10)]))
    assert twice.readjustments == 2
    assert twice.hands == team.hands
    problem = readjust_problem(pa9, twice, make([(25, 2), (85, 3)]))
    assert problem is not None and "both of your 2 readjustments" in problem


def test_PA_9_third_readjustment_is_refused_in_play(tr: SimpleNamespace, pa9: object) -> None:
    """PA-9 through the game: readjust at moves 1 and 5, then the one at move 9 is refused."""
    state = pa9
    for text in ("swap 25:10 55:11", "swap 25:11 55:10"):
        parsed = tr.rules.parse_orders(state, "A", text)
        assert not parsed.errors, parsed.errors
        state = advance(tr.rules, state, {"A": parsed.orders}, random.Random(0)).state
        state = advance(tr.rules, state, {}, random.Random(0)).state
    assert state.moves == 8 and state.team("A").readjustments == 2
    parsed = tr.rules.parse_orders(state, "A", "swap 25:2 85:3")
    assert parsed.orders is None
    assert "both of your 2 readjustments" in parsed.errors[0].message
