"""The words of a three-race order line: its move label and its cards.

A label names a move as ``move 3``, ``m3``, ``3:`` or ``first move``; the
reader (:mod:`adjudicator.games.three_races.orders_deadline`) decides which move
of the deadline it is.  Cards are ``25=10 55=6 85=12`` and variants.
"""

from __future__ import annotations

import re

from adjudicator.games.three_races.orders import Cards
from adjudicator.games.three_races.state import CARDS, RACES
from adjudicator.words import say

MOVE_SYNTAX = say("{form}, e.g. {example}", form="move N: 25=C 55=C 85=C", example="move 1: 25=10 55=6 85=12")

_BARE = r"(?:(?!(?:25|55|85)\b)|(?=\d++\s*+[:.)]\s*+(?:race|r)?+\s*+(?:25|55|85)\b))(\d{1,3})(?=\s*+[:.)])"
"""A bare move number (``3:``); 25, 55 or 85 only when a race follows (``25: 25=4``),
since ``25:10`` is a race and its card."""
LABEL = re.compile(
    r"^(?:(?:move|mv|m|turn)\s*#?\s*(\d+)|(first|second|third|fourth|1st|2nd|3rd|4th)\s+move|" + _BARE + ")"
    r"\s*[:.)\-]?\s*",
    re.IGNORECASE,
)
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
ORDINAL_WORD = {1: say("first"), 2: say("second"), 3: say("third"), 4: say("fourth")}
"""The ordinal of a move of the deadline, in the reply's notes."""
_CARD_FILLER = {"r", "race", "play", "plays", "card", "cards", "and", "in", "the", "on", "for", "with", "sq"}


def label_number(label: re.Match[str]) -> int:
    """The number a label writes (an ordinal word as its number)."""
    if label.group(1):
        return int(label.group(1))
    if label.group(2):
        return _ORDINAL[label.group(2).lower()]
    return int(label.group(3))


def parse_cards(text: str) -> Cards | str:
    """``25=10 55=6 85=12`` and its variants, or the reason it cannot be read."""
    words = re.sub(r"\d+|[\s,=:\-]+", " ", text.lower()).split()
    strange = [w for w in words if w not in _CARD_FILLER]
    if strange:
        return say("did not understand '{word}'; expected {syntax}", word=strange[0], syntax=MOVE_SYNTAX)
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    if not numbers or len(numbers) % 2:
        return say("expected race=card pairs; {syntax}", syntax=MOVE_SYNTAX)
    pairs = list(zip(numbers[0::2], numbers[1::2], strict=True))
    for race, card in pairs:
        if race not in RACES:
            return say("{race} is not a race (25, 55 or 85); {syntax}", race=race, syntax=MOVE_SYNTAX)
        if card not in CARDS:
            return say("card {card} is not one of 1-12", card=card)
    races = [race for race, _ in pairs]
    if len(set(races)) != len(races):
        return say("a race is given two cards in one move")
    return tuple(sorted(pairs))
