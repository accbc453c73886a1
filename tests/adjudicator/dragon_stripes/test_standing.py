"""Standing orders: run orders, standing take-over offers, withdrawal, playing on."""

from __future__ import annotations

import json

from adjudicator.api import PhaseKind
from adjudicator.games.dragon_stripes.state import RunOrder
from tests.adjudicator.dragon_stripes.scenario import RULES, cards, gems, lines, new, play, position


def test_reveal_until_beside_runs_card_by_card_in_one_resolution():
    game = new("AB", deck="F2 F3 F4 F4 F1")
    result = play(game, {"A": "reveal until 20 beside"})
    assert cards(result)[-3:] == ["A:F3", "A:F4", "A:F4"]
    assert [line["beside"] for line in lines(result, "card")][-3:] == [7, 16, 29]
    assert lines(result, "hold")[0]["beside"] == 29
    phase = RULES.phase(result.state)
    assert phase.kind is PhaseKind.OFFER and phase.owing == ("B",) and phase.number == 1


def test_hold_at_stripe_and_reveal_n_then_hold():
    stripe = play(new("AB", deck="F2 F3 F4 F4 F1"), {"A": "hold at stripe 9"})
    assert cards(stripe)[-2:] == ["A:F3", "A:F4"] and stripe.state.knight == 9
    counted = play(new("AB", deck="F1 F1 F1 F1 F1 F1"), {"A": "reveal 3 then hold"})
    assert cards(counted) == ["A:F1", "A:F1", "A:F1", "A:F1"]  # the compulsory card, then 3 more
    assert counted.state.knight == 4 and lines(counted, "hold")


def test_combined_conditions_hold_at_the_first_met():
    game = new("AB", deck="F1 F4 F4 F4 F4")
    result = play(game, {"A": "reveal until 100 beside\nhold at stripe 9"})
    assert result.state.knight == 9 and RULES.phase(result.state).kind is PhaseKind.OFFER


def test_condition_already_met_holds_now():
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3")
    parsed = RULES.parse_orders(table, "A", "reveal until 5 beside")
    assert parsed.notes[-1].endswith("that is already so: you hold now")
    result = play(table, {"A": "reveal until 5 beside"})
    assert cards(result) == [] and lines(result, "hold")


def test_run_order_is_used_up_when_the_run_ends():
    game = new("AB", deck="F2 F3 F1")
    held = play(game, {"A": "reveal until 5 beside"})
    assert held.state.players[0].run == RunOrder(beside=5, used=True)
    done = play(held.state, {"B": "pass"})
    assert done.state.players[0].run is None
    assert done.private["A"] == {"standing": []}


def test_run_order_given_with_hold_waits_for_the_next_run():
    """A run order sent with a live hold answers nothing now; it waits for the seat's next run."""
    game = new("AB", deck="F2 F1 F2 F1 F3 F4 F1")
    held = play(game, {"A": "hold\nreveal until 9 beside"})
    assert held.state.players[0].run == RunOrder(beside=9)
    b_turn = play(held.state, {"B": "pass"})
    assert gems(b_turn.state)["A"] == 42 and b_turn.state.players[0].run == RunOrder(beside=9)
    b_held = play(b_turn.state, {"B": "hold"})
    a_turn = play(b_held.state, {"A": "pass"})
    # A's turn: compulsory F2 (stripe 2, 2 beside), then the run order reveals F1 (stripe 3, 5 beside)
    # and F3 (stripe 6, 11 beside >= 9): hold.
    assert cards(a_turn) == ["A:F2", "A:F1", "A:F3"]
    assert a_turn.state.beside == 11
    assert RULES.phase(a_turn.state).owing == ("B",)


def test_run_order_given_in_an_offer_window_applies_to_the_take_over():
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1 F1 F1 F1")
    held = play(table, {"A": "hold"})
    taken = play(held.state, {"B": "take\nreveal 2 then hold"})
    assert cards(taken) == ["B:F1", "B:F1", "B:F1"]
    assert RULES.phase(taken.state).owing == ("A",)


def test_standing_offer_takes_over_without_a_window():
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1 F2 F1")
    first = play(table, {"A": "hold\ntake over if 3 or more beside"})
    assert first.state.players[0].offer == 3
    # B answers live (pass) and keeps a standing offer for later windows; A collects; B's turn: F1.
    b_turn = play(first.state, {"B": "take over if 5 or more beside\npass"})
    assert gems(b_turn.state) == {"A": 47, "B": 40} and b_turn.state.players[1].offer == 5
    # B (1 beside after F1) reveals F2: stripe 3, 4 beside.
    b_held = play(b_turn.state, {"B": "reveal"})
    assert cards(b_held) == ["B:F2"] and b_held.state.beside == 4
    # Now B holds with 4 beside: A's standing offer takes over at once.
    taken = play(b_held.state, {"B": "hold"})
    assert lines(taken, "takeover")[0]["text"] == "A takes over, paying B 4 gems"
    assert taken.state.active_player.seat == "A"


def test_standing_offer_answers_for_the_seat_and_below_threshold_passes():
    low = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1")
    low = low.with_player(1, offer=10)
    result = play(low, {"A": "hold"})
    assert gems(result.state) == {"A": 47, "B": 40}  # standing offer not met: no window, A collects
    assert "B passes" in lines(result, "offers")[0]["text"]
    high = low.with_player(1, offer=7)
    result = play(high, {"A": "hold"})
    assert gems(result.state) == {"A": 47, "B": 33} and result.state.active_player.seat == "B"
    assert cards(result) == ["B:F1"]


def test_standing_offer_is_ignored_when_the_seat_cannot_pay():
    table = position({"A": 40, "B": 5}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1")
    result = play(table.with_player(1, offer=0), {"A": "hold"})
    assert gems(result.state) == {"A": 47, "B": 5}


def test_seat_order_asks_only_the_players_before_a_standing_taker():
    table = position({"A": 40, "B": 40, "C": 40, "D": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1 F1")
    table = table.with_player(2, offer=1)
    held = play(table, {"A": "hold"})
    assert RULES.phase(held.state).owing == ("B",)
    passed = play(held.state, {"B": "pass"})
    assert passed.state.active_player.seat == "C"
    taken = play(held.state, {"B": "take"})
    assert taken.state.active_player.seat == "B"


def test_holder_chooses_between_standing_takers():
    table = position(
        {"A": 40, "B": 40, "C": 40}, active="A", knight=5, beside=7, seen="F2 F3", takeover_selection="holder_chooses"
    )
    table = table.with_player(1, offer=1).with_player(2, offer=1)
    held = play(table, {"A": "hold"})
    phase = RULES.phase(held.state)
    assert phase.owing == ("A",) and "choose" in phase.title
    assert RULES.parse_orders(held.state, "A", "pick B").canonical == "choose B"


def test_withdraw_offer_and_withdraw_all():
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1")
    table = table.with_player(0, offer=3)
    result = play(table, {"A": "withdraw offer\nhold"})
    assert result.state.players[0].offer is None
    parsed = RULES.parse_orders(result.state, "B", "withdraw\npass")
    assert parsed.canonical == "withdraw run\nwithdraw offer\npass"


def test_one_resolution_plays_on_until_a_live_decision():
    """Every decision covered: A's run order holds, B's standing offer is not met, A collects, and B's
    turn begins; the resolution stops only at B's live decision."""
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1 F2 F3")
    table = table.with_player(1, offer=50)
    result = play(table, {"A": "reveal until 10 beside"})
    assert cards(result) == ["A:F1", "B:F2"]
    assert [line["kind"] for line in result.report["lines"]] == ["card", "hold", "offers", "collect", "turn", "card"]
    assert gems(result.state) == {"A": 53, "B": 40}
    assert RULES.phase(result.state).owing == ("B",) and RULES.phase(result.state).number == 1


def test_standing_orders_are_private():
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1 F1")
    result = play(table, {"A": "reveal\ntake over if 23 or more beside\nreveal until 40 beside"})
    public = json.dumps([result.report, RULES.public_state(result.state), [e.text for e in result.events]])
    assert "23" not in public and "until" not in public
    assert result.private["A"] == {"standing": ["reveal until 40 beside", "take over if 23 or more beside"]}
    assert result.private["B"] == {"standing": []}
