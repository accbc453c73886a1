"""A simple computer player for Strike Gold (the demo and the property tests).

It always sends a legal order, written a little differently each time as a person would.
Every move it makes either turns a face-down card up, lowers its face-up total, or clears a
line, so its rounds always end.
"""

from __future__ import annotations

import random

from adjudicator.games.strike_gold.cards import COLUMNS
from adjudicator.games.strike_gold.grid import Grid, clearing_slots, face_down_slots, face_up_slots, value_at
from adjudicator.games.strike_gold.rounds import flips_due
from adjudicator.games.strike_gold.state import Source, Stage, State


def _slot(slot: int, rng: random.Random) -> str:
    row, column = slot // COLUMNS + 1, slot % COLUMNS + 1
    return rng.choice([f"r{row}c{column}", f"R{row}C{column}", f"row {row} col {column}", f"r{row} c{column}"])


def _keep_slot(grid: Grid, value: int, row_mode: str | None, rng: random.Random) -> int | None:
    """Where to keep ``value``: a clearing slot, else the highest face-up card above it, else face down."""
    clearing = clearing_slots(grid, value, row_mode)
    if clearing:
        return clearing[0]
    higher = [s for s in face_up_slots(grid) if value_at(grid, s) > value]
    if higher:
        return max(higher, key=lambda s: value_at(grid, s))
    down = face_down_slots(grid)
    return rng.choice(down) if down else None


def _action(grid: Grid, value: int, source: Source, state: State, rng: random.Random) -> str:
    """What to do with a card whose value is known (from the discard pile, or drawn alone)."""
    slot = _keep_slot(grid, value, state.options.row_mode, rng)
    down = face_down_slots(grid)
    must_keep = source is Source.DISCARD and state.options.discard_pick_must_keep
    if slot is not None and (value <= 4 or must_keep or not down):
        return f"keep {_slot(slot, rng)}"
    if must_keep:
        highest = max(face_up_slots(grid), key=lambda s: value_at(grid, s))
        return f"keep {_slot(highest, rng)}"
    return f"flip {_slot(rng.choice(down), rng)}" if down else "discard"


def example_orders(state: State, seat: str, rng: random.Random) -> str:
    """A plausible order for ``seat`` in the current phase (always legal)."""
    grid = state.grid(seat)
    down = face_down_slots(grid)
    if state.stage is Stage.SETUP:
        picks = sorted(rng.sample(down, flips_due(state.round)))
        joiner = rng.choice([" ", " and ", ", "])
        return rng.choice(["flip ", "Flip ", "turn up "]) + joiner.join(_slot(s, rng) for s in picks)
    if state.stage is Stage.DECIDE:
        assert state.pending is not None
        return _action(grid, state.pending.value, state.pending.source, state, rng)
    top = state.discard[-1]
    if top <= 2 or clearing_slots(grid, top, state.options.row_mode):
        verb = rng.choice(["draw discard", "take the discard", "Draw discard", "pick up the discard pile"])
        return f"{verb}, {_action(grid, top, Source.DISCARD, state, rng)}"
    if rng.random() < 0.15:
        return rng.choice(["draw deck", "Draw from the deck", "draw from the draw pile"])
    threshold = rng.choice([2, 3, 4])
    higher = [s for s in face_up_slots(grid) if value_at(grid, s) > threshold]
    keep = max(higher, key=lambda s: value_at(grid, s)) if higher else (rng.choice(down) if down else None)
    fallback = f"flip {_slot(rng.choice(down), rng)}" if down else "discard"
    if keep is None:
        return f"draw deck, {fallback}"
    clear = rng.random() < 0.3
    style = rng.randrange(3)
    parts = ["draw deck"]
    if clear:
        parts.append("keep where it clears a column")
    if style == 0:
        parts += [f"if {threshold} or less keep {_slot(keep, rng)}", f"else {fallback}"]
        return "; ".join(parts)
    if style == 1:
        parts += [f"if <= {threshold} keep {_slot(keep, rng)}", f"otherwise {fallback}"]
        return "\n".join(parts)
    parts += [f"keep {_slot(keep, rng)} if {threshold} or less", fallback]
    return ", ".join(parts)
