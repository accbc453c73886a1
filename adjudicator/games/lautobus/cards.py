"""L'autobus cards: movement cards and the two specials, ZERO and SPRINT (seed rule 10).

A hand is a sorted tuple: movement cards lowest first, then ZERO, then SPRINT.
Hands are public (docs/rules/lautobus.md 5.1): only each turn's choice is secret.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from adjudicator.api import JSON
from adjudicator.words import say


class CardKind(enum.Enum):
    """A movement card, or one of the specials of seed rule 10."""

    MOVE = "move"
    ZERO = "zero"
    SPRINT = "sprint"


@dataclass(frozen=True)
class Card:
    """One card; ``value`` is only meaningful for a movement card."""

    kind: CardKind
    value: int = 0

    @property
    def special(self) -> bool:
        return self.kind is not CardKind.MOVE

    @property
    def label(self) -> str:
        """Canonical text: the number, ``zero`` or ``sprint``."""
        return str(self.value) if self.kind is CardKind.MOVE else self.kind.value

    def to_json(self) -> JSON:
        """A movement card is its number; a special is "zero" or "sprint"."""
        return self.value if self.kind is CardKind.MOVE else self.kind.value


ZERO = Card(CardKind.ZERO)
SPRINT = Card(CardKind.SPRINT)


def move(value: int) -> Card:
    """A movement card of ``value``."""
    return Card(CardKind.MOVE, value)


def sort_key(card: Card) -> tuple[int, int]:
    order = {CardKind.MOVE: 0, CardKind.ZERO: 1, CardKind.SPRINT: 2}
    return order[card.kind], card.value


def sort_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=sort_key))


def starting_hand(movement_cards: Iterable[int]) -> tuple[Card, ...]:
    """Ruling L1 movement cards plus one ZERO and one SPRINT (seed rule 10)."""
    return sort_hand([*(move(v) for v in movement_cards), ZERO, SPRINT])


def card_from_json(value: JSON) -> Card:
    if isinstance(value, bool):
        raise ValueError(f"not a card: {value!r}")
    if isinstance(value, int):
        return move(value)
    if value == "zero":
        return ZERO
    if value == "sprint":
        return SPRINT
    raise ValueError(f"not a card: {value!r}")


def hand_text(cards: Iterable[Card]) -> str:
    """The hand as players read it: ``1 2 4 zero sprint`` (``none`` when empty)."""
    text = " ".join(card.label for card in cards)
    return text or say("none")


def without(hand: tuple[Card, ...], cards: Iterable[Card]) -> tuple[Card, ...]:
    """``hand`` with one copy of each of ``cards`` removed."""
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return tuple(rest)


def fallback_card(hand: tuple[Card, ...], first_turn: bool) -> Card:
    """Ruling L8: the lowest movement card; with only specials left, ZERO if held
    (except on the first turn, seed rule 10), otherwise SPRINT."""
    moves = [card for card in hand if card.kind is CardKind.MOVE]
    if moves:
        return min(moves, key=sort_key)
    if ZERO in hand and not first_turn:
        return ZERO
    if SPRINT in hand:
        return SPRINT
    raise ValueError("a cyclist with no cards plays no card")


def illegal_reason(hand: tuple[Card, ...], card: Card, first_turn: bool) -> str | None:
    """Why ``card`` may not be played from ``hand`` now (ruling L8), or None."""
    if card not in hand:
        if card.special:
            return say("its {card} has been used already", card=card.label.upper())
        return say("it holds no {card}", card=card.label)
    if card.special and first_turn:
        return say("no special card may be played on the first turn (seed rule 10)")
    return None
