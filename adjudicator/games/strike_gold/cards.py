"""Strike Gold cards and grid geometry (seed "The Deck" and "Setup"; docs/rules/strike-gold.md 3.1).

A grid is 3 rows by 4 columns; its twelve slots are numbered 0-11 in reading
order (r1c1, r1c2, r1c3, r1c4, r2c1 ... r3c4), which is also the deal order and
the order the no-moves-received ruling (S10) uses.
"""

from __future__ import annotations

ROWS = 3
COLUMNS = 4
SLOTS = ROWS * COLUMNS
MIN_CARD = -2
MAX_CARD = 12

DECK_COMPOSITION: tuple[tuple[int, int], ...] = ((-2, 5), (-1, 10), (0, 15), *((v, 10) for v in range(1, 13)))
"""(value, copies): -2 x5, -1 x10, 0 x15, 1..12 x10 each (seed, "The Deck")."""

DECK_SIZE = sum(copies for _, copies in DECK_COMPOSITION)
assert DECK_SIZE == 150


def full_deck() -> tuple[int, ...]:
    """All 150 cards, lowest first (shuffle a copy of this to deal a round)."""
    return tuple(value for value, copies in DECK_COMPOSITION for _ in range(copies))


def slot_name(slot: int) -> str:
    """``r<row>c<col>``, rows 1-3 and columns 1-4."""
    return f"r{slot // COLUMNS + 1}c{slot % COLUMNS + 1}"


def slot_at(row: int, column: int) -> int:
    """The slot number of row ``row`` (1-3) and column ``column`` (1-4)."""
    return (row - 1) * COLUMNS + (column - 1)


def column_slots(column: int) -> tuple[int, ...]:
    """The three slots of column ``column`` (0-based), top to bottom."""
    return tuple(column + COLUMNS * row for row in range(ROWS))


def row_slots(row: int) -> tuple[int, ...]:
    """The four slots of row ``row`` (0-based), left to right."""
    return tuple(row * COLUMNS + column for column in range(COLUMNS))
