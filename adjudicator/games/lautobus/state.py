"""L'autobus state: 25 cyclists on an endless road of numbered spaces.

A team is a seat.  ``turn`` counts resolved turns, so it is also the number
of the turn to play next, as the referee numbers turns everywhere: the first
is turn 0 (there is no setup phase: the start is fixed by rulings L2/L3), and
the seed's "turn one" is that first turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adjudicator.games.lautobus.cards import Card, card_from_json
from adjudicator.games.lautobus.options import Options

STATE_VERSION = 1


@dataclass(frozen=True)
class Cyclist:
    """One cyclist: its team (seat), rider number 1-5 within the team, space and hand."""

    team: str
    rider: int
    space: int
    cards: tuple[Card, ...]

    @property
    def key(self) -> tuple[str, int]:
        return self.team, self.rider

    @property
    def has_cards(self) -> bool:
        return bool(self.cards)


@dataclass(frozen=True)
class State:
    """The whole race; ``cyclists`` are in team (seat) order, then rider order."""

    options: Options
    seats: tuple[str, ...]
    cyclists: tuple[Cyclist, ...]
    turn: int = 0
    finished: bool = False

    @property
    def first_turn(self) -> bool:
        """The next turn to resolve is the first (turn 0: no specials, seed rule 10)."""
        return self.turn == 0

    def team(self, seat: str) -> tuple[Cyclist, ...]:
        return tuple(c for c in self.cyclists if c.team == seat)

    def cyclist(self, seat: str, rider: int) -> Cyclist:
        for cyclist in self.cyclists:
            if cyclist.key == (seat, rider):
                return cyclist
        raise KeyError((seat, rider))

    def race_order(self) -> tuple[Cyclist, ...]:
        """Leader first (seed rule 7); spaces are never shared."""
        return tuple(sorted(self.cyclists, key=lambda c: -c.space))


def dump(state: State) -> dict[str, Any]:
    return {
        "version": STATE_VERSION,
        "options": state.options.as_dict(),
        "seats": list(state.seats),
        "turn": state.turn,
        "finished": state.finished,
        "cyclists": [
            {"team": c.team, "rider": c.rider, "space": c.space, "cards": [card.to_json() for card in c.cards]}
            for c in state.cyclists
        ],
    }


def load(data: Mapping[str, Any]) -> State:
    if data.get("version") != STATE_VERSION:
        raise ValueError(f"unsupported lautobus state version {data.get('version')!r}")
    options = dict(data["options"])
    return State(
        options=Options.from_mapping(options),
        seats=tuple(data["seats"]),
        cyclists=tuple(
            Cyclist(c["team"], c["rider"], c["space"], tuple(card_from_json(v) for v in c["cards"]))
            for c in data["cyclists"]
        ),
        turn=data["turn"],
        finished=data["finished"],
    )
