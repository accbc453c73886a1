"""One player's 3x4 grid and its line clears (seed "Clearing Columns"; rulings S4, S5).

A grid is a tuple of 12 slots in reading order; a slot holds a :class:`Cell`
(face up or face down) or None once its card has been cleared off the grid.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from adjudicator.api import JSON
from adjudicator.games.strike_gold.cards import COLUMNS, ROWS, SLOTS, column_slots, row_slots
from adjudicator.words import say


@dataclass(frozen=True)
class Cell:
    """A card in a grid slot; ``up`` is True once it is face up (then its value is public)."""

    value: int
    up: bool = False


Grid = tuple[Cell | None, ...]


@dataclass(frozen=True)
class LineClear:
    """A column (or, with row wipe, a row) cleared off a grid; ``slots`` in reading order."""

    kind: str
    index: int
    slots: tuple[int, ...]
    value: int

    @property
    def label(self) -> str:
        """``column 2`` or ``row 3`` (said: the reader's language in an event)."""
        if self.kind == "column":
            return say("column {number}", number=self.index + 1)
        return say("row {number}", number=self.index + 1)


def new_grid(values: tuple[int, ...] | list[int]) -> Grid:
    """Twelve face-down cards, dealt r1c1, r1c2 ... r3c4."""
    if len(values) != SLOTS:
        raise ValueError(f"a grid holds {SLOTS} cards, not {len(values)}")
    return tuple(Cell(v) for v in values)


def face_down_slots(grid: Grid) -> tuple[int, ...]:
    """Face-down slots in reading order (the order ruling S10 uses)."""
    return tuple(i for i, cell in enumerate(grid) if cell is not None and not cell.up)


def face_up_slots(grid: Grid) -> tuple[int, ...]:
    return tuple(i for i, cell in enumerate(grid) if cell is not None and cell.up)


def live_slots(grid: Grid) -> tuple[int, ...]:
    """Slots that still hold a card (face up or down)."""
    return tuple(i for i, cell in enumerate(grid) if cell is not None)


def value_at(grid: Grid, slot: int) -> int:
    """The value of the card in ``slot`` (face up or down); the slot must not be cleared."""
    cell = grid[slot]
    if cell is None:
        raise ValueError(f"slot {slot} has been cleared")
    return cell.value


def flip(grid: Grid, slot: int) -> Grid:
    """Turn the face-down card in ``slot`` face up."""
    cell = grid[slot]
    if cell is None or cell.up:
        raise ValueError(f"slot {slot} holds no face-down card")
    return (*grid[:slot], replace(cell, up=True), *grid[slot + 1 :])


def place(grid: Grid, slot: int, value: int) -> tuple[Grid, Cell]:
    """Put ``value`` face up in ``slot``; return the new grid and the card it replaced."""
    old = grid[slot]
    if old is None:
        raise ValueError(f"slot {slot} has been cleared")
    return (*grid[:slot], Cell(value, True), *grid[slot + 1 :]), old


def reveal_all(grid: Grid) -> Grid:
    """Every remaining card face up (the end-of-round reveal)."""
    return tuple(None if cell is None else replace(cell, up=True) for cell in grid)


def cards(grid: Grid) -> tuple[int, ...]:
    """The values of every card still in the grid, in reading order."""
    return tuple(cell.value for cell in grid if cell is not None)


def score(grid: Grid) -> int:
    """The sum of the cards still in the grid; cleared slots count 0."""
    return sum(cards(grid))


def revealed_total(grid: Grid) -> int:
    """The sum of the face-up cards (who starts a round, S9)."""
    return sum(cell.value for cell in grid if cell is not None and cell.up)


def public_rows(grid: Grid) -> list[list[JSON]]:
    """Three rows of four cells: the value when face up, None when face down, "x" when cleared."""

    def show(cell: Cell | None) -> JSON:
        if cell is None:
            return "x"
        return cell.value if cell.up else None

    return [[show(grid[r * COLUMNS + c]) for c in range(COLUMNS)] for r in range(ROWS)]


def _column_clear(grid: Grid, column: int) -> LineClear | None:
    slots = column_slots(column)
    values = [grid[s] for s in slots]
    if all(cell is not None and cell.up for cell in values) and len({c.value for c in values if c}) == 1:
        first = values[0]
        assert first is not None
        return LineClear("column", column, slots, first.value)
    return None


def _row_clear(grid: Grid, row: int, mode: str) -> LineClear | None:
    present = [(s, grid[s]) for s in row_slots(row) if grid[s] is not None]
    if mode == "full_row":
        cells = [cell for _, cell in present if cell is not None]
        if len(cells) >= 3 and all(c.up for c in cells) and len({c.value for c in cells}) == 1:
            return LineClear("row", row, tuple(s for s, _ in present), cells[0].value)
        return None
    up = [(s, cell.value) for s, cell in present if cell is not None and cell.up]
    for value in sorted({v for _, v in up}):
        slots = tuple(s for s, v in up if v == value)
        if len(slots) >= 3:
            return LineClear("row", row, slots, value)
    return None


def find_clears(grid: Grid, row_mode: str | None) -> tuple[LineClear, ...]:
    """Every line that clears now: columns of three equal face-up cards, and rows by ``row_mode`` (S4)."""
    found = [c for c in (_column_clear(grid, col) for col in range(COLUMNS)) if c is not None]
    if row_mode is not None:
        found.extend(c for c in (_row_clear(grid, row, row_mode) for row in range(ROWS)) if c is not None)
    return tuple(found)


def clear_lines(grid: Grid, row_mode: str | None) -> tuple[Grid, tuple[LineClear, ...], tuple[int, ...]]:
    """Clear every matching line, again and again until none matches (a column clear can complete
    a row with row wipe on).  Lines found together are removed together, a shared card once (S4).
    Returns the grid, the lines cleared, and the removed cards in the order they go on the discard
    pile (reading order within each pass)."""
    cleared: list[LineClear] = []
    removed: list[int] = []
    while True:
        lines = find_clears(grid, row_mode)
        if not lines:
            return grid, tuple(cleared), tuple(removed)
        slots = sorted({s for line in lines for s in line.slots})
        for s in slots:
            cell = grid[s]
            assert cell is not None
            removed.append(cell.value)
        grid = tuple(None if i in slots else cell for i, cell in enumerate(grid))
        cleared.extend(lines)


def clearing_slots(grid: Grid, value: int, row_mode: str | None) -> tuple[int, ...]:
    """Slots where keeping ``value`` would clear a line ("keep where it clears a column")."""
    return tuple(s for s in live_slots(grid) if find_clears(place(grid, s, value)[0], row_mode))
