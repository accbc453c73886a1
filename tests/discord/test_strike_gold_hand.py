"""What Strike Gold's buttons show and send (bot/discord/games/strike_gold_hand.py, strike_gold.py).

The hand is read from the seat view of the player to move: it must show
exactly the public view of their grid (docs/rules/strike-gold.md 3.1: face-down values are the
referee's alone), the card they drew alone and nobody else's, and the buttons
must send orders the game's own parser takes.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from adjudicator import registry
from adjudicator.turn import advance, parse_turn_orders
from bot.core.views import GameView
from bot.discord.games.strike_gold import StrikeGoldButton, StrikeGoldFlip, chooser, custom_id, prompt_for
from bot.discord.games.strike_gold_hand import hand_of, order_text

RULES = registry.get_rules("strike-gold")
SEATS = ("Ann", "Ben", "Cat")
SLOT_NAMES = tuple(f"r{r}c{c}" for r in range(1, 4) for c in range(1, 5))
"""The game's slots in reading order (its order syntax)."""


def view_of(state: Any, seat: str | None = None, slug: str = "sg1", status: str = "running") -> GameView:
    """``seat``'s view of ``state`` as GameViews gives it, or the public view."""
    shown = RULES.public_state(state) if seat is None else RULES.seat_view(state, seat)
    return GameView(slug, "strike-gold", status, RULES.phase(state), shown, SEATS, seat)


def hand_for(state: Any, seat: str) -> Any:
    return hand_of(view_of(state, seat))


def played(seed: int, options: dict[str, Any] | None = None) -> list[Any]:
    """Every state of a game played by the computer player, setup to the end of round 1 (or 80 phases)."""
    rng = random.Random(seed)
    state = RULES.new_game(SEATS, options or {}, rng)
    states = [state]
    while (phase := RULES.phase(state)) is not None and len(states) < 80:
        texts = {seat: RULES.example_orders(state, seat, rng) for seat in phase.owing}
        if RULES.public_state(state)["stage"] == "turn" and rng.random() < 0.5:
            texts = {seat: "draw deck" for seat in phase.owing}  # drawn alone, as the Draw button does
        orders, errors = parse_turn_orders(RULES, state, texts)
        assert not errors, errors
        state = advance(RULES, state, orders, rng).state
        states.append(state)
    return states


def owing(state: Any) -> tuple[int, str]:
    """The open phase's number and its one owing seat."""
    phase = RULES.phase(state)
    assert phase is not None and len(phase.owing) == 1
    return phase.number, phase.owing[0]


def shown(cell: Any) -> str:
    return "?" if cell is None else str(cell)


@pytest.mark.parametrize("seed", range(6))
def test_the_hand_is_the_public_grid_and_the_card_drawn_alone_of_the_player_to_move_only(seed: int) -> None:
    seen_card = 0
    for state in played(seed):
        public = RULES.public_state(state)
        assert hand_of(view_of(state)) is None  # the public view is nobody's hand
        if public["stage"] not in ("turn", "decide"):
            assert all(hand_for(state, seat) is None for seat in SEATS)
            continue
        number, mover = owing(state)
        assert all(hand_for(state, seat) is None for seat in SEATS if seat != mover)
        hand = hand_for(state, mover)
        assert hand is not None and hand.turn == number
        assert hand.rows() == [[shown(cell) for cell in row] for row in public["grids"][mover]]
        assert hand.discard_top == public["discard_top"]
        if public["stage"] == "decide":
            assert hand.card == RULES.dump_state(state)["pending"]["value"]
            seen_card += 1
        else:
            assert hand.card is None
    assert seen_card > 0


def test_the_buttons_send_orders_the_game_reads() -> None:
    rng = random.Random(3)
    state = RULES.new_game(SEATS, {}, rng)
    orders, _ = parse_turn_orders(RULES, state, {s: "flip r1c1 r1c2" for s in SEATS})
    state = advance(RULES, state, orders, rng).state
    _, mover = owing(state)
    taken = order_text("turn", "keep", "r3c4", SLOT_NAMES)
    assert taken == "draw discard, keep r3c4"
    assert RULES.parse_orders(state, mover, taken).canonical == taken
    assert order_text("turn", "draw") == "draw deck" and order_text("turn", "take") is None
    assert order_text("turn", "keep", "r4c1", SLOT_NAMES) is None  # not a slot
    drawn = RULES.parse_orders(state, mover, "draw deck")
    assert drawn.canonical == "draw deck"
    state = advance(RULES, state, {mover: drawn.orders}, rng).state
    assert order_text("decide", "draw") is None
    for action, slot in (("keep", "r2c2"), ("flip", "r3c3")):
        text = order_text("decide", action, slot, SLOT_NAMES)
        assert text == f"{action} {slot}"
        assert RULES.parse_orders(state, mover, text).accepted


def test_the_chooser_offers_every_slot_and_flips_only_face_down_cards() -> None:
    rng = random.Random(4)
    state = RULES.new_game(SEATS, {}, rng)
    orders, _ = parse_turn_orders(RULES, state, {s: "flip r1c1 r2c3" for s in SEATS})
    state = advance(RULES, state, orders, rng).state
    _, mover = owing(state)
    hand = hand_for(state, mover)
    assert hand is not None
    made = chooser(hand)  # taking the discard: kept, never flipped (ruling S1)
    assert made is not None
    text, controls = made
    ids = [item.custom_id for item in controls.children if isinstance(item, StrikeGoldButton)]
    assert not any(isinstance(item, StrikeGoldFlip) for item in controls.children)
    assert ids == [custom_id("sg1", hand.turn, mover, f"keep-{slot}") for slot in SLOT_NAMES]
    assert f"take the **{hand.discard_top}** from the discard pile?" in text
    state = advance(RULES, state, {mover: RULES.parse_orders(state, mover, "draw deck").orders}, rng).state
    hand = hand_for(state, mover)
    assert hand is not None and hand.card is not None
    made = chooser(hand)
    assert made is not None
    text, controls = made
    [menu] = [item for item in controls.children if isinstance(item, StrikeGoldFlip)]
    assert [o.value for o in menu.item.options] == [s for s in SLOT_NAMES if s not in ("r1c1", "r2c3")]
    assert f"you drew **{hand.card}** from the deck (shown to you only)" in text


def test_taking_the_discard_may_be_flipped_when_ruling_s1_is_off() -> None:
    rng = random.Random(5)
    state = RULES.new_game(SEATS, {"discard_pick_must_keep": False}, rng)
    orders, _ = parse_turn_orders(RULES, state, {s: "flip r1c1 r1c2" for s in SEATS})
    state = advance(RULES, state, orders, rng).state
    _, mover = owing(state)
    hand = hand_for(state, mover)
    assert hand is not None and hand.may_flip() and not hand.may_discard()
    flip = order_text("turn", "flip", "r3c1", SLOT_NAMES)
    assert flip == "draw discard, flip r3c1" and RULES.parse_orders(state, mover, flip).accepted


def test_prompts_only_for_a_running_strike_gold_move() -> None:
    states = played(1)
    setup, first = states[0], states[1]
    assert prompt_for(view_of(setup)) is None  # every seat flips at once: typed orders
    assert prompt_for(view_of(first, status="paused")) is None
    prompt = prompt_for(view_of(first))
    assert prompt is not None and [action for action, _, _ in prompt.buttons] == ["draw", "take"]
    other = GameView("ds1", "dragon-stripes", "running", RULES.phase(first), RULES.public_state(first), SEATS)
    assert prompt_for(other) is None
    later = GameView("sg1", "strike-gold", "running", RULES.phase(first), {"round": 1}, SEATS)
    assert prompt_for(later) is None  # a view this adapter does not know: no buttons, /orders still works


def test_the_longest_custom_id_fits_discords_100_characters() -> None:
    """Slugs and seat names are at most 40 characters (bot/core/commands/hosting.py, player_commands.py)."""
    assert len(custom_id("g" * 40, 99_999, "s" * 40, "keep-r3c4")) <= 100


def test_with_no_face_down_card_left_the_drawn_card_may_just_be_discarded() -> None:
    rng = random.Random(6)
    state = RULES.new_game(SEATS, {}, rng)
    orders, _ = parse_turn_orders(RULES, state, {s: "flip r1c1 r1c2" for s in SEATS})
    state = advance(RULES, state, orders, rng).state
    _, mover = owing(state)
    state = advance(RULES, state, {mover: RULES.parse_orders(state, mover, "draw deck").orders}, rng).state
    data = RULES.dump_state(state)
    me = SEATS.index(mover)
    data["grids"][me] = [None if i < 3 else [cell[0], True] for i, cell in enumerate(data["grids"][me])]
    data["out"] = me  # a final turn: every card of the grid is up (three were cleared)
    hand = hand_for(RULES.load_state(data), mover)
    assert hand is not None and hand.may_discard() and not hand.may_flip()
    made = chooser(hand)
    assert made is not None
    text, controls = made
    buttons = {item.custom_id: item for item in controls.children if isinstance(item, StrikeGoldButton)}
    assert not any(isinstance(item, StrikeGoldFlip) for item in controls.children)
    assert [key for key, item in buttons.items() if item.item.disabled] == [
        custom_id("sg1", hand.turn, mover, f"keep-r1c{c}") for c in (1, 2, 3)
    ]
    assert custom_id("sg1", hand.turn, mover, "discard") in buttons and "Or just discard it" in text
    assert "Or discard it and turn" not in text
    discard = order_text("decide", "discard")
    assert discard == "discard" and RULES.parse_orders(RULES.load_state(data), mover, discard).accepted
