"""Three-race game state: the teams' secret cards and the three public races.

Secret (docs/rules/three-races.md 2.1): each team's split of the cards 1-12 among its three
runners, and which of a runner's cards are spent in the current cycle.
Public: squares, which races have finished, points, and the cards played this
cycle.  Turn 0 of the record is the setup; deadline t (turn t) plays moves
``(t - 1) * N + 1`` to ``t * N`` where N is ``moves_per_deadline``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from adjudicator.games.three_races.options import Options

RACES: tuple[int, ...] = (25, 55, 85)
"""The races, named by their finishing squares (seed preamble)."""

MOVERS: Mapping[int, int] = {25: 1, 55: 2, 85: 3}
"""How many runners can move in each move of each race (seed rules 4-6)."""

CARDS: tuple[int, ...] = tuple(range(1, 13))
HAND_SIZE = 4
CYCLE = 4
"""Seed rule 3: a runner's four cards are each played once in four moves, then come back."""

READJUSTMENTS = 2
"""Seed rule 8: a team may readjust its cards on two occasions."""

STATE_VERSION = 1


@dataclass(frozen=True)
class Team:
    """One team's secret cards: its hand in each race and the cards spent this cycle."""

    seat: str
    hands: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    spent: Mapping[int, frozenset[int]] = field(default_factory=dict)
    readjustments: int = 0

    def available(self, race: int) -> tuple[int, ...]:
        """The runner's cards not yet played in this cycle, lowest first."""
        spent = self.spent.get(race, frozenset())
        return tuple(card for card in self.hands.get(race, ()) if card not in spent)


@dataclass(frozen=True)
class Race:
    """One race: public squares, the cards played this cycle, and the result once finished.

    ``finished_at`` is the move in which it ended (ruling P8: a square >= the
    finish); ``stopped`` says the ``max_moves`` safeguard ended it.
    """

    length: int
    squares: Mapping[str, int]
    played: Mapping[str, tuple[int, ...]]
    finished_at: int | None = None
    stopped: bool = False
    places: Mapping[str, int] = field(default_factory=dict)
    points: Mapping[str, Fraction] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    @property
    def movers(self) -> int:
        return MOVERS[self.length]


@dataclass(frozen=True)
class State:
    """The whole game.  ``turn`` counts resolved phases; ``moves`` counts moves played."""

    options: Options
    seats: tuple[str, ...]
    teams: tuple[Team, ...]
    races: tuple[Race, ...]
    turn: int = 0
    moves: int = 0

    @property
    def finished(self) -> bool:
        return all(race.finished for race in self.races)

    def team(self, seat: str) -> Team:
        for team in self.teams:
            if team.seat == seat:
                return team
        raise KeyError(seat)

    def race(self, length: int) -> Race:
        return self.races[RACES.index(length)]

    def running(self) -> tuple[int, ...]:
        """The races not yet finished."""
        return tuple(race.length for race in self.races if not race.finished)

    def total(self, seat: str) -> Fraction:
        """A team's points from the finished races (seed rule 1)."""
        return sum((race.points.get(seat, Fraction(0)) for race in self.races), Fraction(0))


def new_state(options: Options, seats: tuple[str, ...]) -> State:
    teams = tuple(Team(seat) for seat in seats)
    races = tuple(Race(length, {s: 0 for s in seats}, {s: () for s in seats}) for length in RACES)
    return State(options, seats, teams, races)


def dump(state: State) -> dict[str, Any]:
    return {
        "version": STATE_VERSION,
        "options": state.options.as_dict(),
        "seats": list(state.seats),
        "turn": state.turn,
        "moves": state.moves,
        "teams": [
            {
                "seat": t.seat,
                "hands": {str(r): list(cards) for r, cards in t.hands.items()},
                "spent": {str(r): sorted(cards) for r, cards in t.spent.items()},
                "readjustments": t.readjustments,
            }
            for t in state.teams
        ],
        "races": [
            {
                "length": r.length,
                "squares": dict(r.squares),
                "played": {s: list(c) for s, c in r.played.items()},
                "finished_at": r.finished_at,
                "stopped": r.stopped,
                "places": dict(r.places),
                "points": {s: str(p) for s, p in r.points.items()},
            }
            for r in state.races
        ],
    }


def load(data: Mapping[str, Any]) -> State:
    if data.get("version") != STATE_VERSION:
        raise ValueError(f"unsupported three-races state version {data.get('version')!r}")
    teams = tuple(
        Team(
            t["seat"],
            {int(r): tuple(c) for r, c in t["hands"].items()},
            {int(r): frozenset(c) for r, c in t["spent"].items()},
            t["readjustments"],
        )
        for t in data["teams"]
    )
    races = tuple(
        Race(
            r["length"],
            dict(r["squares"]),
            {s: tuple(c) for s, c in r["played"].items()},
            r["finished_at"],
            r["stopped"],
            dict(r["places"]),
            {s: Fraction(p) for s, p in r["points"].items()},
        )
        for r in data["races"]
    )
    return State(Options(**data["options"]), tuple(data["seats"]), teams, races, data["turn"], data["moves"])
