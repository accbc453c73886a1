"""States to fuzz the parsers in: every phase kind of every game, reached by playing real games.

Games are played by each game's own computer player (``example_orders``), with
a little steering so that the rarer steps come up too: Strike Gold players
sometimes send ``draw deck`` alone (its follow-up decision phase), and Dragon
Stripes players take over often under ``holder_chooses`` (the holder's choice
between takers).  Everything is seeded, so the pools are the same every run.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from adjudicator import registry
from adjudicator.api import JSON, PhaseKind
from adjudicator.record import start_game
from adjudicator.rng import rng_for
from adjudicator.turn import advance

NAMES = ("Ann", "Bob", "Cy Young", "dee", "Eve", "Flo", "Gus", "Hal", "Ivy", "Jo")
"""Seat names, one with a space and one in lower case, as players choose them."""

PHASE_KINDS: dict[str, tuple[PhaseKind, ...]] = {
    "dragon-stripes": (PhaseKind.DECISION, PhaseKind.OFFER),
    "golden-strider": (PhaseKind.SETUP, PhaseKind.TURN),
    "lautobus": (PhaseKind.TURN,),
    "strike-gold": (PhaseKind.SETUP, PhaseKind.DECISION),
    "three-races": (PhaseKind.SETUP, PhaseKind.TURN),
}
"""Every phase kind each game has (checked against the games played); a game not here: :func:`phase_kinds`."""

GAMES: dict[str, tuple[tuple[int, Mapping[str, JSON]], ...]] = {
    "dragon-stripes": ((3, {}), (5, {"takeover_selection": "holder_chooses"}), (6, {"bounty_rule": "half_floor"})),
    "golden-strider": ((6, {}), (10, {"steeplechase": True})),
    "lautobus": ((5, {}),),
    "strike-gold": ((2, {}), (4, {"row_wipe": True}), (8, {})),
    "three-races": ((4, {}), (4, {"moves_per_deadline": 3})),
}
"""Seat counts and options of the games played for each kind; a game not here: :func:`games`."""


def games(kind: str) -> tuple[tuple[int, Mapping[str, JSON]], ...]:
    """The games played for ``kind``: :data:`GAMES`' or, for a game not listed, its fewest and most seats with
    its default options (a new game is fuzzed without an edit here)."""
    rules = registry.get_rules(kind)
    return GAMES.get(kind) or tuple((seats, {}) for seats in sorted({rules.min_seats, rules.max_seats}))


def phase_kinds(kind: str) -> tuple[PhaseKind, ...]:
    """The phase kinds ``kind`` has: :data:`PHASE_KINDS`' or, for a game not listed, those of its games played."""
    if kind in PHASE_KINDS:
        return PHASE_KINDS[kind]
    seen = {_phase_kind(kind, spot) for i, (seats, options) in enumerate(games(kind))
            for spot in _play(kind, seats, options, f"fuzz-{kind}-{i}")}  # fmt: skip
    return tuple(sorted(seen, key=list(PhaseKind).index))


def _phase_kind(kind: str, spot: Spot) -> PhaseKind:
    phase = registry.get_rules(kind).phase(spot.state)
    assert phase is not None
    return phase.kind


PER_KIND = 40
"""At most this many states are kept per (game, phase kind), spread over the games."""


@dataclass(frozen=True)
class Spot:
    """A state to parse in, the seat to parse for, and the step it is at (for coverage)."""

    state: Any
    seat: str
    step: str


def _steer(kind: str, state: Any, seat: str, text: str, rng: random.Random) -> str:
    if kind == "strike-gold" and text.lower().startswith("draw deck") and rng.random() < 0.3:
        return "draw deck"
    if kind == "dragon-stripes" and str(getattr(state.step, "value", "")) == "offer" and rng.random() < 0.5:
        return "take over"
    return text


def _step(kind: str, state: Any) -> str:
    step = getattr(state, "step", None) or getattr(state, "stage", None)
    return f"{kind}:{step.value}" if step is not None else kind


def _play(kind: str, seats: int, options: Mapping[str, JSON], seed: str) -> list[Spot]:
    rules = registry.get_rules(kind)
    names = list(NAMES[:seats])
    state = start_game(rules, names, options, seed)
    rng = random.Random(seed)
    spots: list[Spot] = []
    number = 0
    while (phase := rules.phase(state)) is not None and number < 400:
        spots.extend(Spot(state, seat, f"{phase.kind.value} {_step(kind, state)}") for seat in phase.owing)
        orders = {}
        for seat in phase.owing:
            if rng.random() < 0.1:
                continue  # no orders: the game's own default
            text = _steer(kind, state, seat, rules.example_orders(state, seat, rng), rng)
            parsed = rules.parse_orders(state, seat, text)
            if parsed.orders is not None:
                orders[seat] = parsed.orders
        state = advance(rules, state, orders, rng_for(seed, phase.number)).state
        number += 1
    return spots


@cache
def spots(kind: str, phase_kind: PhaseKind) -> tuple[Spot, ...]:
    """Up to :data:`PER_KIND` spots of ``kind`` in phases of ``phase_kind``, every step kept."""
    rules = registry.get_rules(kind)
    found: list[Spot] = []
    for i, (seats, options) in enumerate(games(kind)):
        for spot in _play(kind, seats, options, f"fuzz-{kind}-{i}"):
            phase = rules.phase(spot.state)
            if phase is not None and phase.kind is phase_kind:
                found.append(spot)
    by_step: dict[str, list[Spot]] = {}
    for spot in found:
        by_step.setdefault(spot.step, []).append(spot)
    share = max(1, PER_KIND // max(1, len(by_step)))
    kept = [spot for group in by_step.values() for spot in group[:: max(1, len(group) // share)][:share]]
    return tuple(kept)
