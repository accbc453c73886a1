"""Three-race orders: the values, the setup reader, and the canonical writers.

Setup (seed rule 2): ``25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8 12``.
A deadline (seed rules 3, 8, 9)::

    swap 25:10 55:11                      optional readjustment (rule 8)
    move 1: 25=10 55=6 85=12
    move 2 if B square in 55 >= 30: 25=4 55=11 85=3
    move 2: 25=4 55=9 85=3                the plain line: used when no case holds

The canonical text puts these on one line, separated by ``; ``.  The deadline
reader is :mod:`adjudicator.games.three_races.orders_deadline`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adjudicator.api import OrderError, ParsedOrders
from adjudicator.games.three_races.conditions import Condition, format_condition
from adjudicator.games.three_races.readjust import Readjust, format_readjust
from adjudicator.games.three_races.state import CARDS, HAND_SIZE, RACES
from adjudicator.text import order_lines
from adjudicator.words import say

Cards = tuple[tuple[int, int], ...]
"""``(race, card)`` pairs, by race."""

SETUP_SYNTAX = say("{form} (the cards 1-12, four to each race)", form="25: C C C C / 55: C C C C / 85: C C C C")

_SETUP_FILLER = {"r", "race", "races", "card", "cards", "square", "squares", "sq", "runner", "hand", "setup"}
_SETUP_FILLER |= {"split", "for", "the", "and", "in", "my", "to", "run", "gets"}


@dataclass(frozen=True)
class Split:
    """The secret setup: each race's four cards, sorted, in race order (seed rule 2)."""

    hands: tuple[tuple[int, ...], ...]

    def hand(self, race: int) -> tuple[int, ...]:
        return self.hands[RACES.index(race)]


DEFAULT_SPLIT = Split(((1, 4, 7, 10), (2, 5, 8, 11), (3, 6, 9, 12)))
"""A team that sends no setup gets this even split (the rules are silent)."""


@dataclass(frozen=True)
class Case:
    """A conditional alternative for a move (seed rule 9, ruling P5)."""

    condition: Condition
    cards: Cards


@dataclass(frozen=True)
class MoveOrders:
    """One move: the cases, tried in order, and the plain cards used when none holds.

    A case that names no card for a race takes the plain card; with no plain
    card either, the runner plays its lowest available card (ruling P6).
    """

    cases: tuple[Case, ...] = ()
    cards: Cards = ()


@dataclass(frozen=True)
class DeadlineOrders:
    """A deadline's orders: one :class:`MoveOrders` per move, and an optional readjustment."""

    moves: tuple[MoveOrders, ...]
    readjust: Readjust | None = None


def card_of(cards: Cards, race: int) -> int | None:
    return next((card for r, card in cards if r == race), None)


def format_cards(cards: Cards) -> str:
    return " ".join(f"{race}={card}" for race, card in cards)


def format_setup(split: Split) -> str:
    return " / ".join(f"{race}: {' '.join(str(c) for c in split.hand(race))}" for race in RACES)


def format_deadline(orders: DeadlineOrders, first: int = 1) -> str:
    """Canonical text, on one line: the readjustment, then for each move its cases and its
    plain line, separated by ``; ``.  ``first`` is the game's number of the deadline's
    first move: moves are numbered across the game, as the report numbers them."""
    lines = [format_readjust(orders.readjust)] if orders.readjust is not None else []
    for number, move in enumerate(orders.moves, start=first):
        lines.extend(f"move {number} if {format_condition(c.condition)}: {format_cards(c.cards)}" for c in move.cases)
        if move.cards:
            lines.append(f"move {number}: {format_cards(move.cards)}")
    return "; ".join(lines)


def parse_setup(text: str) -> ParsedOrders[Split]:
    """Read a split of the cards 1-12 into three hands of four (seed rule 2).

    Hands are labelled with their race; unlabelled, three groups separated by
    ``/``, ``;`` or new lines are read as 25, 55, 85.  When two races are given,
    the third gets the four cards left.
    """
    shown = " / ".join(order_lines(text))
    words = re.findall(r"\d+|[a-z]+|[/;\n]", text.lower())
    unknown = [w for w in words if w.isalpha() and w not in _SETUP_FILLER]
    if unknown:
        return _setup_error(
            shown, say("did not understand '{word}'; expected {syntax}", word=unknown[0], syntax=SETUP_SYNTAX)
        )
    notes: list[str] = []
    hands: dict[int, list[int]] = {}
    if any(w.isdecimal() and int(w) in RACES for w in words):
        current: int | None = None
        for word in words:
            if not word.isdecimal():
                continue
            number = int(word)
            if number in RACES:
                if number in hands:
                    return _setup_error(shown, say("the {race} race is given twice", race=number))
                current = number
                hands[number] = []
            elif current is None:
                return _setup_error(
                    shown, say("card {card} comes before any race; expected {syntax}", card=number, syntax=SETUP_SYNTAX)
                )
            else:
                hands[current].append(number)
    else:
        groups = [re.findall(r"\d+", g) for g in re.split(r"[/;\n]", text) if re.search(r"\d", g)]
        if len(groups) != len(RACES):
            return _setup_error(shown, say("expected three groups of four cards; {syntax}", syntax=SETUP_SYNTAX))
        hands = {race: [int(c) for c in group] for race, group in zip(RACES, groups, strict=True)}
        notes.append(say("unlabelled groups read as the 25, 55 and 85 races, in that order"))
    problem = _split_problem(hands)
    if problem:
        return _setup_error(shown, problem)
    missing = [race for race in RACES if race not in hands]
    if len(missing) == 1:
        hands[missing[0]] = [c for c in CARDS if all(c not in h for h in hands.values())]
        notes.append(say("the {race} runner gets the four cards left", race=missing[0]))
    elif missing:
        return _setup_error(shown, _no_cards(missing))
    split = Split(tuple(tuple(sorted(hands[race])) for race in RACES))
    notes.append(say("read as {split} (secret: only you and the referee see it)", split=format_setup(split)))
    return ParsedOrders(split, format_setup(split), (), tuple(notes))


def _no_cards(missing: list[int]) -> str:
    """The error for two races given no cards (the labelled reader always names at least one)."""
    if len(missing) == 2:
        return say(
            "no cards for the {race} and {other} races; {syntax}",
            race=missing[0],
            other=missing[1],
            syntax=SETUP_SYNTAX,
        )
    races = " and ".join(str(r) for r in missing)
    return say("no cards for the {races} races; {syntax}", races=races, syntax=SETUP_SYNTAX)


def _split_problem(hands: dict[int, list[int]]) -> str | None:
    for race, cards in hands.items():
        outside = [c for c in cards if c not in CARDS]
        if outside:
            return say("card {card} is not one of 1-12", card=outside[0])
        if len(cards) != HAND_SIZE:
            return say(
                "the {race} runner has {count} cards; each runner gets exactly four (seed rule 2)",
                race=race,
                count=len(cards),
            )
    given = [c for cards in hands.values() for c in cards]
    twice = sorted({c for c in given if given.count(c) > 1})
    if twice:
        return say("card {card} is given twice; each of 1-12 goes to exactly one runner (seed rule 2)", card=twice[0])
    return None


def _setup_error(shown: str, message: str) -> ParsedOrders[Split]:
    return ParsedOrders(None, "", (OrderError(shown, message),))
