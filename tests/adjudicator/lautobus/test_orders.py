"""L'autobus order syntax: accepted variants, rejected text, notes, canonical round trip."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from adjudicator.games.lautobus import Lautobus
from adjudicator.games.lautobus.cards import SPRINT, ZERO, move
from adjudicator.games.lautobus.orders import Play, TeamOrders
from adjudicator.games.lautobus.state import State

CANONICAL = "1: 3, 2: 5, 3: zero, 4: sprint, 5: 2"
EXPECTED = TeamOrders((Play(1, move(3)), Play(2, move(5)), Play(3, ZERO), Play(4, SPRINT), Play(5, move(2))))


def team(la: SimpleNamespace, turn: int = 3) -> State:
    full = la.FULL
    return la.state([("A", r, 30 - 2 * r, full) for r in range(1, 6)], turn=turn)


@pytest.mark.parametrize(
    "text",
    [
        CANONICAL,
        "1:3,2:5,3:zero,4:sprint,5:2",
        "1: 3\n2: 5\n3: ZERO\n4: Sprint\n5: 2\n",
        "  1 3 ; 2 5 ; 3 z ; 4 s ; 5 2 ",
        "rider 1 plays 3\nrider 2 plays 5\nrider 3 plays zero\nrider 4 plays sprint\nrider 5 plays 2",
        "R1 3; R2 5; R3 Zero; R4 Sprint; R5 2",
        "#1: 3, #2: 5, #3: 0, #4: sp, #5: 2",
        "1=3 2=5 3=z 4=s 5=2",
        "1 -> 3, 2 -> 5, 3 -> zero, 4 -> sprint and 5 -> 2",
        "cyclist 1: 3. cyclist 2: 5. cyclist 3: zero. cyclist 4: sprint. cyclist 5: 2",
        "5: 2, 4: sprint, 3: zero, 2: 5, 1: 3",
        "3 5 zero sprint 2",
        "3, 5, Z, S, 2",
        "3\n5\nzero\nsprint\n2",
    ],
)
def test_accepted_variants(rules: Lautobus, la: SimpleNamespace, text: str) -> None:
    parsed = rules.parse_orders(team(la), "A", text)
    assert parsed.errors == ()
    assert parsed.orders == EXPECTED
    assert parsed.canonical == CANONICAL


def test_canonical_round_trip(rules: Lautobus, la: SimpleNamespace) -> None:
    state = team(la)
    parsed = rules.parse_orders(state, "A", "R1 3; R2 5; R3 Zero; R4 Sprint; R5 2")
    assert parsed.orders is not None
    again = rules.parse_orders(state, "A", rules.format_orders(state, "A", parsed.orders))
    assert again.orders == parsed.orders
    assert again.canonical == parsed.canonical


def test_example_orders_round_trip(rules: Lautobus) -> None:
    """example_orders is always legal, read without errors or warnings, and round-trips."""
    rng = random.Random(3)
    state = rules.new_game(["A", "B", "C", "D", "E"], {}, random.Random(0))
    for _ in range(40):
        text = rules.example_orders(state, "A", rng)
        parsed = rules.parse_orders(state, "A", text)
        assert parsed.errors == () and parsed.orders is not None, text
        assert not any(n.startswith("WARNING") for n in parsed.notes), (text, parsed.notes)
        assert rules.parse_orders(state, "A", parsed.canonical).orders == parsed.orders


def test_notes_echo_each_card(rules: Lautobus, la: SimpleNamespace) -> None:
    """Echo back exactly how the order was read."""
    state = la.state([("A", 1, 20, [1, 3, 6, "sprint"]), ("A", 2, 10, ["sprint"]), ("A", 3, 5, [2, "zero"])])
    parsed = rules.parse_orders(state, "A", "1: sprint, 2: s, 3: z")
    assert parsed.notes == (
        "rider 1 plays SPRINT: all of 1 3 6 at once, 10 spaces (seed rule 10)",
        "rider 2 plays SPRINT, the last card: it moves 1 (seed rule 11)",
        "rider 3 plays ZERO: no movement",
    )


def test_bare_list_is_echoed(rules: Lautobus, la: SimpleNamespace) -> None:
    """A bare list goes to the riders with cards, in rider order (rider 2 has none here)."""
    state = la.state([("A", 1, 20, la.FULL), ("A", 2, 10, []), ("A", 3, 5, la.FULL)])
    parsed = rules.parse_orders(state, "A", "4 6")
    assert parsed.canonical == "1: 4, 3: 6"
    assert parsed.notes[0] == "read as one card for each rider with cards, in rider order"


def test_illegal_cards_are_accepted_with_a_warning(rules: Lautobus, la: SimpleNamespace) -> None:
    """L8: an illegal card is echoed with a warning naming the referee's replacement."""
    state = la.state([("A", 1, 20, [2, 5, "sprint"]), ("A", 2, 10, [4, "zero", "sprint"])])
    parsed = rules.parse_orders(state, "A", "1: 6, 2: zero")
    assert parsed.errors == ()
    assert parsed.canonical == "1: 6, 2: zero"
    assert parsed.notes[0] == (
        "WARNING: rider 1 cannot play 6: it holds no 6 (its cards: 2 5 sprint); unless you change it, "
        "the referee will play 2 instead (ruling L8)"
    )
    assert parsed.notes[1] == "rider 2 plays ZERO: no movement"
    used = rules.parse_orders(state, "A", "1: zero, 2: 4")
    assert "its ZERO has been used already" in used.notes[0]


def test_specials_on_turn_1_are_warned(rules: Lautobus, la: SimpleNamespace) -> None:
    parsed = rules.parse_orders(team(la, turn=0), "A", CANONICAL)
    warnings = [n for n in parsed.notes if n.startswith("WARNING")]
    assert len(warnings) == 2
    assert all("the first turn (seed rule 10)" in w and "will play 1 instead" in w for w in warnings)


def test_missing_rider_is_warned(rules: Lautobus, la: SimpleNamespace) -> None:
    parsed = rules.parse_orders(team(la), "A", "1: 3, 2: 5")
    assert parsed.orders == TeamOrders((Play(1, move(3)), Play(2, move(5))))
    assert parsed.notes[-1] == "WARNING: no card for rider 5; unless you send one, the referee will play 1 (ruling L8)"
    assert sum(n.startswith("WARNING: no card") for n in parsed.notes) == 3


def test_card_for_rider_without_cards_is_ignored(rules: Lautobus, la: SimpleNamespace) -> None:
    """A cyclist with no cards needs none."""
    state = la.state([("A", 1, 20, la.FULL), ("A", 2, 10, [])])
    parsed = rules.parse_orders(state, "A", "1: 4, 2: 3")
    assert parsed.canonical == "1: 4"
    assert "rider 2 has no cards left and needs none; 3 ignored" in parsed.notes


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1: banana", "1: banana", "'banana' is not a card"),
        ("7: 3", "7: 3", "'7' is not a rider 1-5"),
        ("1:", "1:", "no card for rider 1"),
        ("please", "please", "'please' is not a rider"),
        ("1: 3, 1: 4", "1: 4", "rider 1 was given a card already"),
        ("1: 100", "1: 100", "'100' is not a card"),
        ("Rider 2 PLAYS Banana", "Rider 2 PLAYS Banana", "'banana' is not a card"),
    ],
)
def test_rejected_text_names_the_line(rules: Lautobus, la: SimpleNamespace, text: str, line: str, message: str) -> None:
    parsed = rules.parse_orders(team(la), "A", text)
    assert parsed.errors
    assert parsed.errors[0].line == line
    assert message in parsed.errors[0].message


def test_nothing_usable_gives_no_orders(rules: Lautobus, la: SimpleNamespace) -> None:
    for text in ("", "   \n", "hello there", "3 5 2"):
        parsed = rules.parse_orders(team(la), "A", text)
        assert parsed.orders is None and parsed.errors, text
    assert "expected RIDER: CARD" in rules.parse_orders(team(la), "A", "").errors[0].message


def test_good_items_survive_a_bad_one(rules: Lautobus, la: SimpleNamespace) -> None:
    parsed = rules.parse_orders(team(la), "A", "1: 3, 2: x7, 3: 4")
    assert parsed.canonical == "1: 3, 3: 4"
    assert [e.line for e in parsed.errors] == ["2: x7"]


def test_two_numbers_naming_an_active_rider_are_a_pair(rules: Lautobus, la: SimpleNamespace) -> None:
    """'1 3' with riders 1 and 3 holding cards is read as rider 1 plays 3 (not a bare list)."""
    state = la.state([("A", 1, 20, la.FULL), ("A", 2, 10, []), ("A", 3, 5, la.FULL)])
    assert rules.parse_orders(state, "A", "1 3").canonical == "1: 3"
    assert rules.parse_orders(state, "A", "1 3, 3 4").canonical == "1: 3, 3: 4"


def test_team_without_cards_owes_nothing(rules: Lautobus, la: SimpleNamespace) -> None:
    state = la.state([("A", 1, 20, []), ("B", 1, 10, [1])])
    parsed = rules.parse_orders(state, "A", "1: 3")
    assert parsed.orders is None
    assert "no orders are owed" in parsed.errors[0].message


def test_cards_only_for_riders_without_cards_are_not_an_order(rules: Lautobus, la: SimpleNamespace) -> None:
    """Found by the parser fuzz: an order naming only riders that hold no cards was
    accepted as an empty order whose canonical text was empty (and read back as no order)."""
    state = la.state([("A", 1, 20, la.FULL), ("A", 2, 10, [])])
    parsed = rules.parse_orders(state, "A", "cyclist 2 : 0")
    assert parsed.orders is None and parsed.canonical == ""
    assert "no card for a rider who holds cards (riders 1)" in parsed.errors[-1].message
    assert "rider 2 has no cards left and needs none; zero ignored" in parsed.notes
