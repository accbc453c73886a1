"""Building Golden Strider positions directly, for the rulings' worked examples."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.api import Resolution
from adjudicator.games.golden_strider import GoldenStrider
from adjudicator.games.golden_strider.options import Options
from adjudicator.games.golden_strider.state import Card, Runner, State
from adjudicator.options import resolve_options
from adjudicator.rng import rng_for
from adjudicator.turn import advance, parse_turn_orders

RULES = GoldenStrider()


def card(label: str) -> Card:
    value, turn = label.split("/")
    return Card(int(turn), int(value))


def runner(seat: str, square: int = 0, owed: int = 0, hand: str = "6/0 6/0 6/1 6/2 6/3") -> Runner:
    return Runner(seat, square, owed, tuple(sorted(card(label) for label in hand.split())))


def state(*runners: Runner, round_number: int = 1, **options: Any) -> State:
    resolved = Options.from_mapping(resolve_options(RULES.options(), options))
    return State(resolved, tuple(runners), turn=round_number)


def play(current: State, texts: Mapping[str, str]) -> Resolution[State]:
    """Resolve one phase from order texts (missing seats get no-moves-received)."""
    orders, errors = parse_turn_orders(RULES, current, texts)
    assert not errors, errors
    return advance(RULES, current, orders, rng_for("test", current.turn))


def line(resolution: Resolution[State], seat: str) -> dict[str, Any]:
    for entry in resolution.report["lines"]:
        if entry["seat"] == seat:
            return dict(entry)
    raise KeyError(seat)
