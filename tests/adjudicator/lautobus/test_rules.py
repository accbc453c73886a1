"""L'autobus rules beyond the worked examples: seed rules 3-15 and rulings L1-L9."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from adjudicator.api import IllegalOrders, PhaseKind, SetupError
from adjudicator.games.lautobus import Lautobus
from adjudicator.games.lautobus.cards import move
from adjudicator.games.lautobus.layout import default_layout
from adjudicator.games.lautobus.orders import Play, TeamOrders
from adjudicator.games.lautobus.scoring import team_scores
from adjudicator.options import resolve_options
from adjudicator.turn import advance

SEATS = ["A", "B", "C", "D", "E"]


def new(options: dict[str, object] | None = None, seed: int = 0) -> object:
    rules = Lautobus()
    return rules.new_game(SEATS, resolve_options(rules.options(), options or {}), random.Random(seed))


# --- start (seed rules 1-3, rulings L1-L3) ---------------------------------------------------


def test_L2_default_layout_follows_the_anchors_leader_on_29() -> None:
    """L2: follow the explicit anchors (1 and 7), so the leader is on 29 (not the seed's 31)."""
    assert default_layout() == (*range(1, 6), *range(7, 12), *range(13, 18), *range(19, 24), *range(25, 30))


def test_start_hands_are_the_L1_default_set_plus_specials() -> None:
    """L1: default {1..6} per cyclist, plus ZERO and SPRINT."""
    state = new()
    assert len(state.cyclists) == 25
    assert all([c.to_json() for c in cy.cards] == [1, 2, 3, 4, 5, 6, "zero", "sprint"] for cy in state.cyclists)


def test_riders_are_numbered_from_the_front_of_the_start() -> None:
    """Referee's numbering: rider 1 is the team's cyclist nearest the front; under L3 one per group."""
    state = new()
    a = {c.rider: c.space for c in state.team("A")}
    assert a == {1: 26, 2: 21, 3: 16, 4: 11, 5: 1}


def test_L2_start_layout_option_explicit_spaces() -> None:
    """L2 option: an explicit list of 25 positions (here the seed's leader on 31: gap of 3 before A)."""
    layout = [*range(1, 6), *range(7, 12), *range(13, 18), *range(19, 24), *range(27, 32)]
    state = new({"start_layout": list(reversed(layout))})
    spaces = sorted(c.space for c in state.cyclists)
    assert spaces == layout
    team_at = {c.space: c.team for c in state.cyclists}
    assert [team_at[s] for s in range(27, 32)] == ["E", "A", "B", "C", "D"]
    assert team_at[31] == "D"


@pytest.mark.parametrize(
    "layout",
    [list(range(1, 25)), [1] * 25, list(range(0, 25)), "front", [*range(1, 25), 2.5]],
)
def test_start_layout_option_rejects_bad_values(layout: object) -> None:
    with pytest.raises(SetupError):
        new({"start_layout": layout})


def test_L3_seeded_random_start_depends_only_on_the_rng() -> None:
    """L3 option seeded_random: the same generator gives the same start; each team still has five riders."""
    one = new({"start_assignment": "seeded_random"}, seed=7)
    two = new({"start_assignment": "seeded_random"}, seed=7)
    assert one == two
    others = {
        tuple(c.team for c in sorted(new({"start_assignment": "seeded_random"}, s).cyclists, key=lambda c: c.space))
        for s in range(5)
    }
    assert len(others) > 1
    assert all(sorted(c.rider for c in one.team(seat)) == [1, 2, 3, 4, 5] for seat in SEATS)
    for seat in SEATS:
        spaces = [c.space for c in sorted(one.team(seat), key=lambda c: c.rider)]
        assert spaces == sorted(spaces, reverse=True)


def test_new_game_needs_exactly_five_teams() -> None:
    """Seed rule 1: five teams per game."""
    with pytest.raises(SetupError):
        Lautobus().new_game(SEATS[:4], {}, random.Random(0))
    with pytest.raises(SetupError):
        Lautobus().new_game([*SEATS, "F"], {}, random.Random(0))


def test_L1_movement_cards_option() -> None:
    """L1 option: the movement card set (duplicates allowed); bad sets are refused."""
    state = new({"movement_cards": [2, 1, 1]})
    assert [c.to_json() for c in state.cyclists[0].cards] == [1, 1, 2, "zero", "sprint"]
    for bad in ([], [0, 1], [1, 21], ["1"], [True], list(range(1, 14))):
        with pytest.raises(SetupError):
            new({"movement_cards": bad})


@pytest.mark.parametrize(
    ("name", "value"),
    [("start_assignment", "shuffle"), ("slipstream_timing", "during"), ("team_tie", "coin"), ("sprint1_retainable", 1)],
)
def test_bad_option_values_are_refused(name: str, value: object) -> None:
    with pytest.raises(SetupError):
        new({name: value})


# --- slipstream (seed rules 5-6, rulings L4-L5) ---------------------------------------------


def test_L4_before_timing_discards_when_only_adjacent_after_movement(la: SimpleNamespace) -> None:
    """L4 default 'before': X on 10 (11 empty) discards its 3 even though movement leaves it
    directly behind Y (Y 12 -> 15, X 10 -> 13 occupied by an idle cyclist -> 14)."""
    state = la.state([("A", 1, 10, la.FULL), ("B", 1, 12, la.FULL), ("C", 1, 13, [])])
    result = la.play(state, {"A": "1: 3", "B": "1: 3"})
    assert la.where(result.state) == {("A", 1): 14, ("B", 1): 15, ("C", 1): 13}
    assert 3 not in la.hand(result.state, "A", 1)


def test_L4_after_timing_option_keeps_when_adjacent_after_movement(la: SimpleNamespace) -> None:
    """L4 option 'after': the same turn, judged after movement: X on 14 is directly behind Y on 15."""
    state = la.state([("A", 1, 10, la.FULL), ("B", 1, 12, la.FULL), ("C", 1, 13, [])], slipstream_timing="after")
    result = la.play(state, {"A": "1: 3", "B": "1: 3"})
    assert 3 in la.hand(result.state, "A", 1)
    assert 3 not in la.hand(result.state, "B", 1)


def test_L4_after_timing_option_discards_when_separated_by_movement(la: SimpleNamespace) -> None:
    """L4 option 'after': X on 10 behind Y on 11, both play 3; Y jumps the idle cyclist on 14
    to 15, X lands on 13: not adjacent after movement, so X discards (it would keep under 'before')."""
    riders = [("A", 1, 10, la.FULL), ("B", 1, 11, la.FULL), ("C", 1, 14, [])]
    after = la.play(la.state(riders, slipstream_timing="after"), {"A": "1: 3", "B": "1: 3"})
    before = la.play(la.state(riders), {"A": "1: 3", "B": "1: 3"})
    assert la.where(after.state)[("A", 1)] == 13 and la.where(after.state)[("B", 1)] == 15
    assert 3 not in la.hand(after.state, "A", 1)
    assert 3 in la.hand(before.state, "A", 1)


def test_no_keep_behind_a_cyclist_without_cards(la: SimpleNamespace) -> None:
    """Seed rules 5-6: the cyclist ahead must have played the same card; an idle one played none.
    It still fills its space and does not move (docs/rules/lautobus.md 5.1 step 4)."""
    state = la.state([("A", 1, 10, [1]), ("B", 1, 11, []), ("E", 1, 1, [1, 2])])
    result = la.play(state, {"A": "1: 1", "E": "1: 1"})
    assert la.where(result.state) == {("A", 1): 12, ("B", 1): 11, ("E", 1): 2}
    assert la.hand(result.state, "A", 1) == []


def test_L5_last_card_sprint_moves_1_and_can_be_kept(la: SimpleNamespace) -> None:
    """Seed rule 11 and L5 default: a SPRINT played as the last card is a normal 1, kept when the
    cyclist ahead plays a 1."""
    state = la.state([("A", 1, 20, ["sprint"]), ("B", 1, 21, [1, 4])])
    result = la.play(state, {"A": "1: sprint", "B": "1: 1"})
    assert la.where(result.state) == {("A", 1): 21, ("B", 1): 22}
    assert la.hand(result.state, "A", 1) == ["sprint"]
    line = next(c for c in result.report["cyclists"] if c["code"] == "A1")
    assert (line["card"], line["result"]) == ("sprint=1", "kept")


def test_L5_normal_1_matches_a_leaders_last_card_sprint(la: SimpleNamespace) -> None:
    """L5 default: a follower's normal 1 matches a leader's SPRINT-as-1."""
    state = la.state([("A", 1, 20, [1, 4]), ("B", 1, 21, ["sprint"])])
    result = la.play(state, {"A": "1: 1", "B": "1: sprint"})
    assert la.hand(result.state, "A", 1) == [1, 4]
    assert la.hand(result.state, "B", 1) == []


def test_L5_option_off_last_card_sprint_is_never_kept_nor_matched(la: SimpleNamespace) -> None:
    """L5 option sprint1_retainable = false: the converted SPRINT behaves as a special."""
    kept = la.state([("A", 1, 20, ["sprint"]), ("B", 1, 21, [1, 4])], sprint1_retainable=False)
    result = la.play(kept, {"A": "1: sprint", "B": "1: 1"})
    assert la.where(result.state)[("A", 1)] == 21
    assert la.hand(result.state, "A", 1) == []
    matched = la.state([("A", 1, 20, [1, 4]), ("B", 1, 21, ["sprint"])], sprint1_retainable=False)
    result = la.play(matched, {"A": "1: 1", "B": "1: sprint"})
    assert la.hand(result.state, "A", 1) == [4]


def test_full_sprint_total_is_never_matched(la: SimpleNamespace) -> None:
    """L5: a card does not match a SPRINT total (leader sprints 1 + 2 = 3, follower plays 3)."""
    state = la.state([("A", 1, 20, [3, 5]), ("B", 1, 21, [1, 2, "sprint"])])
    result = la.play(state, {"A": "1: 3", "B": "1: sprint"})
    assert la.where(result.state) == {("A", 1): 23, ("B", 1): 24}
    assert la.hand(result.state, "A", 1) == [5]


def test_zero_does_not_move_and_is_never_kept(la: SimpleNamespace) -> None:
    """Seed rule 10(a): ZERO is no movement, used once, "even if the cyclist immediately in front plays a zero"."""
    state = la.state([("A", 1, 20, [2, "zero"]), ("B", 1, 21, [2, "zero"])])
    result = la.play(state, {"A": "1: zero", "B": "1: zero"})
    assert la.where(result.state) == {("A", 1): 20, ("B", 1): 21}
    assert la.hand(result.state, "A", 1) == [2] and la.hand(result.state, "B", 1) == [2]


def test_zero_lets_another_cyclist_pass(la: SimpleNamespace) -> None:
    """Seed rule 10(a): ZERO "may be useful in allowing another cyclist to pass by"."""
    state = la.state([("A", 1, 20, [2, "zero"]), ("B", 1, 19, [1, 2])])
    result = la.play(state, {"A": "1: zero", "B": "1: 1"})
    assert la.where(result.state) == {("A", 1): 20, ("B", 1): 21}


# --- SPRINT and ZERO (seed rules 10-11, ruling L6) ------------------------------------------


def test_L6_sprint_uses_up_the_zero(la: SimpleNamespace) -> None:
    """L6 default: ZERO is part of "all remaining cards": it adds 0 and is used up."""
    state = la.state([("A", 1, 20, [2, 5, "zero", "sprint"]), ("B", 1, 1, [1, 2])])
    result = la.play(state, {"A": "1: sprint", "B": "1: 1"})
    assert la.where(result.state)[("A", 1)] == 27
    assert la.hand(result.state, "A", 1) == []


def test_L6_zero_and_sprint_left_sprint_moves_0(la: SimpleNamespace) -> None:
    """L6: "If the only cards left are {ZERO, SPRINT}, SPRINT moves 0"."""
    state = la.state([("A", 1, 20, ["zero", "sprint"]), ("B", 1, 1, [1, 2])])
    result = la.play(state, {"A": "1: sprint", "B": "1: 1"})
    assert la.where(result.state)[("A", 1)] == 20
    assert la.hand(result.state, "A", 1) == []


def test_L6_option_off_zero_stays_in_the_hand(la: SimpleNamespace) -> None:
    """L6 option sprint_includes_zero = false: the SPRINT plays the movement cards; ZERO stays."""
    state = la.state([("A", 1, 20, [2, 5, "zero", "sprint"]), ("B", 1, 1, [1, 2])], sprint_includes_zero=False)
    result = la.play(state, {"A": "1: sprint", "B": "1: 1"})
    assert la.where(result.state)[("A", 1)] == 27
    assert la.hand(result.state, "A", 1) == ["zero"]


# --- movement (seed rules 7-9) --------------------------------------------------------------


def test_rule_9_landing_on_the_back_of_a_group_goes_to_its_front(la: SimpleNamespace) -> None:
    """Seed rule 9: a card that would land on the back of a continuous group takes the cyclist
    to the first free space in front of it."""
    state = la.state([("A", 1, 10, [2]), ("B", 1, 12, []), ("C", 1, 13, []), ("D", 1, 14, []), ("E", 1, 1, [1, 2])])
    result = la.play(state, {"A": "1: 2"})
    assert la.where(result.state)[("A", 1)] == 15


def test_leader_moves_first_then_followers_fill_in(la: SimpleNamespace) -> None:
    """Seed rule 7: race order, leader first; a follower may take a space just vacated."""
    state = la.state([("A", 1, 10, [1]), ("B", 1, 11, [1])])
    result = la.play(state, {"A": "1: 1", "B": "1: 1"})
    assert la.where(result.state) == {("A", 1): 11, ("B", 1): 12}


# --- orders at resolution (rulings L7, L8) ---------------------------------------------------


def test_L8_card_not_held_is_replaced_by_the_lowest_movement_card(la: SimpleNamespace) -> None:
    """L8: a card not held is replaced by the lowest normal movement card, and an event says so."""
    state = la.state([("A", 1, 10, [3, 5, "zero", "sprint"])])
    result = la.play(state, {"A": "1: 6"})
    assert la.where(result.state)[("A", 1)] == 13
    assert la.hand(result.state, "A", 1) == [5, "zero", "sprint"]
    assert [e.kind for e in result.events] == ["override"]
    assert "cannot play 6" in result.events[0].text and "ruling L8" in result.events[0].text
    line = result.report["cyclists"][0]
    assert (line["card"], line["asked"]) == ("3", "6")


def test_L8_special_on_turn_1_is_replaced(la: SimpleNamespace) -> None:
    """Seed rule 10 and L8: no special on turn 1; the lowest movement card is played instead."""
    state = la.state([("A", 1, 10, la.FULL)], turn=0)
    result = la.play(state, {"A": "1: zero"})
    assert la.where(result.state)[("A", 1)] == 11
    assert "the first turn" in result.events[0].text


def test_L8_used_special_is_replaced(la: SimpleNamespace) -> None:
    """L8: a special already used; with only specials left the ZERO is played."""
    state = la.state([("A", 1, 10, ["zero"]), ("E", 1, 1, [1, 2])])
    result = la.play(state, {"A": "1: sprint", "E": "1: 1"})
    assert la.where(result.state)[("A", 1)] == 10
    assert result.events[0].kind == "override"
    assert la.hand(result.state, "A", 1) == []


def test_L7_L8_rider_without_a_card_gets_the_referees_card(la: SimpleNamespace) -> None:
    """L7: every cyclist with cards plays; a rider left out gets the L8 card."""
    state = la.state([("A", 1, 10, [2, 4]), ("A", 2, 5, ["zero", "sprint"]), ("A", 3, 1, ["sprint"])])
    result = la.play(state, {"A": "1: 4"})
    assert la.where(result.state) == {("A", 1): 14, ("A", 2): 5, ("A", 3): 2}
    assert [e.kind for e in result.events] == ["default_card", "default_card"]


def test_L8_no_moves_received_via_the_turn_driver(rules: Lautobus) -> None:
    """No orders at all: the driver adds an "nmr" event and every cyclist plays its lowest card."""
    state = new()
    result = advance(rules, state, {}, random.Random(0))
    assert result.defaulted == tuple(SEATS)
    assert [e.kind for e in result.events] == ["nmr"] * 5
    assert "1: 1, 2: 1, 3: 1, 4: 1, 5: 1" in result.events[0].text
    assert all(c.space == before.space + 1 for c, before in zip(result.state.cyclists, state.cyclists, strict=True))


def test_default_orders_with_only_specials(rules: Lautobus, la: SimpleNamespace) -> None:
    """L8: with only specials left, ZERO if held (not on turn 1), otherwise SPRINT."""
    state = la.state([("A", 1, 10, ["zero", "sprint"]), ("A", 2, 5, ["sprint"]), ("A", 3, 1, [])])
    assert rules.format_orders(state, "A", rules.default_orders(state, "A")) == "1: zero, 2: sprint"


def test_orders_for_a_rider_without_cards_are_refused_at_resolution(rules: Lautobus, la: SimpleNamespace) -> None:
    state = la.state([("A", 1, 10, [1]), ("A", 2, 5, [])])
    with pytest.raises(IllegalOrders):
        rules.resolve(state, {"A": TeamOrders((Play(1, move(1)), Play(2, move(1))))}, random.Random(0))


# --- phases, end, bonuses, penalties (seed rules 12-15, ruling L9) --------------------------


def test_phase_owes_orders_from_teams_with_cards(rules: Lautobus, la: SimpleNamespace) -> None:
    state = la.state([("A", 1, 10, [1]), ("B", 1, 12, []), ("C", 1, 14, [2])], turn=4)
    phase = rules.phase(state)
    assert phase is not None
    assert (phase.number, phase.kind, phase.owing, phase.window) == (4, PhaseKind.TURN, ("A", "C"), "turn")
    assert phase.title == "a card for each cyclist"


def test_the_phase_names_no_second_turn_number(rules: Lautobus) -> None:
    """The referee numbers turns from 0 everywhere (report header, Next:, reminders, gm status,
    gm process --turn, the record): the game's own words name no other number for them."""
    state = rules.new_game(list("ABCDE"), {}, random.Random(0))
    first = rules.phase(state)
    assert first is not None and first.number == 0
    assert first.title == "a card for each cyclist (the first turn: no ZERO or SPRINT yet)"
    assert not any(ch.isdigit() for ch in first.title)


def test_race_ends_when_all_have_played_out_and_bonuses_apply(rules: Lautobus, la: SimpleNamespace) -> None:
    """Seed rules 12-13: the last cards are played, then 1st +3, 2nd +2, 3rd +1, 1st first."""
    state = la.state([("A", 1, 20, [1]), ("B", 1, 18, [1]), ("C", 1, 17, []), ("D", 1, 10, [])])
    result = la.play(state, {"A": "1: 1", "B": "1: 1"})
    assert result.state.finished
    assert rules.phase(result.state) is None
    assert la.where(result.state) == {("A", 1): 24, ("B", 1): 21, ("C", 1): 18, ("D", 1): 10}
    assert [(b["code"], b["bonus"], b["from"], b["to"]) for b in result.report["bonuses"]] == [
        ("A1", 3, 21, 24),
        ("B1", 2, 19, 21),
        ("C1", 1, 17, 18),
    ]
    assert [e.kind for e in result.events] == ["finish", "bonus", "bonus", "bonus"]


def test_penalty_is_empty_spaces_to_the_winner(rules: Lautobus, la: SimpleNamespace) -> None:
    """Seed rule 14: one point per empty space between a cyclist and the winner; a group shares a time."""
    state = la.state(
        [("A", 1, 30, []), ("B", 1, 28, []), ("C", 1, 27, []), ("A", 2, 26, []), ("B", 2, 20, []), ("C", 2, 18, [])]
    )
    scores = {t.seat: t for t in team_scores(state)}
    assert scores["A"].riders == ((1, 1, 0), (2, 4, 1))
    assert scores["B"].riders == ((1, 2, 1), (2, 5, 6))
    assert scores["C"].riders == ((1, 3, 1), (2, 6, 7))
    assert [(s.seat, s.place, s.score) for s in rules.standings(state)] == [("A", 1, 1), ("B", 2, 7), ("C", 3, 8)]


def test_L9_team_tie_goes_to_the_best_placed_cyclist(rules: Lautobus, la: SimpleNamespace) -> None:
    """L9 default: equal totals; the team whose best cyclist is better placed wins."""
    riders = [("A", 1, 30, []), ("B", 1, 29, []), ("A", 2, 20, []), ("B", 2, 21, [])]
    state = la.state(riders)
    table = [(s.seat, s.place, s.score) for s in rules.standings(state)]
    assert table == [("A", 1, 7), ("B", 2, 7)]
    shared = la.state(riders, team_tie="shared")
    assert [(s.seat, s.place, s.score) for s in rules.standings(shared)][:2] == [("A", 1, 7), ("B", 1, 7)]


# --- state plumbing -------------------------------------------------------------------------


def test_dump_and_load_round_trip(rules: Lautobus) -> None:
    state = new({"movement_cards": [1, 2, 2], "slipstream_timing": "after"})
    state = advance(rules, state, {}, random.Random(0)).state
    assert rules.load_state(rules.dump_state(state)) == state
    with pytest.raises(ValueError):
        rules.load_state({**rules.dump_state(state), "version": 99})


def test_public_state_lists_cyclists(rules: Lautobus) -> None:
    public = rules.public_state(new())
    assert len(public["cyclists"]) == 25
    first = public["cyclists"][0]
    assert {"team", "rider", "space", "cards"} <= set(first)
    assert first == {"team": "A", "rider": 1, "space": 26, "place": 4, "cards": [1, 2, 3, 4, 5, 6, "zero", "sprint"]}


def test_help_text_gives_syntax_and_options(rules: Lautobus) -> None:
    text = rules.help_text()
    assert "1: 3, 2: 5, 3: zero, 4: sprint, 5: 2" in text
    for name in ("movement_cards", "start_layout", "start_assignment", "slipstream_timing", "sprint1_retainable"):
        assert name in text
