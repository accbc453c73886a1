"""Rulings D1-D12 and the cases around them (docs/rules/dragon-stripes.md 4.1-4.2), beyond the worked examples."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from adjudicator.api import IllegalOrders, InvariantViolation, PhaseKind, SetupError
from adjudicator.games.dragon_stripes.cards import composition
from adjudicator.games.dragon_stripes.orders import Answer, Orders
from adjudicator.games.dragon_stripes.state import Step
from tests.adjudicator.dragon_stripes.scenario import RULES, cards, gems, lines, new, play, position


def test_D1_default_deck_is_51_cards():
    """D1 (invented default): footprints 1x10, 2x10, 3x10, 4x8; with 10 stops and 3 dangers, 51 cards."""
    counts = Counter(card.label for card in composition((10, 10, 10, 8)))
    assert counts == {"F1": 10, "F2": 10, "F3": 10, "F4": 8, "S": 10, "D": 3}
    game = new("AB")
    assert len(game.deck) + len(game.seen) == 51


def test_D1_footprint_counts_option():
    """D1 is an option: a GM may set the physical card list, which must still hold 38 footprints."""
    game = new("AB", footprint_counts=[0, 19, 19])
    labels = {card.label for card in (*game.seen, *game.deck)}
    assert labels == {"F2", "F3", "S", "D"}
    with pytest.raises(SetupError, match="38"):
        new("AB", footprint_counts=[10, 10, 10, 10])


def test_D2_stripe_values_option_and_D3_landing_stripe_only():
    """D2: v(k) is an option.  D3: gems for the stripe landed on only, not the stripes passed."""
    values = [k * 10 for k in range(1, 18)]
    game = new("AB", deck="F4", stripe_values=values)
    assert (game.knight, game.beside) == (4, 40)
    plain = new("AB", deck="F4")
    assert plain.beside == 4  # not 1 + 2 + 3 + 4
    with pytest.raises(SetupError, match="17"):
        new("AB", stripe_values=[1, 2, 3])


def test_D4_doubling_is_flat_x2():
    """D4: after the second danger card every placement is x2, never doubling again."""
    table = position({"A": 40, "B": 40}, active="A", knight=2, beside=4, seen="D D F2", deck="F1 F1")
    first = play(table, {"A": "reveal"})
    second = play(first.state, {"A": "reveal"})
    assert first.state.beside == 4 + 2 * 3
    assert second.state.beside == 4 + 2 * 3 + 2 * 4


def test_D5_half_floor_and_fixed_bounty():
    """D5: bounty_rule 'half_floor' pays half the gems beside rounded down; 'fixed' pays bounty_fixed."""
    table = position({"A": 40, "B": 40}, active="A", knight=9, beside=21, seen="F4 F3 F2", bounty_rule="half_floor")
    taken = play(play(table, {"A": "hold"}).state, {"B": "take"})
    assert gems(taken.state)["A"] == 50 and lines(taken, "takeover")[0]["gems"] == 30
    fixed = replace(table, options=replace(table.options, bounty_rule="fixed", bounty_fixed=7))
    taken = play(play(fixed, {"A": "hold"}).state, {"B": "take"})
    assert gems(taken.state)["A"] == 47


def test_D5_a_player_who_cannot_pay_is_not_asked():
    """D5: the taker must be able to pay in full; a player who cannot pay cannot take over."""
    table = position({"A": 40, "B": 10, "C": 30}, active="A", knight=9, beside=20, seen="F4 F3 F2")
    held = play(table, {"A": "hold"})
    assert RULES.phase(held.state).owing == ("C",)
    assert "B cannot pay" in lines(play(held.state, {"C": "pass"}), "offers")[0]["text"]


def test_D5_nobody_can_pay_means_the_holder_collects_at_once():
    """No eligible taker: no offer window; the holder collects in the same resolution."""
    table = position({"A": 40, "B": 5}, active="A", knight=9, beside=20, seen="F4 F3 F2", deck="F1")
    result = play(table, {"A": "hold"})
    assert gems(result.state) == {"A": 60, "B": 5}
    assert cards(result) == ["B:F1"]


def test_D6_first_taker_left_of_the_holder_wins():
    """D6 default: several offers, the first in seat order starting left of the holder takes over."""
    table = position({"A": 40, "B": 40, "C": 40, "D": 40}, active="B", knight=5, beside=7, seen="F2 F3", deck="F1")
    held = play(table, {"B": "hold"})
    assert RULES.phase(held.state).owing == ("C", "D", "A")
    result = play(held.state, {"C": "pass", "D": "take", "A": "take"})
    assert result.state.active_player.seat == "D"
    assert gems(result.state) == {"A": 40, "B": 47, "C": 40, "D": 33}


def test_D6_holder_chooses_option():
    """D6 option holder_chooses: with several takers the holder picks one (a DECISION phase)."""
    table = position(
        {"A": 40, "B": 40, "C": 40},
        active="A",
        knight=5,
        beside=7,
        seen="F2 F3",
        deck="F1",
        takeover_selection="holder_chooses",
    )
    offers = play(play(table, {"A": "hold"}).state, {"B": "take", "C": "take"})
    phase = RULES.phase(offers.state)
    assert phase.kind is PhaseKind.DECISION and phase.owing == ("A",) and phase.window == "decision"
    chosen = play(offers.state, {"A": "choose c"})
    assert chosen.state.active_player.seat == "C"
    assert gems(chosen.state) == {"A": 47, "B": 40, "C": 33}


def test_D6_holder_chooses_silent_holder_gets_the_first_taker():
    """A holder who does not choose gets the D6 default: the first taker to its left."""
    table = position(
        {"A": 40, "B": 40, "C": 40}, active="B", knight=5, beside=7, seen="F2 F3", takeover_selection="holder_chooses"
    )
    offers = play(play(table, {"B": "hold"}).state, {"A": "take", "C": "take"})
    assert RULES.default_orders(offers.state, "B") == Orders(choose="C")
    assert play(offers.state).state.active_player.seat == "C"


def test_D6_holder_chooses_single_taker_needs_no_choice():
    table = position(
        {"A": 40, "B": 40, "C": 40},
        active="A",
        knight=5,
        beside=7,
        seen="F2 F3",
        deck="F1",
        takeover_selection="holder_chooses",
    )
    result = play(play(table, {"A": "hold"}).state, {"B": "pass", "C": "take"})
    assert result.state.active_player.seat == "C"


def test_D6_original_holder_may_take_over_again():
    """D6: the original holder (anyone but the current active player) may take over after a later hold."""
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1 F1")
    taken = play(play(table, {"A": "hold"}).state, {"B": "take"})
    held = play(taken.state, {"B": "hold"})
    assert RULES.phase(held.state).owing == ("A",)
    back = play(held.state, {"A": "take"})
    assert back.state.active_player.seat == "A"
    assert back.state.players[back.state.owner].seat == "A"


@pytest.mark.parametrize(("next_after_taker", "expected"), [(False, "C"), (True, "D")])
def test_D7_next_turn_after_a_takeover(next_after_taker, expected):
    """D7: the next turn goes to the player after the turn owner (B -> C), or with next_after_taker
    to the player after the last active player (C took over -> D)."""
    table = position(
        {"A": 40, "B": 40, "C": 40, "D": 40},
        active="B",
        knight=5,
        beside=7,
        seen="F2 F3",
        deck="F1 F1 F1",
        next_after_taker=next_after_taker,
    )
    taken = play(play(table, {"B": "hold"}).state, {"C": "take"})
    held = play(taken.state, {"C": "hold"})
    result = play(held.state, {seat: "pass" for seat in RULES.phase(held.state).owing})
    assert result.state.active_player.seat == expected
    assert lines(result, "turn")[0]["seat"] == expected


def test_D8_placement_limited_by_the_hoard():
    """D8: a placement bigger than the hoard places what is left."""
    game = new("AB", deck="F4 F4", hoard_initial=5)
    assert (game.beside, game.hoard) == (4, 1)
    result = play(game, {"A": "reveal"})
    assert (result.state.beside, result.state.hoard) == (5, 0)
    assert lines(result, "card")[-1]["text"] == "8 gems placed, but the hoard had only 1"


def test_D9_landing_on_17_continues_and_passing_it_reaches_the_head():
    """D9: landing exactly on 17 scores v(17) and the game goes on; 18 or more reaches the head.
    D11: the head-reacher also keeps the gems beside the knight."""
    table = position({"A": 40, "B": 40}, active="A", knight=13, beside=20, seen="F4 F4 F4 F1", deck="F4 F1")
    on17 = play(table, {"A": "reveal"})
    assert (on17.state.knight, on17.state.beside) == (17, 37)
    assert RULES.phase(on17.state) is not None
    hoard = on17.state.hoard
    head = play(on17.state, {"A": "reveal"})
    assert RULES.phase(head.state) is None
    assert gems(head.state) == {"A": 40 + 37 + hoard, "B": 40}
    assert head.state.hoard == 0 and head.state.beside == 0
    assert [e.kind for e in head.events] == ["finish"]
    assert "A reached the dragon's head" in head.events[0].text


def test_D9_equal_most_gems_are_joint_winners():
    table = position({"A": 40, "B": 40, "C": 30}, active="A", knight=1, beside=1, seen="D D F1", deck="D")
    over = play(table, {"A": "reveal"})
    standings = RULES.standings(over.state)
    assert [(s.seat, s.place, s.score) for s in standings] == [("B", 1, 40), ("C", 2, 30), ("A", 3, 0)]
    table = position({"A": 40, "B": 40, "C": 30}, active="C", knight=1, beside=1, seen="D D F1", deck="D")
    over = play(table, {"C": "reveal"})
    assert [(s.seat, s.place) for s in RULES.standings(over.state)] == [("A", 1), ("B", 1), ("C", 3)]
    assert "Winners: A and B with 40 gems" in over.events[0].text


def test_D10_half_penalty_rounds_down():
    """D10: floor for 1/2 as well: a stop after the second danger costs 33 -> 16 lost."""
    table = position({"A": 33, "B": 40}, active="A", knight=1, beside=1, seen="D D F1", deck="S")
    assert gems(play(table, {"A": "reveal"}).state)["A"] == 17


def test_first_danger_card_is_a_quarter_stop():
    """Danger #1 is treated as a stop (p = 1/4); doubling stays off."""
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="D F1")
    result = play(table, {"A": "reveal"})
    assert gems(result.state)["A"] == 30
    assert result.state.dangers == 1 and not result.state.doubling
    assert result.state.beside == 1  # B's F1, not doubled


def test_third_danger_card_loses_everything_and_ends_the_game():
    """Danger #3: the active player loses all gems, the gems beside go back, the game ends."""
    table = position({"A": 50, "B": 40}, active="A", knight=5, beside=9, seen="D D F2 F3", deck="D")
    hoard = table.hoard
    result = play(table, {"A": "reveal"})
    assert gems(result.state) == {"A": 0, "B": 40}
    assert result.state.hoard == hoard + 50 + 9 and result.state.beside == 0
    assert RULES.phase(result.state) is None
    assert "third danger card" in result.events[0].text


def test_D12_silent_active_player_holds_and_silent_taker_passes():
    """D12: an active player who does not answer holds; a silent player declines the take-over."""
    game = new("AB", deck="F2 F3 F1")
    held = play(game)
    assert [e.kind for e in held.events] == ["nmr"] and held.defaulted == ("A",)
    assert "hold" in held.events[0].text
    assert RULES.default_orders(held.state, "B") == Orders(answer=Answer.PASS)
    done = play(held.state)
    assert gems(done.state)["A"] == 42


def test_stop_on_the_first_card_passes_the_turn_at_once():
    """A turn whose compulsory first card is a stop ends; the next player's first card follows at once."""
    game = new("ABC", deck="S S F2 F1")
    assert gems(game) == {"A": 30, "B": 30, "C": 40}
    assert game.active_player.seat == "C" and RULES.phase(game).owing == ("C",)
    # The cards played by new_game open the first report.
    first = play(game, {"C": "reveal"})
    assert cards(first) == ["A:S", "B:S", "C:F2", "C:F1"]
    assert [line["seat"] for line in lines(first, "turn")] == ["A", "B", "C"]
    assert play(first.state, {"C": "hold"}).report["lines"][0]["kind"] == "hold"


def test_phases_are_numbered_and_shaped_as_the_issue_asks():
    """Sequential game: one seat owes a DECISION (window "decision"), resolved as soon as it arrives;
    a hold opens an OFFER window owing every other player who can pay."""
    game = new("ABC", deck="F2 F3 F1")
    phase = RULES.phase(game)
    assert (phase.number, phase.kind, phase.owing, phase.window, phase.resolve_when_complete) == (
        0,
        PhaseKind.DECISION,
        ("A",),
        "decision",
        True,
    )
    held = play(game, {"A": "hold"}).state
    phase = RULES.phase(held)
    assert (phase.number, phase.kind, phase.owing, phase.window, phase.resolve_when_complete) == (
        1,
        PhaseKind.OFFER,
        ("B", "C"),
        "offer",
        True,
    )
    assert RULES.phase(play(held, {"B": "pass", "C": "pass"}).state).number == 2


def test_orders_from_a_seat_that_owes_none_are_refused():
    game = new("AB", deck="F2")
    with pytest.raises(IllegalOrders):
        RULES.resolve(game, {"A": Orders(answer=Answer.HOLD), "B": Orders(answer=Answer.PASS)}, None)
    with pytest.raises(IllegalOrders):
        RULES.resolve(game, {"A": Orders(answer=Answer.TAKE)}, None)


@pytest.mark.parametrize(
    ("seats", "options", "message"),
    [
        ("A", {}, "2 to 6"),
        ("ABCDEFG", {}, "2 to 6"),
        ("AB", {"deck": "F2 X"}, "not a card"),
        ("AB", {"deck": "D D D D"}, "holds 3"),
        ("AB", {"deck": "F5"}, "holds 0"),
        ("AB", {"hoard_initial": -1}, "hoard_initial"),
        ("AB", {"stripe_values": [0] * 17}, "stripe_values"),
        ("AB", {"bounty_rule": "double"}, "bounty_rule"),
    ],
)
def test_bad_setups_are_refused(seats, options, message):
    with pytest.raises(SetupError, match=message):
        new(seats, **options)


def test_deck_option_stacks_the_top_and_the_seed_shuffles_the_rest():
    """Without ``deck`` the deck is shuffled with the rng given to new_game; the same seed, the same deck."""
    assert new("AB").deck == new("AB").deck
    from adjudicator.record import start_game

    other = start_game(RULES, ["A", "B"], {}, "another seed")
    assert (*other.seen, *other.deck) != (*new("AB").seen, *new("AB").deck)
    stacked = new("AB", deck="f1, F2  s")
    assert [c.label for c in stacked.seen] == ["F1"]
    assert [c.label for c in stacked.deck[:2]] == ["F2", "S"]
    assert stacked.options.deck == "f1, F2 s"


def test_invariants_catch_a_broken_state():
    game = new("AB", deck="F2")
    RULES.check_invariants(game)
    with pytest.raises(InvariantViolation, match="add up"):
        RULES.check_invariants(replace(game, hoard=game.hoard + 1))
    with pytest.raises(InvariantViolation, match="51-card"):
        RULES.check_invariants(replace(game, deck=game.deck[1:]))
    with pytest.raises(InvariantViolation):
        RULES.check_invariants(replace(game, step=Step.REVEAL))


def test_dump_and_load_round_trip_mid_game():
    table = position({"A": 40, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="F1")
    state = play(
        play(table, {"A": "hold\ntake over if 12 or more beside"}).state, {"B": "reveal until 30 beside\npass"}
    ).state
    data = RULES.dump_state(state)
    assert RULES.load_state(data) == state
    import json

    assert RULES.load_state(json.loads(json.dumps(data))) == state
    with pytest.raises(ValueError, match="version"):
        RULES.load_state({**data, "version": 99})


def test_help_text_gives_the_syntax_and_every_option():
    text = RULES.help_text()
    for needle in ("reveal until 30 beside", "hold at stripe 12", "reveal 3 then hold", "take over if 25 or more"):
        assert needle in text
    for spec in RULES.options():
        assert spec.name in text
    names = {spec.name for spec in RULES.options()}
    assert {"footprint_counts", "stripe_values", "bounty_rule", "takeover_selection", "next_after_taker"} <= names
    assert {"hoard_initial", "deck"} <= names


def test_public_state_keys():
    state = new("AB", deck="F3")
    public = RULES.public_state(state)
    assert public["gems"] == {"A": 40, "B": 40}
    assert (public["hoard"], public["knight"], public["beside"], public["dangers"]) == (397, 3, 3, 0)
    assert public["finished"] is False and public["active"] == "A"
