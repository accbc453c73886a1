"""Cases derived from the seed rules and rulings P1-P8 (beyond the worked examples)."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from types import SimpleNamespace

import pytest

from adjudicator.api import IllegalOrders, PhaseKind, SetupError
from adjudicator.games.three_races.orders import DEFAULT_SPLIT, DeadlineOrders, MoveOrders
from adjudicator.games.three_races.scoring import move_runners, overall_places, race_result
from adjudicator.games.three_races.state import State
from adjudicator.turn import advance


def near_finish(tr: SimpleNamespace, race: int, squares: dict[str, int], **options: object) -> State:
    """A game after a setup nobody sent (every team has the default split 1 4 7 10 /
    2 5 8 11 / 3 6 9 12) with ``race``'s runners moved to ``squares``."""
    state = advance(tr.rules, tr.start(**options), {}, random.Random(0)).state
    races = tuple(replace(r, squares=dict(squares)) if r.length == race else r for r in state.races)
    return replace(state, races=races)


# --- P1: ties at the top ---------------------------------------------------------------


def test_P1_literal_top_tie_moves_nobody() -> None:
    """P1 default: R25 with 9, 9, 3, 2 gives no movement (ties at the reference move 0)."""
    movement = move_runners({"A": 9, "B": 9, "C": 3, "D": 2}, 1)
    assert movement.reference == 9
    assert set(movement.moved.values()) == {0}


@pytest.mark.parametrize(
    ("cards", "movers", "expected"),
    [
        ({"A": 9, "B": 9, "C": 3, "D": 2}, 1, {"A": 6, "B": 6, "C": 0, "D": 0}),
        ({"A": 9, "B": 9, "C": 9, "D": 2}, 2, {"A": 7, "B": 7, "C": 7, "D": 0}),
        ({"A": 6, "B": 6, "C": 6, "D": 6}, 3, {"A": 0, "B": 0, "C": 0, "D": 0}),
        ({"A": 9, "B": 7, "C": 7, "D": 3}, 2, {"A": 2, "B": 0, "C": 0, "D": 0}),
    ],
)
def test_P1_skip_equal_option(cards: dict[str, int], movers: int, expected: dict[str, int]) -> None:
    """P1 option skip_equal: both 9s move 6 in R25 9,9,3,2; it applies only to ties at the top,
    so the seed's R55 9,7,7,3 still moves only the 9, by 2; four equal cards move nobody."""
    assert move_runners(cards, movers, "skip_equal").moved == expected


def test_P1_skip_equal_through_a_game(tr: SimpleNamespace) -> None:
    """P1: the option reaches the engine (R25 9, 9, 3, 2 at move 1)."""
    cards = {"A": 9, "B": 9, "C": 3, "D": 2}
    hands = {seat: {25: [card]} for seat, card in cards.items()}
    move = {seat: {25: card} for seat, card in cards.items()}
    literal, _ = tr.game(hands, [move], moves_per_deadline=1)
    skip, _ = tr.game(hands, [move], moves_per_deadline=1, top_tie_mode="skip_equal")
    assert tr.squares(literal, 25) == {"A": 0, "B": 0, "C": 0, "D": 0}
    assert tr.squares(skip, 25) == {"A": 6, "B": 6, "C": 0, "D": 0}


# --- P2: ties in a race's result ---------------------------------------------------------


def test_P2_average_shares_the_points() -> None:
    """P2 default: a 2nd/3rd tie gives (3 + 2) / 2 = 2.5 each; the total is still 11."""
    result = race_result({"A": 26, "B": 20, "C": 20, "D": 3}, {"A": 24, "B": 18, "C": 19, "D": 3})
    assert result.places == {"A": 1, "B": 2, "C": 2, "D": 4}
    assert result.points == {"A": 5, "B": Fraction(5, 2), "C": Fraction(5, 2), "D": 1}
    assert sum(result.points.values()) == 11


def test_P2_average_three_way_and_four_way_ties() -> None:
    """P2: three level for 2nd share (3+2+1)/3 = 2; four level share 11/4 each."""
    three = race_result({"A": 30, "B": 5, "C": 5, "D": 5}, {"A": 0, "B": 0, "C": 0, "D": 0})
    assert three.points == {"A": 5, "B": 2, "C": 2, "D": 2}
    four = race_result({"A": 5, "B": 5, "C": 5, "D": 5}, {"A": 0, "B": 0, "C": 0, "D": 0})
    assert set(four.points.values()) == {Fraction(11, 4)}


def test_P2_two_runners_past_the_line_rank_by_distance() -> None:
    """P2/P8: squares past the line count in full: 58 beats 56 in the 55 race."""
    result = race_result({"A": 56, "B": 58, "C": 40, "D": 40}, {"A": 50, "B": 50, "C": 40, "D": 40})
    assert result.places == {"A": 2, "B": 1, "C": 3, "D": 3}
    assert result.points == {"A": 3, "B": 5, "C": Fraction(3, 2), "D": Fraction(3, 2)}


def test_P2_all_higher_option() -> None:
    """P2 option all_higher: each tied runner gets the points of the best place they share."""
    result = race_result({"A": 26, "B": 20, "C": 20, "D": 3}, {}, "all_higher")
    assert result.points == {"A": 5, "B": 3, "C": 3, "D": 1}


def test_P2_countback_previous_square_option() -> None:
    """P2 option countback_previous_square: level runners are ranked by their squares before
    the final move; level on both, they share."""
    squares = {"A": 26, "B": 20, "C": 20, "D": 20}
    before = {"A": 22, "B": 12, "C": 15, "D": 12}
    result = race_result(squares, before, "countback_previous_square")
    assert result.places == {"A": 1, "B": 3, "C": 2, "D": 3}
    assert result.points == {"A": 5, "B": Fraction(3, 2), "C": 3, "D": Fraction(3, 2)}


def test_P2_shared_points_through_a_game(tr: SimpleNamespace) -> None:
    """P2 in play: B and C both reach 26 in the 25 race at move 1 (skip_equal: 9, 9 vs 3)."""
    state = near_finish(tr, 25, {"A": 10, "B": 20, "C": 20, "D": 0}, top_tie_mode="skip_equal")
    orders = {
        "A": DeadlineOrders((MoveOrders((), ((25, 1),)), MoveOrders())),
        "B": DeadlineOrders((MoveOrders((), ((25, 10),)), MoveOrders())),
        "C": DeadlineOrders((MoveOrders((), ((25, 10),)), MoveOrders())),
        "D": DeadlineOrders((MoveOrders((), ((25, 4),)), MoveOrders())),
    }
    result = advance(tr.rules, state, orders, random.Random(0))
    race = result.state.race(25)
    assert race.squares == {"A": 10, "B": 26, "C": 26, "D": 0}
    assert race.finished_at == 1
    assert race.points == {"A": 2, "B": 4, "C": 4, "D": 1}
    assert result.report["races"][0]["rows"][0]["points"] == "4"
    assert tr.rules.public_state(result.state)["points"] == {"A": 2, "B": 4, "C": 4, "D": 1}


# --- P3: overall ties --------------------------------------------------------------------


def test_P3_countback_on_first_places() -> None:
    """P3 default: equal totals are separated by more 1st places, then 2nds, then 3rds."""
    totals = {"A": Fraction(7), "B": Fraction(7), "C": Fraction(11), "D": Fraction(8)}
    places = [{"A": 1, "B": 2, "C": 3, "D": 4}, {"A": 4, "B": 2, "C": 1, "D": 3}]
    assert overall_places(totals, places) == {"C": 1, "D": 2, "A": 3, "B": 4}


def test_P3_countback_on_second_places_then_shared() -> None:
    """P3: no 1st places either way, so 2nds decide; identical records share the place."""
    totals = {seat: Fraction(5) for seat in "ABCD"}
    places = [{"A": 2, "B": 3, "C": 2, "D": 3}]
    assert overall_places(totals, places) == {"A": 1, "C": 1, "B": 3, "D": 3}


def test_P3_shared_option() -> None:
    """P3 option shared: equal totals share the place at once."""
    totals = {"A": Fraction(7), "B": Fraction(7), "C": Fraction(11), "D": Fraction(8)}
    places = [{"A": 1, "B": 2, "C": 3, "D": 4}]
    assert overall_places(totals, places, "shared") == {"C": 1, "D": 2, "A": 3, "B": 3}


# --- P4: readjustment timing -----------------------------------------------------------


def test_P4_readjustment_only_at_a_cycle_start(tr: SimpleNamespace) -> None:
    """P4 default: before moves 1, 5, 9, ... only; the deadline of moves 3-4 refuses it."""
    state = tr.setup(tr.start(), {})
    state = advance(tr.rules, state, {}, random.Random(0)).state
    parsed = tr.rules.parse_orders(state, "A", "swap 25:4 55:8\nmove 1: 25=3")
    assert "only before the first move of a cycle" in parsed.errors[0].message
    assert "moves 3-4" in parsed.errors[0].message


def test_P4_any_move_keeps_played_status(tr: SimpleNamespace) -> None:
    """P4 option any_move: at move 3 a played card may be swapped for a played card; mixing a
    played and an unplayed card is refused (each runner must keep one card per move left)."""
    state = tr.setup(tr.start(readjust_timing="any_move"), {})
    played = tr.play(state, [{"A": {25: 1, 55: 5}}, {"A": {25: 2, 55: 6}}]).state
    mixed = tr.rules.parse_orders(played, "A", "swap 25:1 55:8")
    assert "only played or only unplayed" in mixed.errors[0].message
    parsed = tr.rules.parse_orders(played, "A", "swap 25:1 55:5\nmove 1: 25=3 55=7")
    assert not parsed.errors, parsed.errors
    result = advance(tr.rules, played, {"A": parsed.orders}, random.Random(0))
    team = result.state.team("A")
    assert team.hands[25] == (2, 3, 4, 5) and team.hands[55] == (1, 6, 7, 8)
    assert result.state.moves == 4
    assert team.available(25) == (2, 3, 4, 5)


def test_P4_readjust_moves_of_a_three_move_deadline(tr: SimpleNamespace) -> None:
    """P4 with moves_per_deadline 3: the deadline of moves 4-6 readjusts before move 5."""
    state = tr.setup(tr.start(moves_per_deadline=3), {})
    state = advance(tr.rules, state, {}, random.Random(0)).state
    parsed = tr.rules.parse_orders(state, "A", "swap 25:4 55:8\nmove 1: 25=4 55=8\nmove 2: 25=8 55=4")
    assert not parsed.errors, parsed.errors
    result = advance(tr.rules, state, {"A": parsed.orders}, random.Random(0))
    cards = [m["races"]["25"]["cards"]["A"] for m in result.report["move_details"]]
    assert cards == [4, 8, 1]
    assert any("before move 5: readjustment made" in n for n in result.private["A"]["notes"])


# --- P5: conditional orders ------------------------------------------------------------


def conditional_game(tr: SimpleNamespace, condition: str) -> dict[str, int]:
    """Move 1: B plays 12 in the 85 race; A's move 2 plays 25=4 if ``condition`` holds, else 25=3."""
    state = tr.setup(tr.start(), {"B": {85: [12]}})
    texts = {
        "A": f"move 1: 25=1\nmove 2 if {condition}: 25=4\nmove 2: 25=3 55=6",
        "B": "move 1: 85=12",
    }
    result = tr.submit(state, texts)
    return {
        "25": result.report["move_details"][1]["races"]["25"]["cards"]["A"],
        "55": result.report["move_details"][1]["races"]["55"]["cards"]["A"],
    }


@pytest.mark.parametrize(
    ("condition", "held"),
    [
        ("B played 12 in 85", True),
        ("B played 11 in 85", False),
        ("anyone played >= 12 in 85", True),
        ("C played >= 12 in 85", False),
        ("B square in 85 >= 3", True),
        ("B square in 85 > 11", False),
        ("B leads 85", True),
        ("not B leads 85", False),
        ("B ahead of A in 85", True),
        ("A ahead of B in 85", False),
        ("B behind A in 85", False),
        ("my place in 85 <= 2", True),
        ("25 finished", False),
        ("25 running", True),
        ("25 finished or B played 12 in 85", True),
        ("25 finished and B played 12 in 85", False),
    ],
)
def test_P5_conditions_choose_the_case(tr: SimpleNamespace, condition: str, held: bool) -> None:
    """P5: the first case that holds is played; a case that names no card for a race plays the
    plain card there (55=6); the plain line is used when no case holds."""
    played = conditional_game(tr, condition)
    assert played == {"25": 4 if held else 3, "55": 6}


def test_P5_first_matching_case_wins_and_notes_say_which(tr: SimpleNamespace) -> None:
    """P5: cases are tried in order; the private notes say which held."""
    state = tr.setup(tr.start(), {})
    text = "move 1: 25=1\nmove 2 if 85 finished: 25=2\nmove 2 if A place in 25 = 1: 25=3\nmove 2 if 25 running: 25=4"
    result = tr.submit(state, {"A": text})
    assert result.report["move_details"][1]["races"]["25"]["cards"]["A"] == 3
    assert 'move 2: case 2 held ("A place in 25 = 1")' in result.private["A"]["notes"]


def test_P5_a_finished_race_ignores_its_move_2_card(tr: SimpleNamespace) -> None:
    """P5/P8: the 25 race ends in move 1, so move 2 plays only the other races."""
    state = near_finish(tr, 25, {"A": 24, "B": 0, "C": 0, "D": 0})
    result = tr.submit(state, {"A": "move 1: 25=10\nmove 2 if 25 finished: 55=8\nmove 2: 25=4 55=5"})
    second = result.report["move_details"][1]["races"]
    assert set(second) == {"55", "85"}
    assert second["55"]["cards"]["A"] == 8
    assert result.state.race(25).finished_at == 1


# --- P6: no moves received ----------------------------------------------------------------


def test_P6_no_orders_play_the_lowest_cards(tr: SimpleNamespace) -> None:
    """Seed rule 10: the lowest available card in move 1, then the next lowest in move 2."""
    state = tr.setup(tr.start(), {"A": {25: [2, 4, 5, 10], 55: [1, 6, 9, 11], 85: [3, 7, 8, 12]}})
    result = advance(tr.rules, state, {}, random.Random(0))
    assert result.defaulted == ("A", "B", "C", "D")
    moves = result.report["move_details"]
    assert [moves[i]["races"]["25"]["cards"]["A"] for i in (0, 1)] == [2, 4]
    assert [moves[i]["races"]["85"]["cards"]["A"] for i in (0, 1)] == [3, 7]
    nmr = [e for e in result.events if e.kind == "nmr" and e.seat == "A"]
    assert nmr[0].text == "A: no orders received; the no-moves-received rule applies"
    assert "25=" not in " ".join(e.text for e in result.events)  # the defaults would reveal the split


def test_P6_cycle_boundary_inside_a_deadline(tr: SimpleNamespace) -> None:
    """P6: with three moves a deadline, moves 4-6 cross a cycle boundary: the lowest card
    available at each move is 12 (the last card of the cycle), then 9, then 10."""
    state = tr.setup(tr.start(moves_per_deadline=3), {"A": {85: [9, 10, 11, 12]}})
    state = tr.play(state, [{"A": {85: 9}}, {"A": {85: 10}}, {"A": {85: 11}}]).state
    default = tr.rules.default_orders(state, "A")
    assert [dict(m.cards)[85] for m in default.moves] == [12, 9, 10]


def test_P6_a_race_without_a_card_plays_its_lowest(tr: SimpleNamespace) -> None:
    """P6: a race a move does not name plays its lowest card left; the parser says so."""
    state = tr.setup(tr.start(), {})
    parsed = tr.rules.parse_orders(state, "A", "move 1: 25=4 55=8\nmove 2: 25=3 55=7 85=12")
    assert any("no card for the 85 race" in note for note in parsed.notes)
    result = advance(tr.rules, state, {"A": parsed.orders}, random.Random(0))
    assert result.report["move_details"][0]["races"]["85"]["cards"]["A"] == 9


def test_P6_default_setup_when_none_is_sent(tr: SimpleNamespace) -> None:
    """No setup received: the even split 1 4 7 10 / 2 5 8 11 / 3 6 9 12 (rules silent)."""
    state = tr.start()
    assert tr.rules.default_orders(state, "A") == DEFAULT_SPLIT
    after = advance(tr.rules, state, {}, random.Random(0)).state
    assert after.team("A").hands == {25: (1, 4, 7, 10), 55: (2, 5, 8, 11), 85: (3, 6, 9, 12)}


# --- P7 and P8 ----------------------------------------------------------------------------


def test_P7_finished_race_cards_are_retired(tr: SimpleNamespace) -> None:
    """P7: once the 25 race is over its cards cannot be readjusted, and need no orders."""
    state = near_finish(tr, 25, {"A": 24, "B": 0, "C": 0, "D": 0})
    state = tr.submit(state, {"A": "move 1: 25=10"}).state
    state = advance(tr.rules, state, {}, random.Random(0)).state
    assert state.race(25).finished and state.moves == 4
    parsed = tr.rules.parse_orders(state, "A", "swap 25:10 55:11\nmove 5: 25=7 55=2 85=3")
    assert "the 25 race has finished; its cards are retired" in parsed.errors[0].message
    assert any("move 5: the 25 race has finished and needs no card" in n for n in parsed.notes)
    assert parsed.canonical == "move 5: 55=2 85=3"
    case = tr.rules.parse_orders(state, "A", "move 5: 55=2\nmove 6 if B leads 55: 25=4\nmove 6: 55=5")
    assert '"move 6 if B leads 55: 25=4" was ignored: it names only finished races' in case.notes
    assert case.canonical == "move 5: 55=2; move 6: 55=5"
    assert tr.rules.parse_orders(state, "A", case.canonical).orders == case.orders


def test_P8_reaching_the_finish_exactly_ends_the_race(tr: SimpleNamespace) -> None:
    """P8: start on 0; square >= finish means finished (22 + 4 - 1 = 25)."""
    state = near_finish(tr, 25, {"A": 22, "B": 0, "C": 0, "D": 0})
    assert all(sq == 0 for sq in tr.start().race(55).squares.values())
    orders = {"A": DeadlineOrders((MoveOrders((), ((25, 4),)), MoveOrders()))}
    result = advance(tr.rules, state, orders, random.Random(0))
    race = result.state.race(25)
    assert race.squares["A"] == 25 and race.finished_at == 1
    assert race.points == {"A": 5, "B": Fraction(2), "C": Fraction(2), "D": Fraction(2)}
    assert any(e.kind == "finish" and "the 25 race finished at move 1" in e.text for e in result.events)


def test_game_over_when_all_three_races_finish(tr: SimpleNamespace) -> None:
    """Seed rule 1: the game ends when all three races are over; the winner has most points."""
    state = near_finish(tr, 25, {"A": 24, "B": 0, "C": 0, "D": 0})
    for race in (25, 55, 85):
        state = replace(
            state,
            races=tuple(
                replace(r, squares={"A": r.length - 1, "B": 0, "C": 0, "D": 0}) if r.length == race else r
                for r in state.races
            ),
        )
    orders = {"A": DeadlineOrders((MoveOrders((), ((25, 10), (55, 11), (85, 12))), MoveOrders()))}
    result = advance(tr.rules, state, orders, random.Random(0))
    assert tr.rules.phase(result.state) is None
    assert len(result.report["move_details"]) == 1
    assert result.events[-1].kind == "game-over"
    standings = tr.rules.standings(result.state)
    assert (standings[0].seat, standings[0].place, standings[0].score) == ("A", 1, 15)
    assert [s.place for s in standings[1:]] == [2, 2, 2]
    with pytest.raises(IllegalOrders):
        advance(tr.rules, result.state, {}, random.Random(0))


def test_max_moves_stops_a_stalled_game(tr: SimpleNamespace) -> None:
    """Safeguard: four identical teams that never send orders never move; at max_moves every
    race is stopped and ranked by square, the four level runners sharing 11/4 points each."""
    state = tr.start(max_moves=6)
    for _ in range(4):
        if tr.rules.phase(state) is None:
            break
        state = advance(tr.rules, state, {}, random.Random(0)).state
    assert tr.rules.phase(state) is None
    assert state.moves == 6 and state.turn == 4
    assert all(r.stopped and r.finished_at == 6 for r in state.races)
    assert tr.rules.public_state(state)["points"] == {s: 8.25 for s in "ABCD"}


# --- game shape -----------------------------------------------------------------------------


def test_phases_and_titles(tr: SimpleNamespace) -> None:
    """The setup is turn 0; deadline t plays moves 2t-1 and 2t; 1 move a deadline as an option."""
    state = tr.start()
    assert tr.rules.phase(state).kind is PhaseKind.SETUP
    state = tr.setup(state, {})
    phase = tr.rules.phase(state)
    assert (phase.number, phase.kind, phase.title) == (1, PhaseKind.TURN, "deadline 1: moves 1-2")
    assert phase.owing == ("A", "B", "C", "D")
    fast = tr.setup(tr.start(moves_per_deadline=1), {})
    assert tr.rules.phase(fast).title == "deadline 1: move 1"
    fast = advance(tr.rules, fast, {}, random.Random(0)).state
    assert (fast.moves, tr.rules.phase(fast).number) == (1, 2)


@pytest.mark.parametrize(
    ("seats", "options", "message"),
    [
        (("A", "B", "C"), {}, "exactly 4 teams"),
        (("A", "B", "C", "D", "E"), {}, "exactly 4 teams"),
        (("A", "B", "C", "D"), {"moves_per_deadline": 0}, "moves_per_deadline"),
        (("A", "B", "C", "D"), {"moves_per_deadline": 5}, "moves_per_deadline"),
        (("A", "B", "C", "D"), {"max_moves": 0}, "max_moves"),
        (("A", "B", "C", "D"), {"top_tie_mode": "generous"}, "top_tie_mode"),
    ],
)
def test_bad_setup_is_refused(tr: SimpleNamespace, seats: tuple[str, ...], options: dict, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        tr.start(seats, **options)


def test_every_ruling_option_is_declared(tr: SimpleNamespace) -> None:
    """docs/rules/three-races.md "Options" lists top_tie_mode, placing_tie, readjust_timing and the overall tie-break."""
    specs = {spec.name: spec for spec in tr.rules.options()}
    assert specs["top_tie_mode"].default == "literal"
    assert specs["placing_tie"].default == "average"
    assert specs["readjust_timing"].default == "cycle_start"
    assert specs["overall_tie"].default == "countback"
    assert specs["moves_per_deadline"].default == 2
    help_text = tr.rules.help_text()
    for name in specs:
        assert name in help_text
    assert "move 2 if B square in 55 >= 30" in help_text


def test_dump_and_load_round_trip(tr: SimpleNamespace) -> None:
    state = tr.setup(tr.start(placing_tie="all_higher"), {"A": {25: [2, 4, 5, 10]}})
    state = tr.submit(state, {"A": "swap 25:10 55:1\nmove 1: 25=2\nmove 2: 25=4"}).state
    state = replace(state, races=(replace(state.races[0], points={"A": Fraction(10, 3)}), *state.races[1:]))
    data = tr.rules.dump_state(state)
    assert data["version"] == 1
    assert tr.rules.load_state(data) == state


def test_secrets_stay_private(tr: SimpleNamespace) -> None:
    """docs/rules/three-races.md 2.1: the split is secret: not in the report, events or public state; the
    team's own copy (Resolution.private) has it."""
    state = tr.start()
    result = tr.submit(state, {"A": "25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8 12"})
    assert "hands" not in str(result.report) and "2 4 5 10" not in str(result.report)
    assert result.private["A"]["hands"][0] == {"race": 25, "hand": "2 4 5 10", "to_play": "2 4 5 10", "finished": False}
    deadline = tr.submit(result.state, {"A": "swap 25:10 55:11\nmove 1: 25=2\nmove 2: 25=4"})
    public = str(deadline.report) + str([e.text for e in deadline.events]) + str(tr.rules.public_state(deadline.state))
    assert "swap" not in public and "readjust" not in public and "2 4 5 11" not in public
    assert deadline.private["A"]["hands"][0]["to_play"] == "5 11"
    assert deadline.private["B"]["hands"][0]["hand"] == "1 4 7 10"
    assert deadline.report["cycle"]["rows"][0]["played"][0] == "2 4"
