"""Strike Gold rules beyond the worked examples: setup, options S1-S11, the interactive turn, invariants."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from types import SimpleNamespace

import pytest

from adjudicator.api import IllegalOrders, InvariantViolation, PhaseKind, SetupError
from adjudicator.games.strike_gold import StrikeGold
from adjudicator.games.strike_gold.cards import full_deck
from adjudicator.games.strike_gold.orders import Act, Action, Choice, DecisionOrder, SetupOrder, TurnOrder
from adjudicator.games.strike_gold.state import Pending, Source, Stage, State
from adjudicator.options import resolve_options
from adjudicator.turn import advance

DOWN = ("?1 ?2 ?3 ?4", "?5 ?6 ?7 ?8", "?9 ?10 ?11 ?12")


def _new(rules: StrikeGold, seats: list[str], **options: object) -> State:
    return rules.new_game(seats, resolve_options(rules.options(), options), random.Random(7))


# --- setup and the deal -------------------------------------------------------------------------


def test_seat_counts(rules: StrikeGold) -> None:
    for count in (1, 9):
        with pytest.raises(SetupError, match="2 to 8 players"):
            _new(rules, [f"P{i}" for i in range(count)])
    state = _new(rules, [f"P{i}" for i in range(8)])
    assert len(state.grids) == 8 and len(state.discard) == 1 and len(state.deck) == 150 - 96 - 1
    rules.check_invariants(state)


def test_deck_option_deals_seat_by_seat_in_reading_order(rules: StrikeGold, sg: SimpleNamespace) -> None:
    """The ``deck`` option, top first: 12 cards to each seat in turn (r1c1, r1c2 ... r3c4), one to the
    discard pile, and the rest is the draw pile."""
    p1 = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    p2 = [-2, -1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    deck = sg.stacked_deck({"P1": p1, "P2": p2}, discard=9, top=[-2, 12])
    state = _new(rules, ["P1", "P2"], deck=deck)
    assert [c.value for c in state.grids[0]] == p1
    assert [c.value for c in state.grids[1]] == p2
    assert not any(c.up for g in state.grids for c in g)
    assert state.discard == (9,)
    assert state.deck[:2] == (-2, 12) and len(state.deck) == 150 - 25
    text = " ".join(str(v) for v in deck)
    assert _new(rules, ["P1", "P2"], deck=text).grids == state.grids


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        ([1, 2, 3], "must list all 150 cards, top first; it lists 3"),
        ([5] * 150, "deck lists 0 cards of value -2; the deck holds 5"),
        ("1 2 three", "must list card values"),
        ({"a": 1}, "must be a list of card values"),
    ],
)
def test_deck_option_is_checked(rules: StrikeGold, deck: object, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        rules.new_game(["A", "B"], {"deck": deck}, random.Random(0))


def test_other_options_are_checked(rules: StrikeGold) -> None:
    with pytest.raises(SetupError, match="game_to must be one of"):
        rules.new_game(["A", "B"], {"game_to": 75}, random.Random(0))
    with pytest.raises(SetupError, match="contradicts"):
        rules.new_game(["A", "B"], {"out_player_scores_zero": True, "out_penalty": "none"}, random.Random(0))
    with pytest.raises(SetupError, match="unknown option"):
        rules.new_game(["A", "B"], {"colour": "red"}, random.Random(0))


def test_shuffle_comes_from_the_given_generator(rules: StrikeGold) -> None:
    a = rules.new_game(["A", "B"], {}, random.Random(1))
    b = rules.new_game(["A", "B"], {}, random.Random(1))
    c = rules.new_game(["A", "B"], {}, random.Random(2))
    assert a == b and a.deck != c.deck


def test_setup_is_one_simultaneous_phase(rules: StrikeGold) -> None:
    state = _new(rules, ["A", "B", "C"])
    phase = rules.phase(state)
    assert phase is not None
    assert (phase.number, phase.kind, phase.owing) == (0, PhaseKind.SETUP, ("A", "B", "C"))
    assert phase.resolve_when_complete
    result = advance(rules, state, {"A": SetupOrder((0, 11))}, random.Random(0))
    assert result.defaulted == ("B", "C")
    assert [c.up for c in result.state.grids[0]] == [True] + [False] * 10 + [True]
    # Ruling S10 at setup: the first two face-down slots in reading order.
    assert [c.up for c in result.state.grids[1]][:3] == [True, True, False]
    assert any(e.kind == "nmr" and "flip r1c1 r1c2" in e.text for e in result.events)
    phase = rules.phase(result.state)
    assert phase is not None
    assert (phase.number, phase.kind, phase.window, len(phase.owing)) == (1, PhaseKind.DECISION, "decision", 1)
    assert phase.resolve_when_complete


# --- moves --------------------------------------------------------------------------------------


def _two(sg: SimpleNamespace, grid_a: tuple[str, str, str], **kwargs: object) -> State:
    return sg.build({"A": sg.grid(*grid_a), "B": sg.grid(*DOWN)}, **kwargs)


GRID_A = ("7 ?1 ?2 9", "7 ?4 ?5 ?6", "?3 ?8 ?9 ?10")
CONDITIONAL = "draw deck; if 4 or less keep r1c4; else flip r2c2"


def test_conditional_order_keeps_a_low_card(sg: SimpleNamespace) -> None:
    result = sg.play(_two(sg, GRID_A, deck_top=(3,)), CONDITIONAL)
    assert sg.cells(result.state, "A")[0][3] == 3
    assert result.state.discard[-1] == 9
    assert "A drew 3 from the deck: 'if 4 or less keep r1c4' applies" in [e.text for e in result.events]


def test_conditional_order_flips_on_a_high_card(sg: SimpleNamespace) -> None:
    result = sg.play(_two(sg, GRID_A, deck_top=(10,)), CONDITIONAL)
    assert sg.cells(result.state, "A")[0][3] == 9
    assert sg.cells(result.state, "A")[1][1] == 4
    assert result.state.discard[-1] == 10
    assert "A drew 10 from the deck: 'else flip r2c2' applies" in [e.text for e in result.events]


def test_keep_where_it_clears_a_column(sg: SimpleNamespace) -> None:
    text = "draw deck; keep where it clears a column; else flip r2c2"
    cleared = sg.play(_two(sg, GRID_A, deck_top=(7,)), text).state
    assert cleared.columns_cleared == (1, 0)
    assert cleared.discard[-4:] == (3, 7, 7, 7)
    missed = sg.play(_two(sg, GRID_A, deck_top=(8,)), text).state
    assert missed.columns_cleared == (0, 0)
    assert sg.cells(missed, "A")[1][1] == 4


def test_keep_where_it_clears_may_replace_a_face_up_card(sg: SimpleNamespace) -> None:
    state = _two(sg, ("2 ?1 ?2 ?4", "2 ?5 ?6 ?7", "11 ?8 ?9 ?10"), deck_top=(2,))
    after = sg.play(state, "draw deck; keep where it clears a column; else flip r2c2").state
    assert after.discard[-4:] == (11, 2, 2, 2)
    assert after.columns_cleared == (1, 0)


def test_clearing_is_mandatory_even_for_minus_twos(sg: SimpleNamespace) -> None:
    """docs/rules/strike-gold.md 3.1 step 3: "Clearing is mandatory, even for -2/-2/-2"."""
    state = _two(sg, ("-2 ?1 ?2 ?4", "-2 ?5 ?6 ?7", "?3 ?8 ?9 ?10"), deck_top=(-2,))
    after = sg.play(state, "draw deck, keep r3c1").state
    assert after.columns_cleared == (1, 0)
    assert [row[0] for row in sg.cells(after, "A")] == ["x", "x", "x"]


def test_illegal_orders_are_refused_at_resolution(rules: StrikeGold, sg: SimpleNamespace) -> None:
    state = _two(sg, GRID_A)
    with pytest.raises(IllegalOrders, match="already face up"):
        rules.resolve(state, {"A": TurnOrder(Source.DECK, (Choice(Action(Act.FLIP, 0)),))}, random.Random(0))
    with pytest.raises(IllegalOrders, match="expected a TurnOrder"):
        rules.resolve(state, {"A": SetupOrder((1, 2))}, random.Random(0))


# --- the interactive turn (Discord) -------------------------------------------------------------


def test_draw_alone_shows_the_card_to_the_drawer_only(rules: StrikeGold, sg: SimpleNamespace) -> None:
    state = _two(sg, GRID_A, deck_top=(5,), turn=9)
    result = sg.play(state, "draw deck")
    drawn = result.state
    assert result.private == {"A": {"drawn": 5, "source": "deck"}}
    assert drawn.pending == Pending(5, Source.DECK)
    phase = rules.phase(drawn)
    assert phase is not None
    assert (phase.number, phase.owing, phase.window) == (10, ("A",), "decision")
    public = json.dumps([rules.public_state(drawn), result.report, [e.text for e in result.events]])
    assert public.count("5") == json.dumps(
        [
            rules.public_state(replace(drawn, pending=Pending(6, Source.DECK))),
            result.report,
            [e.text for e in result.events],
        ]
    ).count("5")
    assert rules.public_state(drawn)["pending"] == {"seat": "A", "source": "deck"}
    decided = sg.play(drawn, "keep r1c4")
    assert sg.cells(decided.state, "A")[0][3] == 5
    assert decided.state.pending is None and decided.state.stage is Stage.TURN
    assert any("kept the 5 from the deck in r1c4" in e.text for e in decided.events)
    assert rules.phase(decided.state).owing == ("B",)  # type: ignore[union-attr]


def test_draw_alone_from_the_discard_pile(rules: StrikeGold, sg: SimpleNamespace) -> None:
    result = sg.play(_two(sg, GRID_A, discard=(0, 4)), "take the discard")
    assert rules.public_state(result.state)["pending"] == {"seat": "A", "source": "discard", "value": 4}
    assert rules.parse_orders(result.state, "A", "flip r2c2").errors  # S1: must be kept
    # No decision received: the card goes into the first face-down slot (S10, extended for S1).
    nmr = advance(rules, result.state, {}, random.Random(0))
    assert sg.cells(nmr.state, "A")[0][1] == 4
    assert any(e.kind == "nmr" and "keep r1c2" in e.text for e in nmr.events)


def test_no_decision_received_after_drawing_alone(rules: StrikeGold, sg: SimpleNamespace) -> None:
    drawn = sg.play(_two(sg, GRID_A, deck_top=(5,)), "draw deck").state
    assert rules.default_orders(drawn, "A") == DecisionOrder((Choice(Action(Act.FLIP, 1)),))
    result = advance(rules, drawn, {}, random.Random(0))
    assert result.defaulted == ("A",)
    assert result.state.discard[-1] == 5


@pytest.mark.parametrize(
    ("deck_top", "decision"),
    [((7,), "keep r3c1"), ((5,), "flip r2c2"), ((5,), "keep r1c4"), ((3,), "if 4 or less keep r1c4; else flip r2c2")],
)
def test_drawing_alone_then_deciding_is_the_same_move_as_the_one_shot_order(
    sg: SimpleNamespace, deck_top: tuple[int, ...], decision: str
) -> None:
    """Discord's two steps (``draw deck``, then the decision: the Draw button) and the mail's one order
    make the same move: the same grids, piles, clears and events; only the turn count differs by the
    extra phase.  (SG-1: 7 into r3c1 completes column 1 and clears it.)"""
    state = _two(sg, GRID_A, deck_top=deck_top)
    joiner = "; " if decision.startswith("if") else ", "
    one_shot = sg.play(state, f"draw deck{joiner}{decision}")
    drawn = sg.play(state, "draw deck")
    two_steps = sg.play(drawn.state, decision)
    assert replace(two_steps.state, turn=0) == replace(one_shot.state, turn=0)
    assert two_steps.state.turn == one_shot.state.turn + 1
    assert [e.text for e in two_steps.events] == [e.text for e in one_shot.events]


# --- no moves received (S10) ---------------------------------------------------------------------


def test_S10_no_move_draws_and_flips_the_first_face_down_card(rules: StrikeGold, sg: SimpleNamespace) -> None:
    state = _two(sg, GRID_A, deck_top=(11,))
    result = advance(rules, state, {}, random.Random(0))
    assert result.events[0].kind == "nmr"
    assert "draw deck, flip r1c2" in result.events[0].text
    assert sg.cells(result.state, "A")[0][1] == 1
    assert result.state.discard[-1] == 11


def test_S10_no_move_without_face_down_cards_discards(rules: StrikeGold, sg: SimpleNamespace) -> None:
    state = sg.build({"A": sg.grid("1 2 3 4", "5 6 7 8", "9 10 11 12"), "B": sg.grid(*DOWN)}, out="B", current="A")
    assert rules.format_orders(state, "A", rules.default_orders(state, "A")) == "draw deck, discard"


# --- line clears with row wipe (S4) ---------------------------------------------------------------


def test_S4_full_row_wipe_after_a_column_clear(sg: SimpleNamespace) -> None:
    """Default ``row_wipe_mode`` full_row: clearing column 4 leaves row 2 = [5, 5, 5], which then clears."""
    grid_a = ("?1 ?2 ?3 7", "5 5 5 7", "?4 ?6 ?8 ?9")
    after = sg.play(_two(sg, grid_a, deck_top=(7,), options={"row_wipe": True}), "draw deck, keep r3c4").state
    assert (after.columns_cleared, after.rows_cleared) == ((1, 0), (1, 0))
    assert after.discard[-7:] == (9, 7, 7, 7, 5, 5, 5)
    assert sg.cells(after, "A")[1] == ["x", "x", "x", "x"]
    plain = sg.play(_two(sg, grid_a, deck_top=(7,)), "draw deck, keep r3c4").state
    assert (plain.columns_cleared, plain.rows_cleared) == ((1, 0), (0, 0))
    assert sg.cells(plain, "A")[1] == [5, 5, 5, "x"]


def test_S4_any_three_leaves_holes(sg: SimpleNamespace) -> None:
    grid_a = ("5 5 ?1 ?2", "?3 ?4 ?6 ?7", "?8 ?9 ?10 ?11")
    options = {"row_wipe": True, "row_wipe_mode": "any_three"}
    after = sg.play(_two(sg, grid_a, deck_top=(5,), options=options), "draw deck, keep r1c3").state
    assert sg.cells(after, "A")[0] == ["x", "x", "x", None]
    assert after.rows_cleared == (1, 0)
    full = sg.play(_two(sg, grid_a, deck_top=(5,), options={"row_wipe": True}), "draw deck, keep r1c3").state
    assert sg.cells(full, "A")[0] == [5, 5, 5, None]


def test_S4_row_and_column_together_remove_the_shared_card_once(sg: SimpleNamespace) -> None:
    grid_a = ("4 4 4 ?1", "?2 ?3 ?5 4", "?6 ?7 ?8 4")
    after = sg.play(_two(sg, grid_a, deck_top=(4,), options={"row_wipe": True}), "draw deck, keep r1c4").state
    assert (after.columns_cleared, after.rows_cleared) == ((1, 0), (1, 0))
    assert after.discard[-7:] == (1, 4, 4, 4, 4, 4, 4)
    assert sg.cells(after, "A")[0] == ["x", "x", "x", "x"]
    assert [row[3] for row in sg.cells(after, "A")] == ["x", "x", "x"]


# --- round scoring (S2, S3, S6, S7, S9) -----------------------------------------------------------


def _last_final_turn(
    sg: SimpleNamespace, out_grid: tuple[str, str, str], other: tuple[str, str, str], **kw: object
) -> State:
    """A went out; B's final turn (draw a 0 and discard & flip r1c1, a face-down 0) ends the round."""
    return sg.build({"A": sg.grid(*out_grid), "B": sg.grid(*other)}, deck_top=(0,), current="B", out="A", **kw)


B_10 = ("?0 2 3 -1", "1 0 0 0", "0 1 2 2")


def test_S2_a_tie_for_lowest_counts_as_lowest(sg: SimpleNamespace) -> None:
    out_grid = ("1 2 3 4", "0 0 0 0", "0 0 0 0")
    result = sg.play(_last_final_turn(sg, out_grid, B_10), "draw deck, flip r1c1")
    assert [(ln["raw"], ln["score"]) for ln in result.report["round_result"]["lines"]] == [(10, 10), (10, 10)]
    assert "tied" in result.report["round_result"]["note"]
    strict = _last_final_turn(sg, out_grid, B_10, options={"out_lowest_tie_counts": False})
    result = sg.play(strict, "draw deck, flip r1c1")
    assert [ln["score"] for ln in result.report["round_result"]["lines"]] == [20, 10]


def test_S3_a_score_of_zero_or_less_is_not_doubled(sg: SimpleNamespace) -> None:
    out_grid = ("-1 2 -2 1", "0 -1 1 0", "-1 0 0 0")
    low = ("?0 -2 -1 0", "3 -1 0 -2", "-1 1 2 -2")
    result = sg.play(_last_final_turn(sg, out_grid, low), "draw deck, flip r1c1")
    assert [(ln["raw"], ln["score"]) for ln in result.report["round_result"]["lines"]] == [(-1, -1), (-3, -3)]
    doubled = _last_final_turn(sg, out_grid, low, options={"double_only_positive": False})
    result = sg.play(doubled, "draw deck, flip r1c1")
    assert [ln["score"] for ln in result.report["round_result"]["lines"]] == [-2, -3]


def test_S6_the_game_ends_when_a_total_reaches_the_target(rules: StrikeGold, sg: SimpleNamespace) -> None:
    out_grid = ("1 2 3 4", "0 0 0 0", "0 0 0 0")
    ends = _last_final_turn(sg, out_grid, B_10, totals={"A": 40, "B": 0}, options={"game_to": 50})
    result = sg.play(ends, "draw deck, flip r1c1")
    assert result.state.totals == (50, 10)
    assert rules.phase(result.state) is None
    assert result.report["finished"] is True
    assert result.report["standings"] == [
        {"seat": "B", "place": 1, "score": 10},
        {"seat": "A", "place": 2, "score": 50},
    ]
    assert any(e.kind == "finish" for e in result.events)
    go_on = _last_final_turn(
        sg, out_grid, B_10, totals={"A": 40}, options={"game_to": 50, "target_comparison": "exceed"}
    )
    result = sg.play(go_on, "draw deck, flip r1c1")
    assert rules.phase(result.state) is not None and result.state.round == 2


def test_a_finished_game_takes_no_orders(rules: StrikeGold, sg: SimpleNamespace) -> None:
    ends = _last_final_turn(sg, ("1 2 3 4", "0 0 0 0", "0 0 0 0"), B_10, totals={"A": 49}, options={"game_to": 50})
    over = sg.play(ends, "draw deck, flip r1c1").state
    assert rules.parse_orders(over, "A", "draw deck, flip r1c1").errors[0].message == "the game is over"
    with pytest.raises(IllegalOrders):
        advance(rules, over, {}, random.Random(0))
    assert rules.public_state(over)["grids"]["B"][0][0] == 0  # the final grids stay revealed


def test_S7_tie_break_by_columns_cleared_then_shared(rules: StrikeGold, sg: SimpleNamespace) -> None:
    grids = {s: sg.grid(*DOWN) for s in ("A", "B", "C", "D")}
    state = sg.build(
        grids,
        totals={"A": 30, "B": 30, "C": 30, "D": 10},
        columns={"A": 1, "B": 2, "C": 1},
        rows={"A": 2},
    )
    assert [(s.seat, s.place, s.score) for s in rules.standings(state)] == [
        ("D", 1, 10),
        ("B", 2, 30),
        ("A", 3, 30),
        ("C", 3, 30),
    ]
    rows_count = sg.with_options(state, tiebreak_counts_rows=True)
    assert [(s.seat, s.place) for s in rules.standings(rows_count)] == [("D", 1), ("A", 2), ("B", 3), ("C", 4)]


def test_S9_previous_out_player_starts_later_rounds(rules: StrikeGold, sg: SimpleNamespace) -> None:
    out_grid = ("1 2 3 4", "0 0 0 0", "0 0 0 0")
    state = _last_final_turn(sg, out_grid, B_10, options={"later_round_starter": "previous_out_player"})
    round2 = sg.play(state, "draw deck, flip r1c1").state
    assert round2.stage is Stage.SETUP and round2.round == 2
    assert rules.phase(round2).owing == ("A", "B")  # type: ignore[union-attr]
    started = sg.setup(round2, {"A": "flip r1c1", "B": "flip r1c1"})
    assert rules.phase(started.state).owing == ("A",)  # type: ignore[union-attr]
    assert "went out last round" in started.events[-1].text


def test_a_new_round_is_dealt_face_down_and_shuffled(rules: StrikeGold, sg: SimpleNamespace) -> None:
    state = _last_final_turn(sg, ("1 2 3 4", "0 0 0 0", "0 0 0 0"), B_10)
    result = sg.play(state, "draw deck, flip r1c1")
    new = result.state
    assert new.round == 2 and new.out is None and new.previous_out == 0
    assert all(c is not None and not c.up for g in new.grids for c in g)
    assert len(new.discard) == 1 and len(new.deck) == 150 - 25
    assert result.report["next"] == {"seat": None, "what": "setup", "flips": 1, "round": 2}
    assert rules.parse_orders(new, "A", "flip r1c1 r1c2").errors  # only one card in later rounds


# --- S8: the draw pile runs out ---------------------------------------------------------------------


def test_S8_empty_draw_pile_reshuffles_the_discards_but_the_top(rules: StrikeGold, sg: SimpleNamespace) -> None:
    grids = {"A": sg.grid(*GRID_A), "B": sg.grid(*DOWN)}
    used = [c.value for g in grids.values() for c in g if c is not None]
    rest = list(full_deck())
    for v in used:
        rest.remove(v)
    rest.remove(12)
    state = sg.build(grids, discard=(*rest, 12), fill=False)
    assert state.deck == ()
    result = advance(rules, state, {"A": TurnOrder(Source.DECK, (Choice(Action(Act.FLIP, 5)),))}, random.Random(3))
    after = result.state
    assert any(e.kind == "reshuffle" for e in result.events)
    assert after.discard[0] == 12
    assert len(after.deck) == len(rest) - 1
    assert sorted((*after.deck, after.discard[1])) == sorted(rest)


# --- state and invariants -----------------------------------------------------------------------------


def test_dump_and_load_round_trip(rules: StrikeGold, sg: SimpleNamespace) -> None:
    states = [
        _new(rules, ["A", "B", "C"], deck=sg.stacked_deck({"A": [1] * 10 + [2, 2]}, discard=3)),
        sg.play(_two(sg, GRID_A, deck_top=(5,)), "draw deck").state,
        _last_final_turn(sg, ("1 2 3 4", "0 0 0 0", "0 0 0 0"), B_10, totals={"A": 3}),
    ]
    for state in states:
        data = json.loads(json.dumps(rules.dump_state(state)))
        assert data["version"] == 1
        assert rules.load_state(data) == state
    with pytest.raises(ValueError, match="version"):
        rules.load_state({**rules.dump_state(states[0]), "version": 99})


def test_invariants_catch_a_lost_card(rules: StrikeGold, sg: SimpleNamespace) -> None:
    state = _two(sg, GRID_A)
    rules.check_invariants(state)
    with pytest.raises(InvariantViolation, match="150-card deck"):
        rules.check_invariants(replace(state, deck=state.deck[1:]))
    with pytest.raises(InvariantViolation, match="pending"):
        rules.check_invariants(replace(state, stage=Stage.DECIDE))


def test_help_lists_the_syntax_and_every_option(rules: StrikeGold) -> None:
    text = rules.help_text()
    assert "draw deck; if 4 or less keep r3c1; else flip r2c2" in text
    for spec in rules.options():
        assert spec.name in text
