"""The worked examples of docs/rules/golden-strider.md 1.4, one test each, named after their ids."""

from __future__ import annotations

import pytest

from adjudicator.games.golden_strider.track import run
from tests.adjudicator.golden_strider.scenario import RULES, line, play, runner, state

SIX = "ABCDEF"


def _round_one_field():
    """GS-1's six runners at the start of round 1 (D holds five 6s, as GS-12 shows)."""
    hands = {
        "A": "10/0 5/0 5/0 5/0 5/0",
        "B": "8/0 8/0 6/0 4/0 4/0",
        "C": "6/0 6/0 6/0 6/0 6/0",
        "D": "6/0 6/0 6/0 6/0 6/0",
        "E": "5/0 5/0 5/0 5/0 10/0",
        "F": "5/0 5/0 5/0 5/0 10/0",
    }
    return state(*(runner(seat, hand=hands[seat]) for seat in SIX), round_number=1)


GS1_ORDERS = {
    "A": "play 10/0 bank 0",
    "B": "play 8/0 bank 2",
    "C": "play 6/0 bank 0",
    "D": "play 6/0 bank 3",
    "E": "play 5/0 bank 0",
    "F": "play 5/0 bank 5",
}


def test_GS_1_replacement_cards_tie_and_cap():
    """GS-1: squares A10 B6 C6 E5 D3 F0; positions 1, 2=, 2=, 4, 5, 6; replacements 0 5 1 8 2 10 (cap)."""
    result = play(_round_one_field(), GS1_ORDERS)
    squares = {seat: line(result, seat)["S"] for seat in SIX}
    places = {seat: line(result, seat)["P"] for seat in SIX}
    replacements = {seat: line(result, seat)["R"] for seat in SIX}
    assert squares == {"A": 10, "B": 6, "C": 6, "D": 3, "E": 5, "F": 0}
    assert places == {"A": 1, "B": 2, "C": 2, "D": 5, "E": 4, "F": 6}
    assert replacements == {"A": 0, "B": 5, "C": 1, "D": 8, "E": 2, "F": 10}
    assert all(card.turn == 1 for r in result.state.runners for card in r.hand if card.turn > 0)
    assert [c.label for c in result.state.runner("F").hand][-1] == "10/1"


def _gs3_field(first_charged: int):
    field = [runner("A", 6), runner("B", 5)] + [runner(seat, 0) for seat in "CDEF"]
    return state(*field, round_number=2, first_charged_overtake_round=first_charged)


GS3_ORDERS = {"A": "play 6/0 bank 4", "B": "play 6/0 bank 2", **{s: "play 6/0 bank 6" for s in "CDEF"}}


def test_GS_3_round_two_overtake_free_by_default():
    """GS-3: B goes 2nd -> 1st in round 2; by default (G1 = 3) B owes nothing in round 3."""
    result = play(_gs3_field(3), GS3_ORDERS)
    assert line(result, "B")["S"] == 9 and line(result, "A")["S"] == 8
    assert result.state.runner("B").owed == 0


def test_GS_3_round_two_overtake_charged_with_howell_option():
    """GS-3 option first_charged_overtake_round = 2 (Howell): B owes 1 in round 3."""
    result = play(_gs3_field(2), GS3_ORDERS)
    assert result.state.runner("B").owed == 1
    assert line(result, "B")["O"] == 1


def _gs4_field(owed: int, hand: str, round_number: int):
    others = [runner("A", 40, hand="0/0 0/0 10/0 10/2 10/3"), runner("B", 30, hand="0/0 0/0 10/0 10/2 10/3"),
              runner("C", 25, hand="0/0 0/0 10/0 10/2 10/3"), runner("E", 10, hand="0/0 0/0 10/0 10/2 10/3"),
              runner("F", 5, hand="0/0 0/0 10/0 10/2 10/3")]  # fmt: skip
    return state(*others, runner("D", 23, owed, hand), round_number=round_number)


STAND_STILL = {seat: "play 0/0" for seat in "ABCEF"}


def test_GS_4_restitution_bigger_than_card_is_carried_forward():
    """GS-4: owes 2, plays 1 (M0 B0): deduct 1, M 0, B 0, 1 carried (cf); stays on 23; 4th so R = 2."""
    result = play(_gs4_field(2, "1/0 7/0 7/0 5/2 8/3", 4), {**STAND_STILL, "D": "play 1/0 move 0 bank 0"})
    d = line(result, "D")
    assert (d["D"], d["M"], d["B"], d["S"], d["P"], d["R"]) == (1, 0, 0, 23, 4, 2)
    assert d["cf"] is True and d["O"] == 1
    assert result.state.runner("D").owed == 1


def test_GS_4_round_five_pays_the_rest_then_banks():
    """GS-4 round 5: owes 1, plays 7 with bank 2: deduct 1, bank 2, move 4."""
    result = play(_gs4_field(1, "7/0 7/0 8/2 6/3 2/4", 5), {**STAND_STILL, "D": "play 7/0 bank 2"})
    d = line(result, "D")
    assert (d["D"], d["B"], d["M"], d["S"]) == (1, 2, 4, 27)
    assert d["cf"] is False


def test_GS_4_variant_card_zero_pays_nothing():
    """GS-4 variant: owes 2 and plays 0: deduct 0, M 0, B 0, still owes 2 (cf)."""
    result = play(_gs4_field(2, "0/0 7/0 7/0 9/2 8/3", 4), {**STAND_STILL, "D": "play 0/0"})
    d = line(result, "D")
    assert (d["D"], d["M"], d["B"], d["cf"]) == (0, 0, 0, True)
    assert result.state.runner("D").owed == 2


def test_GS_4_order_mismatch_bank_honoured_movement_is_the_rest():
    """GS-4 G5 variant: owes 2, card 5, order "M5 B0": deduct 2, bank 0, move 3."""
    start = _gs4_field(2, "5/0 7/0 7/0 4/2 8/3", 4)
    parsed = RULES.parse_orders(start, "D", "play 5/0 m5 b0")
    assert any("G5" in note for note in parsed.notes)
    result = play(start, {**STAND_STILL, "D": "play 5/0 m5 b0"})
    d = line(result, "D")
    assert (d["D"], d["B"], d["M"], d["S"]) == (2, 0, 3, 26)


def _gs5_field(**options):
    hero = runner("A", 10, 0, "3/0 5/0 7/0 9/0 6/3")
    return state(hero, *(runner(seat, 0) for seat in "BCDEF"), round_number=4, **options)


def test_GS_5_seven_turn_rule_overrides_infeasible_play():
    """GS-5: holding four initial cards at turn 4, playing 6/3 is infeasible (7 >= 8 fails):
    the referee plays 3/0, oldest and lowest initial card, for movement only."""
    start = _gs5_field()
    parsed = RULES.parse_orders(start, "A", "play 6/3 bank 2")
    assert parsed.accepted and any("WARNING" in note for note in parsed.notes)
    result = play(start, {"A": "play 6/3 bank 2"})
    a = line(result, "A")
    played = [c["label"] for c in a["cards"] if c["played"]]
    assert played == ["3/0"] and a["B"] == 0 and a["M"] == 3 and a["S"] == 13
    assert any(e.kind == "override" and e.seat == "A" for e in result.events)
    assert "6/3" in [c.label for c in result.state.runner("A").hand]


@pytest.mark.parametrize("initial", ["3/0", "5/0", "7/0", "9/0"])
def test_GS_5_any_initial_card_would_have_been_legal(initial):
    """GS-5: remaining deadlines 7, 7, 7, 10 pass the check, so any initial card is played as ordered."""
    result = play(_gs5_field(), {"A": f"play {initial} bank 0"})
    assert [c["label"] for c in line(result, "A")["cards"] if c["played"]] == [initial]
    assert not any(e.kind == "override" for e in result.events)


def test_GS_5_deadline_only_accepts_the_play():
    """GS-5 under expiry_enforcement = deadline_only: the 6/3 play is accepted at turn 4."""
    result = play(_gs5_field(expiry_enforcement="deadline_only"), {"A": "play 6/3 bank 2"})
    assert [c["label"] for c in line(result, "A")["cards"] if c["played"]] == ["6/3"]


def _gs9_field(x_move: int, y_move: int, **options):
    x = runner("X", 55, hand=f"{x_move}/8 0/8 0/8 0/8 0/8")
    y = runner("Y", 58, hand=f"{y_move}/8 0/8 0/8 0/8 0/8")
    others = [runner(seat, 0, hand="0/8 0/8 0/8 0/8 0/8") for seat in "CDEF"]
    start = state(x, y, *others, round_number=9, race_length=60, **options)
    return play(start, {"X": f"play {x_move}/8", "Y": f"play {y_move}/8", **{s: "play 0/8" for s in "CDEF"}})


def test_GS_9_furthest_past_the_post_wins():
    """GS-9: X 55 + 8 = 63, Y 58 + 4 = 62: the race ends, X wins, Y is 2nd."""
    result = _gs9_field(8, 4)
    assert RULES.phase(result.state) is None
    standings = RULES.standings(result.state)
    assert [(s.seat, s.place) for s in standings[:2]] == [("X", 1), ("Y", 2)]


def test_GS_9_tie_gives_joint_winners_by_default():
    """GS-9 tie variant: both reach 63; by default (G6) they are joint winners."""
    standings = RULES.standings(_gs9_field(8, 5).state)
    assert {(s.seat, s.place) for s in standings[:2]} == {("X", 1), ("Y", 1)}
    assert standings[2].place == 3


def test_GS_9_tie_broken_by_position_before_with_option():
    """G6 option winner_tie = position_before: Y was ahead at the start of the round, so Y wins."""
    standings = RULES.standings(_gs9_field(8, 5, winner_tie="position_before").state)
    assert [(s.seat, s.place) for s in standings[:2]] == [("Y", 1), ("X", 2)]


@pytest.mark.parametrize(
    ("start", "points", "end", "tripped", "shortfall", "penalty"),
    [
        (19, 3, 20, False, 0, 0),
        (19, 2, 20, True, 1, 2),
        (19, 4, 21, False, 0, 0),
        (18, 5, 21, False, 0, 0),
        (16, 5, 20, True, 1, 2),
        (9, 1, 10, True, 1, 2),
        (19, 1, 20, True, 2, 3),
        (17, 10, 25, False, 0, 0),
        (20, 4, 24, False, 0, 0),
        (29, 10, 38, False, 0, 0),
    ],
)
def test_GS_10_steeplechase_vectors(start, points, end, tripped, shortfall, penalty):
    """GS-10: the steeplechase movement table, row by row (docs/rules/golden-strider.md 1.3, G9, G10)."""
    stride = run(start, points, steeplechase=True)
    assert (stride.square, stride.tripped, stride.shortfall, stride.penalty) == (end, tripped, shortfall, penalty)


def test_GS_10_trip_penalises_the_replacement_card_after_the_cap():
    """Steeplechase + G8: a trip on 20 from 19 with 2 points costs 2 off the replacement card."""
    hero = runner("A", 19, hand="4/0 6/0 6/0 6/0 8/0")
    start = state(hero, *(runner(s, 0) for s in "BCDEF"), round_number=3, steeplechase=True)
    result = play(start, {"A": "play 4/0 bank 2", **{s: "play 6/0 bank 6" for s in "BCDEF"}})
    a = line(result, "A")
    assert (a["S"], a["M"], a["B"], a["tripped"]) == (20, 2, 2, True)
    # 2*2 banked + 0 bonus (1st) = 4, minus penalty 2 = 2
    assert a["R"] == 2


def test_GS_10_trip_penalty_larger_than_card_becomes_restitution():
    """Steeplechase: a replacement smaller than the penalty leaves the balance owed next round."""
    hero = runner("A", 19, hand="1/0 6/0 6/0 6/0 11/0".replace("11/0", "10/0"))
    start = state(hero, *(runner(s, 30) for s in "BCDEF"), round_number=3, steeplechase=True)
    result = play(start, {"A": "play 1/0", **{s: "play 6/0 bank 6" for s in "BCDEF"}})
    a = line(result, "A")
    # 1 point from 19: trips on 20 with shortfall 2, penalty 3; replacement 0 + bonus(6th) 2 = 2 -> 0, 1 owed
    assert (a["S"], a["R"], a["O"]) == (20, 0, 1)


def test_GS_12_report_line_of_runner_d():
    """GS-12: D's rule-15 line after GS-1 reads 6/0 x5, 8/1, D -, M 3, B 3, R 8, S 3, P 5, O -."""
    from bot.core.messaging.rendering import render_report_body

    result = play(_round_one_field(), GS1_ORDERS)
    text = render_report_body(RULES.kind, result.report, [e.text for e in result.events])
    d_line = next(row for row in text.splitlines() if row.startswith("D "))
    assert d_line.replace("*", "").split() == [
        "D",
        "6/0",
        "6/0",
        "6/0",
        "6/0",
        "6/0",
        "8/1",
        "-",
        "3",
        "3",
        "8",
        "3",
        "5",
        "-",
    ]
    assert d_line.count("*") == 1


def test_rule_13_no_orders_plays_oldest_lowest_initial_card_for_movement_only():
    """Seed rule 13: no orders -> the oldest card (lowest initial card), movement only after restitution."""
    hero = runner("A", 10, 1, "4/0 2/0 9/0 7/2 5/3")
    start = state(hero, *(runner(s, 0) for s in "BCDEF"), round_number=4)
    result = play(start, {s: "play 6/0" for s in "BCDEF"})
    a = line(result, "A")
    assert [c["label"] for c in a["cards"] if c["played"]] == ["2/0"]
    assert (a["D"], a["M"], a["B"]) == (1, 1, 0)
    assert result.defaulted == ("A",)
    assert any(e.kind == "nmr" and e.seat == "A" for e in result.events)


def test_rule_6_bonus_for_ten_runners_reaches_eighth_place():
    """Seed rule 6 / variablepig: with ten runners the 2-point bonus runs from 4th to 8th."""
    from adjudicator.games.golden_strider.track import positional_bonus

    assert [positional_bonus(p, 10) for p in range(1, 11)] == [0, 1, 1, 2, 2, 2, 2, 2, 0, 0]
    assert [positional_bonus(p, 9) for p in range(1, 10)] == [0, 1, 1, 2, 2, 2, 0, 0, 0]


def test_G4_substitute_lowest_sufficient_option():
    """G4 option substitute_lowest_sufficient: a card too small for restitution is replaced by the
    lowest card that pays it in full."""
    hero = runner("A", 10, 3, "1/0 2/0 4/0 9/0 5/3")
    start = state(hero, *(runner(s, 0) for s in "BCDEF"), round_number=4, shortfall_mode="substitute_lowest_sufficient")
    result = play(start, {"A": "play 1/0", **{s: "play 6/0" for s in "BCDEF"}})
    a = line(result, "A")
    assert [c["label"] for c in a["cards"] if c["played"]] == ["4/0"]
    assert (a["D"], a["M"], a["cf"]) == (3, 1, False)


def test_G4_substitute_keeps_the_seven_turn_rule():
    """G4 with G3: a card that pays the restitution in full is no substitute when playing it lets another
    card expire (here 0/2, due this round 9): the ordered 0/2 is played and the rest carried forward, where
    the substitute used to leave 0/2 in the hand past its deadline (an invariant violation: a stuck game)."""
    others = [runner(s, 0, 0, "6/4 6/5 6/6 6/7 6/8") for s in "BCDEF"]
    orders = {s: "play 6/4" for s in "BCDEF"}
    start = state(runner("A", 10, 3, "0/2 4/5 6/6 2/7 1/8"), *others, round_number=9,
                  shortfall_mode="substitute_lowest_sufficient")  # fmt: skip
    result = play(start, {"A": "play 0/2", **orders})
    a = line(result, "A")
    assert [c["label"] for c in a["cards"] if c["played"]] == ["0/2"]
    assert (a["D"], a["cf"]) == (0, True)
    assert not any(e.kind == "substitute" for e in result.events)
    assert all(card.deadline >= 10 for card in result.state.runner("A").hand)
    fine = state(runner("A", 10, 3, "1/3 4/5 6/6 2/7 1/8"), *others, round_number=9,
                 shortfall_mode="substitute_lowest_sufficient")  # fmt: skip
    substituted = line(play(fine, {"A": "play 1/3", **orders}), "A")
    assert [c["label"] for c in substituted["cards"] if c["played"]] == ["4/5"]  # nothing expires: G4 applies


def test_G5_bank_is_capped_at_the_points_left_after_restitution():
    """G5 / docs/rules/golden-strider.md 1.1: B' = min(B, card - D): owing 3 with a 4 and bank 3 banks only 1, moves 0."""
    start = _gs4_field(3, "4/0 7/0 7/0 5/2 8/3", 4)
    parsed = RULES.parse_orders(start, "D", "play 4/0 bank 3")
    assert "only 1 can be banked after restitution" in parsed.notes
    result = play(start, {**STAND_STILL, "D": "play 4/0 bank 3"})
    d = line(result, "D")
    assert (d["D"], d["B"], d["M"], d["S"], d["R"]) == (3, 1, 0, 23, 2 * 1 + 2)
