"""Boards to draw, made by playing real games with the engines (seeded, so always the same).

Each game is played by its own computer player (``example_orders``) through the
generic turn driver (:func:`adjudicator.turn.advance`), with the per-turn seeded
generators of :mod:`adjudicator.rng`, from its start to its end.  A board is the
rules' ``public_state`` (what a report carries as ``board``) at the start, in the
middle and at the end, with the fewest and with the most seats.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from adjudicator import registry
from adjudicator.record import start_game
from adjudicator.rng import rng_for
from adjudicator.turn import advance

MOMENTS = ("start", "mid", "end")

MAX_TURNS = 2000
"""A safeguard: every game ends well before (a game that does not is a failure)."""

NAMES = ("Alice", "Bob", "Chidi", "Dana", "Eun-ji", "Farid", "Greta", "Hiro", "Ines", "Jonas")
"""Seat names of the sample games (plain; hostile names have their own tests)."""


@dataclass(frozen=True)
class Played:
    """One game played through: its rules, every state from the start to the end."""

    kind: str
    seats: tuple[str, ...]
    states: tuple[Any, ...]

    def state(self, moment: str) -> Any:
        """The state at ``moment``: "start", "mid" (half way) or "end"."""
        index = {"start": 0, "mid": len(self.states) // 2, "end": len(self.states) - 1}[moment]
        return self.states[index]

    def board(self, moment: str) -> dict[str, Any]:
        """The public view a report carries at ``moment``."""
        return dict(registry.get_rules(self.kind).public_state(self.state(moment)))


def seat_counts(kind: str) -> tuple[int, ...]:
    """The fewest and the most seats ``kind`` allows (one count when they are the same)."""
    rules = registry.get_rules(kind)
    return tuple(dict.fromkeys((rules.min_seats, rules.max_seats)))


def play(kind: str, seats: tuple[str, ...], options: dict[str, Any] | None = None, seed: str = "pictures") -> Played:
    """Play a whole ``kind`` game with ``seats``, every seat ordered by the computer player."""
    rules = registry.get_rules(kind)
    state = start_game(rules, seats, options or {}, seed)
    states = [state]
    for turn in range(1, MAX_TURNS):
        phase = rules.phase(state)
        if phase is None:
            return Played(kind, seats, tuple(states))
        chooser = random.Random(f"{seed}:{turn}")
        orders = {}
        for seat in phase.owing:
            parsed = rules.parse_orders(state, seat, rules.example_orders(state, seat, chooser))
            if parsed.orders is not None:
                orders[seat] = parsed.orders
        state = advance(rules, state, orders, rng_for(seed, turn)).state
        states.append(state)
    raise AssertionError(f"{kind} did not end in {MAX_TURNS} turns")
