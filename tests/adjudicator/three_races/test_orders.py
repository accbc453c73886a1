"""The order parser: accepted variants, rejected text with its message, canonical round trips."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from adjudicator.games.three_races.conditions import format_condition
from adjudicator.games.three_races.orders import Split
from adjudicator.games.three_races.orders_condition import parse_condition
from adjudicator.games.three_races.state import State

SPLIT = "25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8 12"
SEATS = ("A", "B", "C", "D")


@pytest.fixture
def state(tr: SimpleNamespace) -> State:
    """After the setup; team A holds the split of the seed's rule 2."""
    return tr.setup(tr.start(), {"A": {25: [2, 4, 5, 10], 55: [1, 6, 9, 11], 85: [3, 7, 8, 12]}})


def assert_round_trip(tr: SimpleNamespace, state: State, seat: str, text: str) -> None:
    parsed = tr.rules.parse_orders(state, seat, text)
    assert parsed.orders is not None, parsed.errors
    again = tr.rules.parse_orders(state, seat, parsed.canonical)
    assert again.orders == parsed.orders
    assert not again.errors
    assert tr.rules.format_orders(state, seat, parsed.orders) == parsed.canonical


# --- setup -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        SPLIT,
        "25: 2, 4, 5, 10\n55: 1, 6, 9, 11\n85: 3, 7, 8, 12",
        "R25 10 5 4 2; R55 11 9 6 1; R85 12 8 7 3",
        "85 = 3 7 8 12 / 25 = 2 4 5 10 / 55 = 1 6 9 11",
        "race 25: 2 4 5 10\nrace 55: 1 6 9 11\nrace 85: 3 7 8 12",
        "Setup: 25 cards 2 4 5 10, 55 cards 1 6 9 11, 85 cards 3 7 8 12",
        "2 4 5 10 / 1 6 9 11 / 3 7 8 12",
        "25: 2 4 5 10 / 55: 1 6 9 11",
    ],
)
def test_setup_variants(tr: SimpleNamespace, text: str) -> None:
    parsed = tr.rules.parse_orders(tr.start(), "A", text)
    assert not parsed.errors, parsed.errors
    assert parsed.orders == Split(((2, 4, 5, 10), (1, 6, 9, 11), (3, 7, 8, 12)))
    assert parsed.canonical == SPLIT
    assert tr.rules.parse_orders(tr.start(), "A", parsed.canonical).orders == parsed.orders


def test_setup_notes(tr: SimpleNamespace) -> None:
    inferred = tr.rules.parse_orders(tr.start(), "A", "25: 2 4 5 10 / 55: 1 6 9 11")
    assert "the 85 runner gets the four cards left" in inferred.notes
    unlabelled = tr.rules.parse_orders(tr.start(), "A", "2 4 5 10 / 1 6 9 11 / 3 7 8 12")
    assert "unlabelled groups read as the 25, 55 and 85 races, in that order" in unlabelled.notes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8", "the 85 runner has 3 cards; each runner gets exactly four"),
        ("25: 2 4 5 10 / 55: 1 6 9 10 / 85: 3 7 8 12", "card 10 is given twice"),
        ("25: 2 4 5 13 / 55: 1 6 9 11 / 85: 3 7 8 12", "card 13 is not one of 1-12"),
        ("25: 2 4 5 10 / 25: 1 6 9 11", "the 25 race is given twice"),
        ("25: 2 4 5 10", "no cards for the 55 and 85 races"),
        ("give me the fast cards", "did not understand 'give'"),
        ("2 4 5 10 1 6 9 11 3 7 8 12", "expected three groups of four cards"),
        ("", "expected three groups of four cards"),
        ("3 25: 2 4 5 10 / 55: 1 6 9 11", "card 3 comes before any race"),
    ],
)
def test_setup_errors(tr: SimpleNamespace, text: str, message: str) -> None:
    parsed = tr.rules.parse_orders(tr.start(), "A", text)
    assert parsed.orders is None
    assert message in parsed.errors[0].message
    assert parsed.errors[0].line == " / ".join(ln.strip() for ln in text.splitlines() if ln.strip())


# --- deadline orders ------------------------------------------------------------------------

CANONICAL = "move 1: 25=10 55=6 85=12; move 2: 25=4 55=9 85=3"


@pytest.mark.parametrize(
    "text",
    [
        CANONICAL,
        "move 1: 25=10 55=6 85=12\nmove 2: 25=4 55=9 85=3",
        "Move 1: 25=10, 55=6, 85=12\nMove 2: 25=4, 55=9, 85=3",
        "m1 r25 10 r55 6 r85 12\nm2 r25 4 r55 9 r85 3",
        "1: 25:10 55:6 85:12\n2: 25:4 55:9 85:3",
        "first move: 25=10 55=6 85=12\nsecond move: 25=4 55=9 85=3",
        "MOVE1 25 = 10  55 = 6  85 = 12\nMOVE2 85=3 55=9 25=4",
        "25=10 55=6 85=12\n25=4 55=9 85=3",
        "move 2: 25=4 55=9 85=3\nmove 1: play 25=10 and 55=6 and 85=12",
    ],
)
def test_deadline_variants(tr: SimpleNamespace, state: State, text: str) -> None:
    parsed = tr.rules.parse_orders(state, "A", text)
    assert not parsed.errors, parsed.errors
    assert parsed.canonical == CANONICAL
    assert_round_trip(tr, state, "A", text)


def test_unlabelled_lines_are_noted(tr: SimpleNamespace, state: State) -> None:
    parsed = tr.rules.parse_orders(state, "A", "25=10 55=6 85=12\n25=4 55=9 85=3")
    assert parsed.notes[:2] == ('"25=10 55=6 85=12" read as move 1', '"25=4 55=9 85=3" read as move 2')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("move 3: 25=2", "there is no move 3 at this deadline: it plays moves 1-2"),
        ("move 1: 25=2\nmove 1: 25=4", "move 1 is already given; this line is ignored"),
        ("move 1 if B leads 25: 25=2", "move 1, the first of this deadline, cannot depend on anything yet"),
        ("move 1: 25=1", "the 25 runner does not hold card 1 (your 25 cards: 2 4 5 10)"),
        ("move 1: 25=2\nmove 2: 25=2", "card 2 was already played this cycle"),
        ("move 1: 30=2", "30 is not a race (25, 55 or 85)"),
        ("move 1: 25=13", "card 13 is not one of 1-12"),
        ("move 1: 25=2 25=4", "a race is given two cards in one move"),
        ("move 1: 25=2 55", "expected race=card pairs"),
        ("move 1: 25=two", "did not understand 'two'"),
        ("move 2 if B flies in 55: 55=9", "did not understand 'flies'"),
        ("move 2 if B square in 55: 55=9", "not a condition I know"),
        ("move 2 if B leads: 55=9", "must name one race"),
        ("move 2 if B leads 55 55=9", "put ':' or 'then' between a condition and its cards"),
        ("swap 25:2 25:4", "no more than one card may leave any one runner"),
        ("swap 25:1 55:6", "your 25 runner does not hold card 1"),
        ("swap 25:2 99:6", "there is no 99 race"),
    ],
)
def test_deadline_errors(tr: SimpleNamespace, state: State, text: str, message: str) -> None:
    parsed = tr.rules.parse_orders(state, "A", text)
    bad = parsed.errors[-1]
    assert message in bad.message
    assert bad.line == text.splitlines()[-1]


def test_nothing_usable_is_refused(tr: SimpleNamespace, state: State) -> None:
    parsed = tr.rules.parse_orders(state, "A", "")
    assert parsed.orders is None
    assert "no orders given; expected move N: 25=C 55=C 85=C" in parsed.errors[0].message
    bad = tr.rules.parse_orders(state, "A", "move 1: 25=99")
    assert bad.orders is None and len(bad.errors) == 1


def test_a_bad_line_keeps_the_good_ones(tr: SimpleNamespace, state: State) -> None:
    parsed = tr.rules.parse_orders(state, "A", "move 1: 25=10\nmove 2: 25=10")
    assert parsed.canonical == "move 1: 25=10"
    assert "card 10 was already played this cycle" in parsed.errors[0].message


def test_conditional_orders_round_trip_and_echo(tr: SimpleNamespace, state: State) -> None:
    text = (
        "move 1: 25=10 55=6 85=12\n"
        "move 2 if B's square in the 55 race is at least 30: 55=11\n"
        "Move 2 if 25 finished or B played 12 in r85 then 55=9 85=3\n"
        "move 2 otherwise: 25=4 55=9 85=3"
    )
    parsed = tr.rules.parse_orders(state, "A", text)
    assert not parsed.errors, parsed.errors
    assert parsed.canonical == (
        "move 1: 25=10 55=6 85=12; "
        "move 2 if B square in 55 >= 30: 55=11; "
        "move 2 if 25 finished or B played 12 in 85: 55=9 85=3; "
        "move 2: 25=4 55=9 85=3"
    )
    assert parsed.notes == (
        'move 2, case 1: "B square in 55 >= 30" read as: if B\'s runner in the 55 race is on a square at least '
        "30, play 55=11 (for 25, 85: the plain move 2 card)",
        'move 2, case 2: "25 finished or B played 12 in 85" read as: if the 25 race has finished OR B played 12 '
        "in the 85 race in the previous move, play 55=9 85=3 (for 25: the plain move 2 card)",
    )
    assert_round_trip(tr, state, "A", text)


def test_unlabelled_cases_belong_to_move_2(tr: SimpleNamespace, state: State) -> None:
    text = "move 1: 25=10 55=6 85=12\nif B leads 55: 55=11\notherwise 25=4 55=9 85=3"
    parsed = tr.rules.parse_orders(state, "A", text)
    assert not parsed.errors, parsed.errors
    assert parsed.canonical == "move 1: 25=10 55=6 85=12; move 2 if B place in 55 = 1: 55=11; move 2: 25=4 55=9 85=3"


def test_cases_without_a_plain_line_are_noted(tr: SimpleNamespace, state: State) -> None:
    parsed = tr.rules.parse_orders(state, "A", "move 1: 25=10 55=6 85=12\nmove 2 if 25 finished: 55=9")
    assert any("move 2: no card for the 25, 55, 85 races when no case holds" in n for n in parsed.notes)


def test_readjust_changes_what_is_legal(tr: SimpleNamespace, state: State) -> None:
    """After swap 25:10 55:11 the 25 runner may play 11 and no longer 10."""
    good = tr.rules.parse_orders(state, "A", "Swap 10 11\nmove 1: 25=11 55=10")
    assert not good.errors, good.errors
    assert good.canonical == "swap 25:10 55:11; move 1: 25=11 55=10"
    assert any("10 from the 25 runner to the 55 runner" in n for n in good.notes)
    bad = tr.rules.parse_orders(state, "A", "swap 25:10 55:11\nmove 1: 25=10")
    assert "the 25 runner does not hold card 10 (your 25 cards: 2 4 5 11)" in bad.errors[0].message
    assert_round_trip(tr, state, "A", "exchange r55=11 with r25=10; m1 25=11")
    rotate = tr.rules.parse_orders(state, "A", "rotate 85:12 55:11 25:10")
    assert rotate.canonical == "rotate 25:10 85:12 55:11"
    same = tr.rules.parse_orders(state, "A", "rotate 85:12 25:10 55:11")
    assert same.canonical == "rotate 25:10 55:11 85:12"


def test_one_move_per_deadline(tr: SimpleNamespace) -> None:
    state = tr.setup(tr.start(moves_per_deadline=1), {"A": {25: [2, 4, 5, 10]}})
    assert tr.rules.parse_orders(state, "A", "25=10").canonical == "move 1: 25=10"
    refused = tr.rules.parse_orders(state, "A", "move 1: 25=10\nif 25 finished: 25=4")
    assert "there is no move 2 at this deadline: it plays move 1" in refused.errors[0].message


@pytest.fixture
def second(tr: SimpleNamespace, state: State) -> State:
    """The second deadline (moves 3 and 4), after moves 1 and 2 of the seed's split."""
    texts = {seat: "move 1: 25=2 55=1 85=3; move 2: 25=4 55=6 85=7" for seat in ("A",)}
    return tr.submit(state, texts).state


@pytest.mark.parametrize(
    "text",
    [
        "move 3: 25=5 55=9 85=8; move 4: 25=10 55=11 85=12",
        "3: 25=5 55=9 85=8\n4: 25=10 55=11 85=12",
        "m3 r25 5 r55 9 r85 8\nm4 r25 10 r55 11 r85 12",
        "25=5 55=9 85=8\n25=10 55=11 85=12",
        "first move: 25=5 55=9 85=8\nsecond move: 25=10 55=11 85=12",
    ],
)
def test_later_deadlines_take_the_games_move_numbers(tr: SimpleNamespace, second: State, text: str) -> None:
    """The report says "deadline 2: moves 3-4": those are the numbers the orders use and echo."""
    assert tr.rules.phase(second).title == "deadline 2: moves 3-4"
    parsed = tr.rules.parse_orders(second, "A", text)
    assert not parsed.errors, parsed.errors
    assert parsed.canonical == "move 3: 25=5 55=9 85=8; move 4: 25=10 55=11 85=12"
    assert not any("numbered across the game" in note for note in parsed.notes)
    assert_round_trip(tr, second, "A", text)


def test_the_deadlines_own_numbers_are_read_with_a_note(tr: SimpleNamespace, second: State) -> None:
    parsed = tr.rules.parse_orders(second, "A", "move 1: 25=5 55=9 85=8\n2: 25=10 55=11 85=12")
    assert not parsed.errors, parsed.errors
    assert parsed.canonical == "move 3: 25=5 55=9 85=8; move 4: 25=10 55=11 85=12"
    assert parsed.notes[:2] == (
        '"move 1: 25=5 55=9 85=8": move 1 read as move 3, the first move of this deadline '
        "(moves are numbered across the game)",
        '"2: 25=10 55=11 85=12": move 2 read as move 4, the second move of this deadline '
        "(moves are numbered across the game)",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("move 5: 25=5", "there is no move 5 at this deadline: it plays moves 3-4"),
        ("move 3 if B leads 25: 25=5", "move 3, the first of this deadline, cannot depend on anything yet"),
        ("move 3: 25=5\nmove 1: 25=10", "move 3 is already given"),
        ("move 3: 25=2", "move 3, 25=2: card 2 was already played this cycle"),
    ],
)
def test_later_deadline_errors_use_the_games_numbers(
    tr: SimpleNamespace, second: State, text: str, message: str
) -> None:
    parsed = tr.rules.parse_orders(second, "A", text)
    assert message in parsed.errors[-1].message


def test_later_deadline_cases_and_notes_use_the_games_numbers(tr: SimpleNamespace, second: State) -> None:
    parsed = tr.rules.parse_orders(second, "A", "move 3: 25=5 55=9 85=8\nif B leads 55: 55=11\nelse 25=10")
    assert not parsed.errors, parsed.errors
    assert parsed.canonical == "move 3: 25=5 55=9 85=8; move 4 if B place in 55 = 1: 55=11; move 4: 25=10"
    assert any(note.startswith('move 4, case 1: "B place in 55 = 1"') for note in parsed.notes)
    assert any(note.startswith("move 4: no card for the 55, 85 races when no case holds") for note in parsed.notes)


def test_example_orders_are_always_accepted(tr: SimpleNamespace) -> None:
    rng = random.Random(3)
    state = tr.start()
    for _ in range(30):
        if tr.rules.phase(state) is None:
            break
        texts = {seat: tr.rules.example_orders(state, seat, rng) for seat in state.seats}
        for seat, text in texts.items():
            assert_round_trip(tr, state, seat, text)
        state = tr.submit(state, texts).state


# --- conditions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("55 finished", "55 finished"),
        ("the 55 race is over", "55 finished"),
        ("race 55 has finished", "55 finished"),
        ("55 running", "not 55 finished"),
        ("not 55 finished", "not 55 finished"),
        ("B square in 55 >= 30", "B square in 55 >= 30"),
        ("b's square in r55 is at least 30", "B square in 55 >= 30"),
        ("square of B in 55 more than 29", "B square in 55 > 29"),
        ("B in the 55 race 30 or more", "B square in 55 >= 30"),
        ("B at 30 in 55", "B square in 55 = 30"),
        ("my square in 85 under 40", "A square in 85 < 40"),
        ("B square in 55 != 25", "B square in 55 != 25"),
        ("B leads 55", "B place in 55 = 1"),
        ("I lead 25", "A place in 25 = 1"),
        ("B 2nd in 55", "B place in 55 = 2"),
        ("B 2nd or better in 55", "B place in 55 <= 2"),
        ("B position in 55 at most 3", "B place in 55 <= 3"),
        ("B ahead of C in 85", "B ahead of C in 85"),
        ("B is behind me in the 85 race", "A ahead of B in 85"),
        ("B played 12 in 85", "B played 12 in 85"),
        ("B plays more than 9 in 85", "B played > 9 in 85"),
        ("B did not play 12 in 85", "not B played 12 in 85"),
        ("someone played 12 in 25", "anyone played 12 in 25"),
        ("anyone played a card >= 10 in 25", "anyone played >= 10 in 25"),
        ("25 finished or B leads 55 and C leads 85", "25 finished or B place in 55 = 1 and C place in 85 = 1"),
    ],
)
def test_condition_variants(text: str, canonical: str) -> None:
    parsed = parse_condition(text, SEATS, "A")
    assert not isinstance(parsed, str), parsed
    assert format_condition(parsed) == canonical
    assert parse_condition(canonical, SEATS, "A") == parsed


def test_condition_seat_names_with_spaces_and_case() -> None:
    seats = ("Team 3", "alice", "Bob", "A")
    parsed = parse_condition("team 3 ahead of ALICE in 55 and A square in 25 > 3", seats, "Bob")
    assert not isinstance(parsed, str), parsed
    assert format_condition(parsed) == "Team 3 ahead of alice in 55 and A square in 25 > 3"
    article = parse_condition("Team 3 played a card >= 10 in 25", seats, "Bob")
    assert not isinstance(article, str) and format_condition(article) == "Team 3 played >= 10 in 25"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("B played in 85", "a 'played' condition needs one team (or 'anyone') and a card"),
        ("B played 13 in 85", "cards are 1 to 12"),
        ("B ahead in 85", "'ahead of' and 'behind' compare two teams"),
        ("B place in 55 = 5", "a place is 1 to 4"),
        ("25 finished and", "must name one race"),
        ("B square in 25 >= 3 4", "more than one number"),
        ("", "an empty condition"),
    ],
)
def test_condition_errors(text: str, message: str) -> None:
    parsed = parse_condition(text, SEATS, "A")
    assert isinstance(parsed, str)
    assert message in parsed
