"""Checks every engine makes on what it is handed: the seats of a new game, a player's text, the
orders to resolve.

Each game keeps its own wording (its name, "runners", "teams" or "players");
the rule is the same everywhere: the seat count the game declares
(``GameRules.min_seats`` .. ``max_seats``), every seat named once, and
``resolve`` given an order of the right type for every owing seat (anything
else is a caller bug or a bad record, :class:`~adjudicator.api.IllegalOrders`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from adjudicator.api import IllegalOrders, OrderError, ParsedOrders, SetupError
from adjudicator.words import say

T = TypeVar("T")


def check_seats(seats: Sequence[str], low: int, high: int, *, game: str, noun: str, twice: str) -> None:
    """Raise :class:`SetupError` unless ``low`` to ``high`` seats are given, each named once.

    The count message reads "<game> needs <low> to <high> <noun>, not <n>" (or
    "needs exactly <n> <noun>" when ``low == high``), said (:func:`adjudicator.words.say`: ``noun`` said too,
    for a reader's language); ``twice`` is the message for a seat named twice.
    """
    if not low <= len(seats) <= high:
        if low == high:
            raise SetupError(say("{game} needs exactly {low} {noun}, not {count}", game=game, low=low, noun=noun,
                                 count=len(seats)))  # fmt: skip
        raise SetupError(say("{game} needs {low} to {high} {noun}, not {count}", game=game, low=low, high=high,
                             noun=noun, count=len(seats)))  # fmt: skip
    if len(set(seats)) != len(seats):
        raise SetupError(twice)


MAX_DIGITS = 100
"""No order needs a number this long; Python's ``int()`` refuses more than 4300 digits."""
_LONG_NUMBER = re.compile(rf"(?<!\d)\d{{{MAX_DIGITS + 1},}}")
MAX_LINE_CHARS = 500
"""The longest line of orders a game reads, in characters (an order line is a few dozen; a whole turn's
orders on one line a few hundred at most).  A longer line is refused before any parser sees it: every parser
reads in time linear in its line, but a line is read word by word in Python, so its length bounds the time
(``tests/adjudicator/test_linear_orders.py`` times every game's parser on lines of this length)."""


def refuse_oversized(text: str) -> ParsedOrders[Any] | None:
    """An error for text holding a line of more than :data:`MAX_LINE_CHARS` characters, or a number of more
    than :data:`MAX_DIGITS` digits, else None.

    Every ``parse_orders`` asks this first: the games' parsers turn digit runs
    into ``int``, which raises ``ValueError`` past 4300 digits (found by the
    parser fuzz), and no order is meant by such a number; nor is any order a
    line that long.
    """
    for line in text.splitlines():
        shown = line.strip() if len(line.strip()) <= 60 else line.strip()[:57] + "..."
        if len(line) > MAX_LINE_CHARS:
            return ParsedOrders(
                None, "", (OrderError(shown, f"line too long, {len(line)} characters; at most {MAX_LINE_CHARS}"),)
            )
        if match := _LONG_NUMBER.search(line):
            return ParsedOrders(None, "", (OrderError(shown, f"a number of {len(match.group())} digits is no order"),))
    return None


def expect_orders(seat: str, orders: Mapping[str, Any], kind: type[T], what: str | None = None) -> T:
    """``orders[seat]`` if it is a ``kind``; else :class:`IllegalOrders` "expected <what>, got ...".

    ``what`` defaults to "a <kind name>".
    """
    order = orders.get(seat)
    if not isinstance(order, kind):
        raise IllegalOrders(seat, f"expected {what or 'a ' + kind.__name__}, got {order!r}")
    return order
