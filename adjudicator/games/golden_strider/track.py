"""Positions, positional bonus and steeplechase movement (seed rules 6, 9-11; docs/rules/golden-strider.md 1.1, 1.3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

BARRIERS = frozenset({10, 30, 40, 60})
WATER_JUMPS = frozenset({20, 50})


def positions(squares: Mapping[str, int]) -> dict[str, int]:
    """Standard competition ranking: 1 + the number of runners strictly ahead."""
    return {seat: 1 + sum(1 for other in squares.values() if other > sq) for seat, sq in squares.items()}


def positional_bonus(position: int, runners: int) -> int:
    """Seed rule 6: 1st 0, 2nd-3rd 1, 4th-6th 2 (4th-8th with ten or more runners), then 0."""
    if position == 1:
        return 0
    if position <= 3:
        return 1
    last_bonus_place = 8 if runners >= 10 else 6
    return 2 if position <= last_bonus_place else 0


def jump_cost(square: int) -> int:
    """Extra points to enter an obstacle square: barrier 1, water jump 2, else 0."""
    if square in BARRIERS:
        return 1
    if square in WATER_JUMPS:
        return 2
    return 0


@dataclass(frozen=True)
class Stride:
    """Where a runner ended and whether it tripped (with the unpaid points)."""

    square: int
    tripped: bool = False
    shortfall: int = 0

    @property
    def penalty(self) -> int:
        """Steeplechase: one point for tripping plus the points not paid."""
        return 1 + self.shortfall if self.tripped else 0


def run(start: int, points: int, steeplechase: bool) -> Stride:
    """Spend ``points`` of movement from ``start`` (docs/rules/golden-strider.md 1.3, G9, G10).

    Flat race: one square per point.  Steeplechase: entering an obstacle square
    costs 1 + its jump; with too few points left the runner stops on it,
    tripped.  Leaving an obstacle square is free.
    """
    if not steeplechase:
        return Stride(start + points)
    square, left = start, points
    while left > 0:
        cost = 1 + jump_cost(square + 1)
        square += 1
        if left >= cost:
            left -= cost
        else:
            return Stride(square, tripped=True, shortfall=cost - left)
    return Stride(square)
