"""The Dragon Stripes deck: 38 footprint, 10 stop and 3 danger cards (seed).

Cards are written ``F1``-``F4`` (a footprint of that many stripes), ``S`` (stop)
and ``D`` (danger).  The deck is shuffled once and never reshuffled (docs/rules/dragon-stripes.md
4.1, after Kali); it cannot run out, because the third danger card ends the
game at the latest as the last card.
"""

from __future__ import annotations

import enum
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from adjudicator.words import say

FOOTPRINT_CARDS = 38
STOP_CARDS = 10
DANGER_CARDS = 3
DECK_SIZE = FOOTPRINT_CARDS + STOP_CARDS + DANGER_CARDS


class CardKind(enum.Enum):
    FOOTPRINT = "F"
    STOP = "S"
    DANGER = "D"


@dataclass(frozen=True)
class Card:
    """One card; ``steps`` is the footprint's number of stripes (0 for stop and danger)."""

    kind: CardKind
    steps: int = 0

    @property
    def label(self) -> str:
        return f"F{self.steps}" if self.kind is CardKind.FOOTPRINT else self.kind.value


STOP = Card(CardKind.STOP)
DANGER = Card(CardKind.DANGER)

_LABEL = re.compile(r"^(?:F(\d{1,2})|S|D)$")


def footprint(steps: int) -> Card:
    return Card(CardKind.FOOTPRINT, steps)


def parse_card(label: str) -> Card | None:
    """``F3`` -> footprint 3, ``S`` -> stop, ``D`` -> danger; None when not a card label."""
    text = label.strip().upper()
    match = _LABEL.match(text)
    if match is None:
        return None
    if match.group(1) is not None:
        steps = int(match.group(1))
        return footprint(steps) if steps > 0 else None
    return STOP if text == "S" else DANGER


def composition(footprint_counts: Sequence[int]) -> tuple[Card, ...]:
    """Every card of the deck, unshuffled: ``footprint_counts[i]`` cards F(i+1) (ruling D1),
    then the 10 stop and 3 danger cards (seed)."""
    cards = [footprint(i + 1) for i, count in enumerate(footprint_counts) for _ in range(count)]
    return (*cards, *([STOP] * STOP_CARDS), *([DANGER] * DANGER_CARDS))


def parse_deck(text: str, footprint_counts: Sequence[int]) -> tuple[Card, ...]:
    """The ``deck`` option: labels, top card first, separated by spaces or commas.

    It may name fewer cards than the whole deck (the rest is shuffled beneath
    them); raise ValueError for an unknown label or more cards of a kind than
    the deck holds.
    """
    cards: list[Card] = []
    for word in re.split(r"[\s,;]+", text.strip()):
        if not word:
            continue
        card = parse_card(word)
        if card is None:
            raise ValueError(
                say(
                    "{option}: {word} is not a card; write F1-F{highest}, S or D",
                    option="deck",
                    word=repr(word),
                    highest=len(footprint_counts),
                )
            )
        cards.append(card)
    available = Counter(composition(footprint_counts))
    for card, count in Counter(cards).items():
        if count > available[card]:
            raise ValueError(
                say(
                    "{option}: {count} cards {card} named, but the deck holds {held}",
                    option="deck",
                    count=count,
                    card=card.label,
                    held=available[card],
                )
            )
    return tuple(cards)


def build_deck(stacked: Sequence[Card], footprint_counts: Sequence[int], rng: random.Random) -> tuple[Card, ...]:
    """The game's deck, top first: ``stacked`` on top, the rest of the deck shuffled with ``rng`` beneath."""
    beneath = list(composition(footprint_counts))
    for card in stacked:
        beneath.remove(card)
    rng.shuffle(beneath)
    return (*stacked, *beneath)
