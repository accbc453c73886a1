"""Shared builders for the L'autobus tests: hand-made road positions and one-turn play."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from adjudicator.api import Resolution
from adjudicator.games.lautobus import Lautobus
from adjudicator.games.lautobus.cards import card_from_json, sort_hand
from adjudicator.games.lautobus.options import Options
from adjudicator.games.lautobus.state import Cyclist, State

SEATS = ("A", "B", "C", "D", "E")
FULL = [1, 2, 3, 4, 5, 6, "zero", "sprint"]

Rider = tuple[str, int, int, Sequence[Any]]
"""(team, rider, space, cards) with cards as JSON (1, 2, "zero", "sprint")."""


def build_state(riders: Sequence[Rider], turn: int = 3, **options: Any) -> State:
    """A race with only ``riders`` on the road (the worked examples list only the cyclists that matter)."""
    cyclists = tuple(
        Cyclist(team, rider, space, sort_hand(card_from_json(c) for c in cards)) for team, rider, space, cards in riders
    )
    seats = tuple(sorted({team for team, *_ in riders}))
    return State(Options.from_mapping(options), seats, cyclists, turn=turn)


def play_turn(state: State, texts: Mapping[str, str]) -> Resolution[State]:
    """Parse each team's text (it must be read without errors) and resolve the turn."""
    rules = Lautobus()
    orders = {}
    for seat, text in texts.items():
        parsed = rules.parse_orders(state, seat, text)
        assert parsed.errors == (), parsed.errors
        orders[seat] = parsed.orders
    for seat in rules.phase(state).owing:  # type: ignore[union-attr]
        orders.setdefault(seat, rules.default_orders(state, seat))
    return rules.resolve(state, orders, random.Random(0))


def where(state: State) -> dict[tuple[str, int], int]:
    return {c.key: c.space for c in state.cyclists}


def hand(state: State, team: str, rider: int) -> list[Any]:
    return [card.to_json() for card in state.cyclist(team, rider).cards]


@pytest.fixture
def rules() -> Lautobus:
    return Lautobus()


@pytest.fixture
def la() -> SimpleNamespace:
    """The builders: ``la.state``, ``la.play``, ``la.where``, ``la.hand``, ``la.FULL``, ``la.SEATS``."""
    return SimpleNamespace(state=build_state, play=play_turn, where=where, hand=hand, FULL=FULL, SEATS=SEATS)
