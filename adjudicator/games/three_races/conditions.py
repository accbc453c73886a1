"""Conditions for a later move of a deadline (seed rule 9, ruling P5): values, text, truth.

A condition is read against the public facts just before the move it guards:
squares, places and finished races after the previous move, and the cards
played in the previous move.  Canonical forms (``CMP`` is one of
``>= <= > < = !=``)::

    55 finished                      the 55 race has finished
    B square in 55 >= 30             B's runner in the 55 race is on square 30 or more
    B place in 55 <= 2               B is 1st or 2nd (equal squares share a place)
    B ahead of C in 85               B's runner is on a higher square than C's
    B played 12 in 85                B played 12 in the 85 race in the previous move
    anyone played >= 10 in 25        some other team did

Any of them may start with ``not``; ``and`` binds tighter than ``or``.
The reader, with its variants, is :mod:`adjudicator.games.three_races.orders_condition`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from functools import reduce

from adjudicator.words import Said, say


class Cmp(enum.Enum):
    """A comparison; the value is its canonical symbol."""

    GE = ">="
    LE = "<="
    GT = ">"
    LT = "<"
    EQ = "="
    NE = "!="

    def test(self, left: int, right: int) -> bool:
        return {
            Cmp.GE: left >= right,
            Cmp.LE: left <= right,
            Cmp.GT: left > right,
            Cmp.LT: left < right,
            Cmp.EQ: left == right,
            Cmp.NE: left != right,
        }[self]

    @property
    def words(self) -> Said:
        return {
            Cmp.GE: say("at least"),
            Cmp.LE: say("at most"),
            Cmp.GT: say("more than"),
            Cmp.LT: say("less than"),
            Cmp.EQ: say("exactly"),
            Cmp.NE: say("not"),
        }[self]


ANYONE = "*"
"""The seat of a ``played`` condition about any team other than the writer's."""


@dataclass(frozen=True)
class Finished:
    race: int


@dataclass(frozen=True)
class Square:
    seat: str
    race: int
    cmp: Cmp
    value: int


@dataclass(frozen=True)
class Place:
    seat: str
    race: int
    cmp: Cmp
    value: int


@dataclass(frozen=True)
class Ahead:
    seat: str
    other: str
    race: int


@dataclass(frozen=True)
class Played:
    seat: str
    race: int
    cmp: Cmp
    value: int


Atom = Finished | Square | Place | Ahead | Played


@dataclass(frozen=True)
class Literal:
    atom: Atom
    negated: bool = False


@dataclass(frozen=True)
class Condition:
    """``or`` of clauses, each an ``and`` of literals."""

    clauses: tuple[tuple[Literal, ...], ...]


@dataclass(frozen=True)
class Facts:
    """What a condition may look at, just before the move it guards."""

    me: str
    squares: Mapping[int, Mapping[str, int]]
    places: Mapping[int, Mapping[str, int]]
    finished: frozenset[int]
    played: Mapping[int, Mapping[str, int]]


# --- writing and explaining -------------------------------------------------


def _who(seat: str) -> str:
    return "anyone" if seat == ANYONE else seat


def format_atom(atom: Atom) -> str:
    if isinstance(atom, Finished):
        return f"{atom.race} finished"
    if isinstance(atom, Square):
        return f"{atom.seat} square in {atom.race} {atom.cmp.value} {atom.value}"
    if isinstance(atom, Place):
        return f"{atom.seat} place in {atom.race} {atom.cmp.value} {atom.value}"
    if isinstance(atom, Ahead):
        return f"{atom.seat} ahead of {atom.other} in {atom.race}"
    cmp = "" if atom.cmp is Cmp.EQ else f"{atom.cmp.value} "
    return f"{_who(atom.seat)} played {cmp}{atom.value} in {atom.race}"


def format_condition(condition: Condition) -> str:
    return " or ".join(
        " and ".join(("not " if lit.negated else "") + format_atom(lit.atom) for lit in clause)
        for clause in condition.clauses
    )


def _explain_atom(atom: Atom, negated: bool) -> Said:
    if isinstance(atom, Finished):
        if negated:
            return say("the {race} race has not finished", race=atom.race)
        return say("the {race} race has finished", race=atom.race)
    if isinstance(atom, Square):
        values = {"seat": atom.seat, "race": atom.race, "cmp": atom.cmp.words, "value": atom.value}
        if negated:
            return say("{seat}'s runner in the {race} race is not on a square {cmp} {value}", **values)
        return say("{seat}'s runner in the {race} race is on a square {cmp} {value}", **values)
    if isinstance(atom, Place):
        values = {"seat": atom.seat, "race": atom.race, "cmp": atom.cmp.words, "value": atom.value}
        if negated:
            return say("{seat}'s place in the {race} race is not {cmp} {value} (ties share)", **values)
        return say("{seat}'s place in the {race} race is {cmp} {value} (ties share)", **values)
    if isinstance(atom, Ahead):
        if negated:
            return say(
                "{seat} is not strictly ahead of {other} in the {race} race",
                seat=atom.seat,
                other=atom.other,
                race=atom.race,
            )
        return say(
            "{seat} is strictly ahead of {other} in the {race} race", seat=atom.seat, other=atom.other, race=atom.race
        )
    who: str = say("some team other than yours") if atom.seat == ANYONE else atom.seat
    card: str = (
        str(atom.value) if atom.cmp is Cmp.EQ else say("a card {cmp} {value}", cmp=atom.cmp.words, value=atom.value)
    )
    if negated:
        return say(
            "{who} did not play {card} in the {race} race in the previous move", who=who, card=card, race=atom.race
        )
    return say("{who} played {card} in the {race} race in the previous move", who=who, card=card, race=atom.race)


def explain(condition: Condition) -> Said:
    """The condition in plain words, for the echo in ``ParsedOrders.notes``."""
    clauses = [
        reduce(
            lambda left, right: say("{left} and {right}", left=left, right=right),
            (_explain_atom(lit.atom, lit.negated) for lit in clause),
        )
        for clause in condition.clauses
    ]
    return reduce(lambda left, right: say("{left} OR {right}", left=left, right=right), clauses)


# --- checking ---------------------------------------------------------------


def _holds(atom: Atom, facts: Facts) -> bool:
    if isinstance(atom, Finished):
        return atom.race in facts.finished
    if isinstance(atom, Square):
        return atom.cmp.test(facts.squares[atom.race][atom.seat], atom.value)
    if isinstance(atom, Place):
        return atom.cmp.test(facts.places[atom.race][atom.seat], atom.value)
    if isinstance(atom, Ahead):
        squares = facts.squares[atom.race]
        return squares[atom.seat] > squares[atom.other]
    played = facts.played.get(atom.race, {})
    seats = [s for s in played if s != facts.me] if atom.seat == ANYONE else [atom.seat]
    return any(seat in played and atom.cmp.test(played[seat], atom.value) for seat in seats)


def holds(condition: Condition, facts: Facts) -> bool:
    """True when some clause has every literal true."""
    return any(all(_holds(lit.atom, facts) != lit.negated for lit in clause) for clause in condition.clauses)
