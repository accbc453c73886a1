"""Shared builders for the Strike Gold tests: hand-made grids and piles, and one-move play.

A grid is written as three rows in the rulings' notation: ``7`` face up, ``?3`` face down
(value 3, known to the referee only), ``x`` cleared.  Every built state holds all 150 cards:
what the grids, discard pile and the top of the deck do not name fills the rest of the deck.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from adjudicator.api import Resolution
from adjudicator.games.strike_gold import StrikeGold
from adjudicator.games.strike_gold.cards import full_deck
from adjudicator.games.strike_gold.grid import Cell, Grid
from adjudicator.games.strike_gold.options import Options
from adjudicator.games.strike_gold.state import Stage, State
from adjudicator.turn import advance

RULES = StrikeGold()


def grid(*rows: str) -> Grid:
    """A grid from three rows such as ``"7 ?1 ?2 ?3"``."""
    assert len(rows) == 3
    cells: list[Cell | None] = []
    for row in rows:
        words = row.split()
        assert len(words) == 4, row
        for word in words:
            if word == "x":
                cells.append(None)
            elif word.startswith("?"):
                cells.append(Cell(int(word[1:]), False))
            else:
                cells.append(Cell(int(word), True))
    return tuple(cells)


def build(
    grids: Mapping[str, Grid],
    *,
    discard: Sequence[int] = (6,),
    deck_top: Sequence[int] = (),
    stage: Stage = Stage.TURN,
    current: str | None = None,
    round_number: int = 1,
    out: str | None = None,
    final_turns: Sequence[str] = (),
    totals: Mapping[str, int] | None = None,
    columns: Mapping[str, int] | None = None,
    rows: Mapping[str, int] | None = None,
    turn: int = 5,
    options: Mapping[str, Any] | None = None,
    fill: bool = True,
) -> State:
    """A state with exactly these grids and piles; the deck below ``deck_top`` holds the other cards."""
    seats = tuple(grids)
    used = Counter(c.value for g in grids.values() for c in g if c is not None)
    used.update(discard)
    used.update(deck_top)
    rest = Counter(full_deck())
    rest.subtract(used)
    assert all(n >= 0 for n in rest.values()), f"more cards than the deck holds: {-rest}"
    filler = sorted(rest.elements(), key=lambda v: (v * 7919) % 13) if fill else []
    index = seats.index
    return State(
        options=Options.from_mapping({**{s.name: s.default for s in RULES.options()}, **(options or {})}),
        seats=seats,
        grids=tuple(grids.values()),
        deck=(*deck_top, *filler),
        discard=tuple(discard),
        totals=tuple((totals or {}).get(s, 0) for s in seats),
        columns_cleared=tuple((columns or {}).get(s, 0) for s in seats),
        rows_cleared=tuple((rows or {}).get(s, 0) for s in seats),
        round=round_number,
        stage=stage,
        current=index(current) if current else 0,
        out=index(out) if out else None,
        final_turns=tuple(index(s) for s in final_turns),
        turn=turn,
    )


def play(state: State, text: str, seat: str | None = None, rng: random.Random | None = None) -> Resolution[State]:
    """Parse ``text`` for the seat to move (it must be read without errors) and resolve it."""
    phase = RULES.phase(state)
    assert phase is not None
    who = seat or phase.owing[0]
    parsed = RULES.parse_orders(state, who, text)
    assert parsed.errors == (), parsed.errors
    assert RULES.parse_orders(state, who, parsed.canonical).orders == parsed.orders
    return advance(RULES, state, {who: parsed.orders}, rng or random.Random(0))


def setup(state: State, texts: Mapping[str, str]) -> Resolution[State]:
    """Resolve a setup phase with every seat's flips."""
    orders = {}
    for seat, text in texts.items():
        parsed = RULES.parse_orders(state, seat, text)
        assert parsed.errors == (), parsed.errors
        orders[seat] = parsed.orders
    return advance(RULES, state, orders, random.Random(0))


def cells(state: State, seat: str) -> list[list[Any]]:
    """The public rows of a seat's grid (number, None face down, "x" cleared)."""
    rows: list[list[Any]] = RULES.public_state(state)["grids"][seat]
    return rows


def stacked_deck(grids: Mapping[str, Sequence[int]], discard: int, top: Sequence[int] = ()) -> list[int]:
    """A full 150-card ``deck`` option: the grids dealt seat by seat (12 values, r1c1 ... r3c4),
    the first discard, then ``top`` and the rest of the cards."""
    cards = [v for values in grids.values() for v in values] + [discard, *top]
    rest = Counter(full_deck())
    rest.subtract(cards)
    assert all(n >= 0 for n in rest.values())
    return cards + sorted(rest.elements())


def with_options(state: State, **options: Any) -> State:
    return replace(state, options=Options.from_mapping({**state.options.as_dict(), **options}))


@pytest.fixture
def rules() -> StrikeGold:
    return RULES


@pytest.fixture
def sg() -> SimpleNamespace:
    """The builders: ``sg.grid``, ``sg.build``, ``sg.play``, ``sg.setup``, ``sg.cells``, ``sg.stacked_deck``,
    ``sg.with_options``, ``sg.RULES``."""
    return SimpleNamespace(
        grid=grid,
        build=build,
        play=play,
        setup=setup,
        cells=cells,
        stacked_deck=stacked_deck,
        with_options=with_options,
        RULES=RULES,
    )
