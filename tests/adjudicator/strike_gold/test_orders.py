"""Reading Strike Gold orders: accepted variants, rejected text and its messages, the canonical round trip."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from adjudicator.games.strike_gold import StrikeGold
from adjudicator.games.strike_gold.orders import Act, Action, Choice, DecisionOrder, SetupOrder, TurnOrder
from adjudicator.games.strike_gold.state import Source, Stage, State

# A: r1c1 face-up 7, r1c4 face-up 9, r3c1 cleared, the rest face down.  Discard top 3.
GRID_A = ("7 ?1 ?2 9", "?3 ?4 ?5 ?6", "x ?8 ?9 ?10")
GRID_B = ("?1 ?2 ?3 ?4", "?5 ?6 ?7 ?8", "?9 ?10 ?11 ?12")


@pytest.fixture
def state(sg: SimpleNamespace) -> State:
    return sg.build({"A": sg.grid(*GRID_A), "B": sg.grid(*GRID_B)}, discard=(3,), deck_top=(5,))


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("draw deck, keep r3c2", "draw deck, keep r3c2"),
        ("Draw Deck, Keep R3C2", "draw deck, keep r3c2"),
        ("draw from the deck and keep it in row 3 col 2", "draw deck, keep r3c2"),
        ("draw deck keep r3 c2", "draw deck, keep r3c2"),
        ("draw deck, keep (3,2)", "draw deck, keep r3c2"),
        ("draw deck, put it at c2r3", "draw deck, keep r3c2"),
        ("draw deck, flip r2c2", "draw deck, flip r2c2"),
        ("draw deck; discard and flip r2c2", "draw deck, flip r2c2"),
        ("my turn: draw deck, turn r2c2 face up", "draw deck, flip r2c2"),
        ("draw from the draw pile, reveal row 2 column 2", "draw deck, flip r2c2"),
        ("take the discard, keep r2c1", "draw discard, keep r2c1"),
        ("pick up the discard pile and keep r2c1", "draw discard, keep r2c1"),
        ("take the 3 from the discard pile and put it in r2c1", "draw discard, keep r2c1"),
        ("draw deck", "draw deck"),
        ("Draw from the deck.", "draw deck"),
        ("draw deck; if 4 or less keep r2c1; else flip r2c2", "draw deck; if 4 or less keep r2c1; else flip r2c2"),
        ("DRAW DECK; IF 4 OR LESS KEEP R2C1; ELSE FLIP R2C2", "draw deck; if 4 or less keep r2c1; else flip r2c2"),
        (
            "draw deck\nif <= 4 keep r1c4\notherwise flip row 2 column 2",
            "draw deck; if 4 or less keep r1c4; else flip r2c2",
        ),
        ("draw deck, keep r1c4 if 4 or less, flip r2c2", "draw deck; if 4 or less keep r1c4; else flip r2c2"),
        (
            "draw deck; if it's under 5 keep r2c1, else turn over r2c2",
            "draw deck; if 4 or less keep r2c1; else flip r2c2",
        ),
        (
            "draw deck, if 4 or less, keep r2c1, otherwise flip r2c2",
            "draw deck; if 4 or less keep r2c1; else flip r2c2",
        ),
        ("draw deck; if at most 4 keep r2c1; else flip r2c2", "draw deck; if 4 or less keep r2c1; else flip r2c2"),
        ("draw deck; if 10+ flip r2c3; else keep r1c4", "draw deck; if 10 or more flip r2c3; else keep r1c4"),
        ("draw deck; if > 9 flip r2c3; else keep r1c4", "draw deck; if 10 or more flip r2c3; else keep r1c4"),
        ("draw deck; if between 0 and 3 keep r2c1; else flip r2c2", "draw deck; if 0 to 3 keep r2c1; else flip r2c2"),
        ("draw deck; if 3..0 keep r2c1; else flip r2c2", "draw deck; if 0 to 3 keep r2c1; else flip r2c2"),
        (
            "draw deck; if \u22122 to 0 keep r2c1; otherwise flip r2c2",
            "draw deck; if 0 or less keep r2c1; else flip r2c2",
        ),
        ("draw deck; if negative keep r2c1; else flip r2c2", "draw deck; if -1 or less keep r2c1; else flip r2c2"),
        (
            "draw deck; if 5 keep r1c4; if 6 keep r2c1; else flip r2c2",
            "draw deck; if 5 keep r1c4; if 6 keep r2c1; else flip r2c2",
        ),
        ("draw deck; if 12 or less keep r2c1", "draw deck, keep r2c1"),
        ("draw deck, keep r2c1 if 4 or less otherwise flip r2c2", "draw deck; if 4 or less keep r2c1; else flip r2c2"),
        ("draw deck, keep r2c1 if 4 or less or flip r2c2", "draw deck; if 4 or less keep r2c1; else flip r2c2"),
        ("draw deck; if 4 or less keep r2c1 else flip r2c2", "draw deck; if 4 or less keep r2c1; else flip r2c2"),
        (
            "draw deck, if it's 4 or less then keep it in r2c1, otherwise discard it and flip r2c2",
            "draw deck; if 4 or less keep r2c1; else flip r2c2",
        ),
        (
            "draw deck; keep where it clears a column; else flip r2c2",
            "draw deck; keep where it clears a column; else flip r2c2",
        ),
        (
            "draw deck; keep it if it completes a column; if 3 or less keep r1c4; otherwise discard and flip r2c2",
            "draw deck; keep where it clears a column; if 3 or less keep r1c4; else flip r2c2",
        ),
        (
            "draw deck. If it would clear a column, keep it there. Otherwise flip r2c2.",
            "draw deck; keep where it clears a column; else flip r2c2",
        ),
    ],
)
def test_accepted_turn_variants(rules: StrikeGold, state: State, text: str, canonical: str) -> None:
    parsed = rules.parse_orders(state, "A", text)
    assert parsed.errors == ()
    assert parsed.canonical == canonical
    assert rules.parse_orders(state, "A", canonical).orders == parsed.orders
    assert rules.format_orders(state, "A", parsed.orders) == canonical
    assert parsed.notes and parsed.notes[0].startswith("read as: ")


def test_the_echo_says_how_the_order_was_read(rules: StrikeGold, state: State) -> None:
    parsed = rules.parse_orders(state, "A", "draw deck, keep r1c4 if 4 or less, flip r2c2")
    assert parsed.orders == TurnOrder(Source.DECK, (Choice(Action(Act.KEEP, 3), None, 4), Choice(Action(Act.FLIP, 5))))
    assert parsed.notes == (
        "read as: draw from the deck; if the card is 4 or less, keep it in r1c4 (replacing your face-up 9); "
        "otherwise, discard it and flip r2c2",
    )
    alone = rules.parse_orders(state, "A", "draw deck")
    assert alone.orders == TurnOrder(Source.DECK, ())
    assert "shown to you only" in alone.notes[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no order given"),
        ("hello", "did not understand 'hello'"),
        ("flip r2c2", "say where you draw from first"),
        ("keep r2c1", "say where you draw from first"),
        ("draw, keep r2c1", "draw from where?"),
        ("draw deck, keep r4c1", "there is no slot r4c1: rows are 1-3 and columns 1-4"),
        ("draw deck, keep r1c5", "there is no slot r1c5"),
        ("draw deck, keep r3c1", "r3c1 has been cleared"),
        ("draw deck, flip r1c1", "r1c1 is already face up"),
        ("draw deck, flip r3c1", "r3c1 has been cleared"),
        ("draw deck, keep", "'keep' needs a slot"),
        ("draw deck, r2c2", "r2c2 has no verb before it"),
        ("draw deck, discard", "only discard without flipping when you have no face-down cards"),
        ("draw deck, discard r2c2", "'discard' takes no slot"),
        ("draw discard, flip r2c2", "must be kept in your grid (ruling S1)"),
        ("draw discard, discard", "must be kept in your grid (ruling S1)"),
        ("draw deck, take the 5 from the deck", "a turn draws once"),
        ("take the 8 from the discard, keep r2c1", "the discard pile's top card is 3, not 8"),
        ("draw 5 from the deck, keep r2c1", "the deck card is not known before it is drawn"),
        ("draw deck; if 4 or less keep r2c1", "say what to do with any other card, e.g. 'else flip r1c2'"),
        ("draw deck; keep where it clears a column", "say what to do with any other card"),
        ("draw deck; keep r2c1; if 3 keep r2c2", "can never be used"),
        ("draw deck; if 13 or more keep r2c1; else flip r2c2", "no card matches 'if 13 or more'"),
        ("draw deck; if lucky keep r2c1; else flip r2c2", "could not read the condition 'if lucky'"),
        ("draw deck; if 4 or less", "needs an action after it"),
    ],
)
def test_rejected_turns(rules: StrikeGold, state: State, text: str, message: str) -> None:
    parsed = rules.parse_orders(state, "A", text)
    assert parsed.orders is None
    assert parsed.canonical == ""
    assert any(message in e.message for e in parsed.errors), parsed.errors
    if text:
        assert all(e.line in text for e in parsed.errors)


def test_an_error_quotes_its_own_line(rules: StrikeGold, state: State) -> None:
    parsed = rules.parse_orders(state, "A", "draw deck\nif 4 or less keep r9c9\nelse flip r2c2")
    assert [e.line for e in parsed.errors] == ["if 4 or less keep r9c9"]
    assert str(parsed.errors[0]).startswith('"if 4 or less keep r9c9": ')


def test_discard_pick_may_be_discarded_with_the_literal_option(rules: StrikeGold, sg: SimpleNamespace) -> None:
    """S1 option ``discard_pick_must_keep`` false: the literal seed reading allows discard & flip after the discard pile."""
    state = sg.build(
        {"A": sg.grid(*GRID_A), "B": sg.grid(*GRID_B)}, discard=(3,), options={"discard_pick_must_keep": False}
    )
    parsed = rules.parse_orders(state, "A", "draw discard, flip r2c2")
    assert parsed.canonical == "draw discard, flip r2c2"


def test_discard_only_is_read_with_no_face_down_card(rules: StrikeGold, sg: SimpleNamespace) -> None:
    state = sg.build({"A": sg.grid("1 2 3 4", "5 6 7 8", "9 10 11 12"), "B": sg.grid(*GRID_B)}, out="A", current="A")
    parsed = rules.parse_orders(state, "A", "draw the deck, then discard it")
    assert parsed.canonical == "draw deck, discard"
    assert "this is your final turn of the round" in parsed.notes


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("flip r1c1 r2c3", "flip r1c1 r2c3"),
        ("Flip R2C3 and R1C1", "flip r1c1 r2c3"),
        ("turn up row 1 col 1, row 2 col 3", "flip r1c1 r2c3"),
        ("r1c1 r2c3", "flip r1c1 r2c3"),
        ("flip r1c1\nflip r2c3", "flip r1c1 r2c3"),
    ],
)
def test_setup_variants(rules: StrikeGold, sg: SimpleNamespace, text: str, canonical: str) -> None:
    state = sg.build({"A": sg.grid(*GRID_B), "B": sg.grid(*GRID_B)}, stage=Stage.SETUP, discard=(0,))
    parsed = rules.parse_orders(state, "A", text)
    assert parsed.errors == ()
    assert parsed.canonical == canonical
    assert parsed.orders == SetupOrder((0, 6))
    assert rules.parse_orders(state, "A", canonical).orders == parsed.orders
    assert parsed.notes == ("read as: turn face up r1c1 and r2c3",)


@pytest.mark.parametrize(
    ("text", "round_number", "message"),
    [
        ("flip r1c1", 1, "1 slot(s) named; flip exactly 2 cards in round 1"),
        ("flip r1c1 r1c2 r1c3", 1, "3 slot(s) named"),
        ("flip r1c1 r1c2", 2, "2 slot(s) named; flip exactly 1 card(s) this round"),
        ("flip r1c1 r1c1", 1, "r1c1 is named twice"),
        ("flip r0c1 r1c2", 1, "there is no slot r0c1"),
        ("flip top left", 1, "did not understand 'top'"),
    ],
)
def test_rejected_setups(rules: StrikeGold, sg: SimpleNamespace, text: str, round_number: int, message: str) -> None:
    state = sg.build(
        {"A": sg.grid(*GRID_B), "B": sg.grid(*GRID_B)}, stage=Stage.SETUP, round_number=round_number, discard=(0,)
    )
    parsed = rules.parse_orders(state, "A", text)
    assert parsed.orders is None
    assert any(message in e.message for e in parsed.errors), parsed.errors


def test_decision_orders_after_drawing_alone(rules: StrikeGold, state: State, sg: SimpleNamespace) -> None:
    drawn = sg.play(state, "draw deck").state
    assert drawn.stage is Stage.DECIDE
    for text, canonical in (
        ("keep r1c4", "keep r1c4"),
        ("Keep it in R1C4", "keep r1c4"),
        ("flip r2c2", "flip r2c2"),
        ("discard and flip row 2 col 2", "flip r2c2"),
        ("if 4 or less keep r1c4; else flip r2c2", "if 4 or less keep r1c4; else flip r2c2"),
    ):
        parsed = rules.parse_orders(drawn, "A", text)
        assert parsed.canonical == canonical, text
        assert isinstance(parsed.orders, DecisionOrder)
        assert rules.parse_orders(drawn, "A", canonical).orders == parsed.orders
        assert parsed.notes[0].startswith("read as: with the card you drew, ")
    for text, message in (
        ("draw deck, keep r1c4", "you have already drawn a card"),
        ("discard", "only discard without flipping"),
        ("", "no order given"),
    ):
        parsed = rules.parse_orders(drawn, "A", text)
        assert parsed.orders is None
        assert any(message in e.message for e in parsed.errors), (text, parsed.errors)


def test_only_the_player_to_move_may_order(rules: StrikeGold, state: State) -> None:
    parsed = rules.parse_orders(state, "B", "draw deck, flip r1c1")
    assert parsed.orders is None
    assert "no order is due from you: round 1: A to move" in parsed.errors[0].message


def test_example_orders_are_always_accepted(rules: StrikeGold, state: State) -> None:
    rng = random.Random(3)
    for _ in range(50):
        text = rules.example_orders(state, "A", rng)
        parsed = rules.parse_orders(state, "A", text)
        assert parsed.errors == (), (text, parsed.errors)
