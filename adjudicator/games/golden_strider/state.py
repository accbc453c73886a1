"""Golden Strider state: runners, their public hands, and the round counter.

Hands are public (the rule-15 report prints them); only each round's order is
secret (docs/rules/golden-strider.md 1.1).  Turn 0 of the record is the setup; round r is turn r.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adjudicator.games.golden_strider.options import Options

CARD_LIFETIME = 7
"""Seed rule 8: a card received at turn t must be played by turn t + 7."""

HAND_SIZE = 5
TOTAL_INITIAL = 30
MAX_CARD = 10
STATE_VERSION = 1


@dataclass(frozen=True, order=True)
class Card:
    """A card: its value and the turn it was received (0 for initial cards)."""

    turn: int
    value: int

    @property
    def deadline(self) -> int:
        """The last round this card may be played in (seed rule 8)."""
        return self.turn + CARD_LIFETIME

    @property
    def label(self) -> str:
        return f"{self.value}/{self.turn}"


@dataclass(frozen=True)
class Runner:
    """One runner: square, restitution owed this round, and hand (oldest first)."""

    seat: str
    square: int = 0
    owed: int = 0
    hand: tuple[Card, ...] = ()


@dataclass(frozen=True)
class RoundLine:
    """One runner's line of the last round's report (seed rule 15)."""

    seat: str
    cards: tuple[Card, ...]
    played: Card | None
    deducted: int
    moved: int
    banked: int
    replacement: int
    square: int
    position: int
    owed_next: int
    carried: int
    tripped: bool = False


@dataclass(frozen=True)
class State:
    """The whole race.  ``turn`` counts resolved phases (0 before the setup)."""

    options: Options
    runners: tuple[Runner, ...]
    turn: int = 0
    finished: bool = False
    positions_before_last: Mapping[str, int] = field(default_factory=dict)

    @property
    def round(self) -> int:
        """The round the next resolution plays (1 after the setup)."""
        return self.turn

    def runner(self, seat: str) -> Runner:
        for runner in self.runners:
            if runner.seat == seat:
                return runner
        raise KeyError(seat)


def sort_hand(cards: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    """Oldest first; initial cards (same turn) by value, lowest first."""
    return tuple(sorted(cards))


def dump(state: State) -> dict[str, Any]:
    return {
        "version": STATE_VERSION,
        "options": state.options.as_dict(),
        "turn": state.turn,
        "finished": state.finished,
        "positions_before_last": dict(state.positions_before_last),
        "runners": [
            {"seat": r.seat, "square": r.square, "owed": r.owed, "hand": [[c.value, c.turn] for c in r.hand]}
            for r in state.runners
        ],
    }


def load(data: Mapping[str, Any]) -> State:
    if data.get("version") != STATE_VERSION:
        raise ValueError(f"unsupported golden-strider state version {data.get('version')!r}")
    runners = tuple(
        Runner(r["seat"], r["square"], r["owed"], tuple(Card(turn, value) for value, turn in r["hand"]))
        for r in data["runners"]
    )
    return State(
        options=Options(**data["options"]),
        runners=runners,
        turn=data["turn"],
        finished=data["finished"],
        positions_before_last=dict(data["positions_before_last"]),
    )
