"""The checks shared by every engine (adjudicator.checks) and the option mapping helpers."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import pytest

from adjudicator import registry
from adjudicator.api import IllegalOrders, SetupError
from adjudicator.checks import check_seats, expect_orders
from adjudicator.options import is_whole, option_fields, options_dict, resolve_options

COUNT_MESSAGES = {
    "dragon-stripes": "Dragon Stripes needs 2 to 6 players, not 1",
    "golden-strider": "Golden Strider needs 6 to 10 runners, not 1",
    "lautobus": "L'autobus needs exactly 5 teams, not 1",
    "strike-gold": "Strike Gold needs 2 to 8 players, not 1",
    "three-races": "the three-race game needs exactly 4 teams, not 1",
}
"""The referee's games' own wording, hand-checked; a game added later is held to the shared form (below)."""


def test_every_message_here_is_a_registered_game():
    assert set(COUNT_MESSAGES) <= set(registry.kinds())


@pytest.mark.parametrize("kind", registry.kinds())
def test_each_game_keeps_its_own_seat_count_message(kind: str):
    rules = registry.get_rules(kind)
    with pytest.raises(SetupError) as raised:
        rules.new_game(["solo"], resolve_options(rules.options(), {}), random.Random(1))
    span = (
        f"exactly {rules.min_seats}"
        if rules.min_seats == rules.max_seats
        else f"{rules.min_seats} to {rules.max_seats}"
    )
    assert re.fullmatch(rf".+ needs {span} \w+, not 1", str(raised.value)), "check_seats' form"
    assert str(raised.value) == COUNT_MESSAGES.get(kind, str(raised.value))


@pytest.mark.parametrize("kind", registry.kinds())
def test_every_game_refuses_a_seat_named_twice(kind: str):
    """Golden Strider and Strike Gold used to accept two seats of one name (then mixed their orders up)."""
    rules = registry.get_rules(kind)
    seats = [f"s{i}" for i in range(rules.min_seats - 1)] + ["s0"]
    with pytest.raises(SetupError, match=r"twice|same seat name"):
        rules.new_game(seats, resolve_options(rules.options(), {}), random.Random(1))


def test_check_seats_bounds_and_wording():
    check_seats(["a", "b"], 2, 3, game="G", noun="players", twice="twice")
    with pytest.raises(SetupError, match=r"^G needs 2 to 3 players, not 4$"):
        check_seats(list("abcd"), 2, 3, game="G", noun="players", twice="twice")
    with pytest.raises(SetupError, match=r"^G needs exactly 2 teams, not 1$"):
        check_seats(["a"], 2, 2, game="G", noun="teams", twice="twice")
    with pytest.raises(SetupError, match=r"^named twice$"):
        check_seats(["a", "a"], 2, 2, game="G", noun="teams", twice="named twice")


def test_expect_orders_returns_the_order_or_names_the_seat():
    assert expect_orders("A", {"A": 3}, int) == 3
    with pytest.raises(IllegalOrders, match="seat B: expected a int, got None"):
        expect_orders("B", {"A": 3}, int)
    with pytest.raises(IllegalOrders, match="seat A: expected a number, got 'x'"):
        expect_orders("A", {"A": "x"}, int, "a number")


@dataclass(frozen=True)
class _Options:
    speed: int = 1
    name: str = "x"


def test_option_mapping_both_ways():
    assert option_fields(_Options, {"speed": 3, "other": 1}) == {"speed": 3}
    assert options_dict(_Options(speed=2)) == {"speed": 2, "name": "x"}
    assert is_whole(3) and not is_whole(True) and not is_whole(3.0) and not is_whole("3")


@pytest.mark.parametrize("kind", registry.kinds())
@pytest.mark.parametrize("number", ["9" * 300, "\u0663" * 400])
def test_a_number_too_long_for_int_is_an_error_not_a_crash(kind: str, number: str):
    """Found by the parser fuzz: int() raises ValueError past 4300 digits, and every
    game's parser turned digit runs into int (so such a mail would have been parked as a bug).
    A number that long is on a line longer than any order line, refused as such (below); a
    number of a few hundred digits, on a line of orders' length, is refused as a number."""
    rules = registry.get_rules(kind)
    seats = [f"s{i}" for i in range(rules.min_seats)]
    state = rules.new_game(seats, resolve_options(rules.options(), {}), random.Random(1))
    seat = rules.phase(state).owing[0]
    parsed = rules.parse_orders(state, seat, f"hello\nplay {number} bank 2\n")
    assert parsed.orders is None
    assert parsed.errors[0].message == f"a number of {len(number)} digits is no order"
    assert parsed.errors[0].line.startswith("play ") and len(parsed.errors[0].line) == 60
    assert rules.parse_orders(state, seat, "9" * 100).errors[0].message != parsed.errors[0].message
    huge = rules.parse_orders(state, seat, f"hello\nplay {'9' * 5000} bank 2\n")
    assert huge.orders is None and huge.errors[0].message.startswith("line too long, 5012 characters")
