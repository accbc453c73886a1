"""Golden Strider order syntax: what players write, what is refused, the canonical round trip."""

from __future__ import annotations

import pytest

from adjudicator.games.golden_strider.orders import PlayOrder, SetupOrder
from adjudicator.games.golden_strider.state import Card
from tests.adjudicator.golden_strider.scenario import RULES, runner, state

SETUP = state(*(runner(s) for s in "ABCDEF"), round_number=0)
ROUND = state(runner("A", 5, 0, "6/0 6/0 8/0 3/1 2/2"), *(runner(s) for s in "BCDEF"), round_number=3)


@pytest.mark.parametrize(
    "text",
    ["cards 10 8 6 4 2", "CARDS 10, 8, 6, 4, 2", "cards: 2 4 6 8 10", "  10 8 6 4 2  ", "Cards 10,8,6,4,2"],
)
def test_setup_variants_are_accepted(text):
    parsed = RULES.parse_orders(SETUP, "A", text)
    assert parsed.orders == SetupOrder((10, 8, 6, 4, 2)) or sorted(parsed.orders.values) == [2, 4, 6, 8, 10]
    assert parsed.canonical == "cards 10 8 6 4 2"
    assert not parsed.errors


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cards 10 8 6 4", "4 cards given; choose exactly 5"),
        ("cards 10 8 6 4 1", "these total 29; the five cards must total 30"),
        ("cards 11 8 6 3 2", "card value 11 is outside 0-10"),
        ("pick ten", "not understood; expected cards V V V V V"),
    ],
)
def test_bad_setups_are_refused_with_a_reason_quoting_the_line(text, message):
    parsed = RULES.parse_orders(SETUP, "A", text)
    assert parsed.orders is None
    assert parsed.errors[0].line == text.strip()
    assert message in parsed.errors[0].message


def test_min_initial_card_option_refuses_zero():
    """G7 option min_initial_card = 1 (Howell): a 0 card is refused at setup."""
    howell = state(*(runner(s) for s in "ABCDEF"), round_number=0, min_initial_card=1)
    assert RULES.parse_orders(howell, "A", "cards 10 10 10 0 0").orders is None
    assert RULES.parse_orders(howell, "A", "cards 10 10 7 2 1").orders is not None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("play 6/0 bank 2", PlayOrder(Card(0, 6), 2)),
        ("Play 6/0, Bank 2", PlayOrder(Card(0, 6), 2)),
        ("play 6 bank 2", PlayOrder(Card(0, 6), 2)),
        ("play 6/0 move 4 bank 2", PlayOrder(Card(0, 6), 2, 4)),
        ("p 8/0 b3", PlayOrder(Card(0, 8), 3)),
        ("play 3/1", PlayOrder(Card(1, 3), 0)),
        ("bank 1 play 2/2", PlayOrder(Card(2, 2), 1)),
        ("6/0 m4 b2", PlayOrder(Card(0, 6), 2, 4)),
        ("  PLAY   8   BANK   0 ", PlayOrder(Card(0, 8), 0)),
        ("Play 6 / 0, bank 2", PlayOrder(Card(0, 6), 2)),  # spaces around the slash, as people type them
        ("play 3 /1", PlayOrder(Card(1, 3), 0)),
        ("play 2/ 2 bank 1", PlayOrder(Card(2, 2), 1)),
    ],
)
def test_round_order_variants(text, expected):
    parsed = RULES.parse_orders(ROUND, "A", text)
    assert parsed.orders == expected, parsed.errors
    again = RULES.parse_orders(ROUND, "A", parsed.canonical)
    assert again.orders == parsed.orders


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("play 7/0 bank 2", "you hold no card 7/0; your hand is 6/0 6/0 8/0 3/1 2/2"),
        ("play 6/3", "you hold no card 6/3"),
        ("play 6/0 bank 7", "cannot bank 7 from a card of 6"),
        ("play six", "'play' needs a card after it"),
        ("bank two", "'bank' needs a number after it"),
        ("run fast", "did not understand 'run'"),
        ("bank 2", "no card named"),
    ],
)
def test_bad_round_orders_say_what_was_expected(text, message):
    parsed = RULES.parse_orders(ROUND, "A", text)
    assert parsed.orders is None
    assert parsed.errors[0].line == text
    assert message in parsed.errors[0].message


def test_only_the_first_of_two_orders_is_used_and_the_second_is_reported():
    parsed = RULES.parse_orders(ROUND, "A", "play 6/0 bank 2\nplay 8/0 bank 1")
    assert parsed.orders == PlayOrder(Card(0, 6), 2)
    assert "only one card is played each round" in parsed.errors[0].message


def test_oldest_card_of_a_value_is_named_in_the_notes():
    parsed = RULES.parse_orders(ROUND, "A", "play 6 bank 2")
    assert "card 6 read as 6/0, your oldest 6" in parsed.notes


def test_notes_explain_restitution_and_carry_forward():
    owing = state(runner("A", 5, 4, "3/0 6/0 8/0 3/1 2/2"), *(runner(s) for s in "BCDEF"), round_number=3)
    parsed = RULES.parse_orders(owing, "A", "play 3/0 bank 1")
    assert "restitution 3 comes off first (seed rule 12)" in parsed.notes
    assert "1 restitution will be carried forward (cf)" in parsed.notes
    assert "this plays 3/0: deduct 3, move 0, bank 0" in parsed.notes


def test_empty_text_is_an_error_not_an_order():
    parsed = RULES.parse_orders(ROUND, "A", "   \n  ")
    assert parsed.orders is None and parsed.errors


def test_a_setup_reads_back_from_its_canonical_text_as_the_same_order():
    """Found by the parser fuzz: cards written low first were kept in that order, so the
    canonical text (highest first) read back as a different order."""
    parsed = RULES.parse_orders(SETUP, "A", "cards 0 10 10 10 0")
    assert parsed.orders == SetupOrder((10, 10, 10, 0, 0))
    assert RULES.parse_orders(SETUP, "A", parsed.canonical).orders == parsed.orders
