"""Shared builders for the three-race tests: splits from partial hands, and whole deadlines.

``hands`` name only the cards a test cares about, as ``{seat: {race: [cards]}}``;
each race is filled up to four cards with the team's lowest cards left over.  A
move is ``{seat: {race: card}}``; races a move does not name get the lowest card
left (ruling P6), which the parser notes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from adjudicator.api import Resolution
from adjudicator.games.three_races import ThreeRaces
from adjudicator.games.three_races.state import CARDS, RACES, State
from adjudicator.options import resolve_options
from adjudicator.turn import advance

RULES = ThreeRaces()
SEATS = ("A", "B", "C", "D")

Hands = Mapping[str, Mapping[int, Sequence[int]]]
Move = Mapping[str, Mapping[int, int]]


def start(seats: Sequence[str] = SEATS, **options: Any) -> State:
    return RULES.new_game(list(seats), resolve_options(RULES.options(), options), random.Random(0))


def split_text(partial: Mapping[int, Sequence[int]]) -> str:
    """A full split text from a partial one: each race topped up with the lowest cards left."""
    left = [c for c in CARDS if all(c not in cards for cards in partial.values())]
    hands = {}
    for race in RACES:
        cards = list(partial.get(race, ()))
        while len(cards) < 4:
            cards.append(left.pop(0))
        hands[race] = sorted(cards)
    return " / ".join(f"{race}: {' '.join(map(str, hands[race]))}" for race in RACES)


def submit(state: State, texts: Mapping[str, str]) -> Resolution[State]:
    """Parse every text (no errors allowed) and resolve the phase."""
    orders = {}
    for seat, text in texts.items():
        parsed = RULES.parse_orders(state, seat, text)
        assert not parsed.errors, (seat, text, parsed.errors)
        orders[seat] = parsed.orders
    return advance(RULES, state, orders, random.Random(1))


def setup(state: State, hands: Hands) -> State:
    return submit(state, {seat: split_text(hands.get(seat, {})) for seat in state.seats}).state


def move_text(moves: Sequence[Move], seat: str) -> str:
    lines = []
    for number, move in enumerate(moves, start=1):
        cards = move.get(seat, {})
        if cards:
            lines.append(f"move {number}: " + " ".join(f"{r}={c}" for r, c in sorted(cards.items())))
    return "\n".join(lines)


def play(state: State, moves: Sequence[Move]) -> Resolution[State]:
    """One deadline whose moves are ``moves`` (one per move of the deadline)."""
    return submit(state, {seat: move_text(moves, seat) for seat in state.seats if move_text(moves, seat)})


def game(hands: Hands, moves: Sequence[Move], **options: Any) -> tuple[State, list[Resolution[State]]]:
    """Setup with ``hands``, then ``moves`` played ``moves_per_deadline`` at a time."""
    state = setup(start(**options), hands)
    per = state.options.moves_per_deadline
    results = []
    for i in range(0, len(moves), per):
        result = play(state, moves[i : i + per])
        results.append(result)
        state = result.state
    return state, results


def squares(state: State, race: int) -> dict[str, int]:
    return dict(state.race(race).squares)


@pytest.fixture
def rules() -> ThreeRaces:
    return RULES


@pytest.fixture
def tr() -> SimpleNamespace:
    return SimpleNamespace(
        rules=RULES,
        start=start,
        split_text=split_text,
        submit=submit,
        setup=setup,
        play=play,
        game=game,
        squares=squares,
        move_text=move_text,
    )
