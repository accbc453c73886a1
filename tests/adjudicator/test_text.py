"""Splitting messages into lines and parts (adjudicator.text), the same for every parser."""

from __future__ import annotations

import random

import pytest

from adjudicator import registry
from adjudicator.api import PhaseKind
from adjudicator.text import a_or_an, order_lines, order_parts
from tests.adjudicator.fuzz.states import spots


def test_every_line_separator_ends_a_line():
    text = " a \r\nb\rc\u2028d\x0ce\x85f\n\n  \n g "
    assert order_lines(text) == ["a", "b", "c", "d", "e", "f", "g"]


def test_parts_split_lines_again_at_the_separators():
    assert order_parts("move 1: 25=3; move 2: 25=4\r;;\n x ") == ["move 1: 25=3", "move 2: 25=4", "x"]
    assert order_parts("a, b; c", ",;") == ["a", "b", "c"]
    assert order_parts("") == []


@pytest.mark.parametrize(("kind", "phase_kind"), [("three-races", PhaseKind.TURN), ("dragon-stripes", PhaseKind.OFFER)])
def test_a_lone_carriage_return_reads_like_a_new_line(kind: str, phase_kind: PhaseKind):
    """Dragon Stripes and the three-race game split only at '\\n' and ';' before; an old Mac
    mail ('\\r' alone) or a Unicode line separator ran two orders into one line."""
    rules = registry.get_rules(kind)
    spot = spots(kind, phase_kind)[0]
    text = rules.example_orders(spot.state, spot.seat, random.Random(3))
    text = text + "\npass" if kind == "dragon-stripes" else text
    unix = rules.parse_orders(spot.state, spot.seat, text)
    for newline in ("\r", "\u2028"):
        other = rules.parse_orders(spot.state, spot.seat, text.replace("\n", newline))
        assert (other.orders, other.canonical, other.errors) == (unix.orders, unix.canonical, unix.errors)


@pytest.mark.parametrize(
    ("number", "article"),
    [
        *[(8, "an"), (11, "an"), (18, "an"), (80, "an"), (83, "an"), (800, "an"), (11000, "an"), (18500, "an")],
        *[(1, "a"), (7, "a"), (12, "a"), (60, "a"), (110, "a"), (180, "a"), (-2, "a"), (0, "a"), (1100, "a")],
    ],
)
def test_a_or_an_follows_how_the_number_is_read(number: int, article: str) -> None:
    assert a_or_an(number) == article
