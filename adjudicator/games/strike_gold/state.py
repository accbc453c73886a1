"""Strike Gold state: grids, piles, totals and whose move it is (docs/rules/strike-gold.md 3.1).

Hidden from every player (the referee only): the draw-pile order and the value
of every face-down card, and the card a player has drawn alone on Discord until
it is placed or discarded (shown to that player only).  Everything else is public.

A round is one setup phase (every seat flips its starting cards at once) and
then one phase per move.  ``turn`` counts the phases resolved so far.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adjudicator.games.strike_gold.grid import Cell, Grid
from adjudicator.games.strike_gold.options import Options

STATE_VERSION = 1


class Stage(enum.Enum):
    """What the game waits for."""

    SETUP = "setup"
    """Every seat flips its starting cards (2 in round 1, 1 later), all at once."""
    TURN = "turn"
    """The player to move draws and acts."""
    DECIDE = "decide"
    """The player to move has drawn alone ("draw deck") and now keeps, flips or discards."""
    OVER = "over"


class Source(enum.Enum):
    """Where a card is drawn from."""

    DECK = "deck"
    DISCARD = "discard"


@dataclass(frozen=True)
class Pending:
    """A card drawn alone and not yet used (Discord's interactive turn)."""

    value: int
    source: Source


@dataclass(frozen=True)
class State:
    """The whole game.  Per-seat tuples follow ``seats``; ``deck`` is top first, ``discard`` bottom first.

    ``current`` is the seat index to move; ``out`` the seat that went out this round (None while
    nobody has); ``final_turns`` the seats still owed a final turn after ``current``'s.
    ``history`` holds the scored round results, one tuple per finished round.
    """

    options: Options
    seats: tuple[str, ...]
    grids: tuple[Grid, ...]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    totals: tuple[int, ...]
    columns_cleared: tuple[int, ...]
    rows_cleared: tuple[int, ...]
    round: int = 1
    stage: Stage = Stage.SETUP
    current: int = 0
    out: int | None = None
    final_turns: tuple[int, ...] = ()
    pending: Pending | None = None
    previous_out: int | None = None
    history: tuple[tuple[int, ...], ...] = ()
    turn: int = 0

    @property
    def finished(self) -> bool:
        return self.stage is Stage.OVER

    @property
    def ending(self) -> bool:
        """Someone is out: every move now is a final turn (seed "Ending a Round")."""
        return self.out is not None

    def index(self, seat: str) -> int:
        return self.seats.index(seat)

    def grid(self, seat: str) -> Grid:
        return self.grids[self.seats.index(seat)]


def _dump_grid(grid: Grid) -> list[Any]:
    return [None if cell is None else [cell.value, cell.up] for cell in grid]


def _load_grid(data: list[Any]) -> Grid:
    return tuple(None if cell is None else Cell(int(cell[0]), bool(cell[1])) for cell in data)


def dump(state: State) -> dict[str, Any]:
    """Versioned JSON of the whole state, secrets included."""
    pending = state.pending
    return {
        "version": STATE_VERSION,
        "options": state.options.as_dict(),
        "seats": list(state.seats),
        "grids": [_dump_grid(g) for g in state.grids],
        "deck": list(state.deck),
        "discard": list(state.discard),
        "totals": list(state.totals),
        "columns_cleared": list(state.columns_cleared),
        "rows_cleared": list(state.rows_cleared),
        "round": state.round,
        "stage": state.stage.value,
        "current": state.current,
        "out": state.out,
        "final_turns": list(state.final_turns),
        "pending": None if pending is None else {"value": pending.value, "source": pending.source.value},
        "previous_out": state.previous_out,
        "history": [list(scores) for scores in state.history],
        "turn": state.turn,
    }


def load(data: Mapping[str, Any]) -> State:
    """Inverse of :func:`dump`."""
    if data.get("version") != STATE_VERSION:
        raise ValueError(f"unsupported strike-gold state version {data.get('version')!r}")
    options = dict(data["options"])
    deck_option = options.pop("deck", None)
    pending = data["pending"]
    return State(
        options=Options(**options, deck=None if deck_option is None else tuple(deck_option)),
        seats=tuple(data["seats"]),
        grids=tuple(_load_grid(g) for g in data["grids"]),
        deck=tuple(data["deck"]),
        discard=tuple(data["discard"]),
        totals=tuple(data["totals"]),
        columns_cleared=tuple(data["columns_cleared"]),
        rows_cleared=tuple(data["rows_cleared"]),
        round=data["round"],
        stage=Stage(data["stage"]),
        current=data["current"],
        out=data["out"],
        final_turns=tuple(data["final_turns"]),
        pending=None if pending is None else Pending(pending["value"], Source(pending["source"])),
        previous_out=data["previous_out"],
        history=tuple(tuple(scores) for scores in data["history"]),
        turn=data["turn"],
    )
