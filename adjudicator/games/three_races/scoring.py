"""Movement, race results and the overall placings (seed rules 1, 4-7; rulings P1-P3)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

POINTS: tuple[int, ...] = (5, 3, 2, 1)
"""Seed rule 1: the points for 1st to 4th place in each race."""


@dataclass(frozen=True)
class Movement:
    """One move of one race: the reference card and how far each runner moved."""

    reference: int
    moved: Mapping[str, int]


def move_runners(cards: Mapping[str, int], movers: int, top_tie_mode: str = "literal") -> Movement:
    """docs/rules/three-races.md 2.1: sort the cards ``c1 >= c2 >= ...``; the reference is ``c(k+1)``
    for a race with k movers; every card above the reference moves the difference.

    This reproduces seed rules 4-7, including the "commonsense" ties (PA-1,
    PA-2).  With ``top_tie_mode`` ``skip_equal`` (P1) a highest card equal to
    the reference (nobody would move) is measured against the next lower value
    played instead, if there is one.
    """
    ordered = sorted(cards.values(), reverse=True)
    reference = ordered[min(movers, len(ordered) - 1)]
    if top_tie_mode == "skip_equal" and ordered[0] == reference:
        lower = [card for card in ordered if card < reference]
        if lower:
            reference = lower[0]
    return Movement(reference, {seat: max(0, card - reference) for seat, card in cards.items()})


def positions(squares: Mapping[str, int]) -> dict[str, int]:
    """Standard competition ranking: 1 + the number of runners strictly ahead."""
    return {seat: 1 + sum(1 for other in squares.values() if other > sq) for seat, sq in squares.items()}


@dataclass(frozen=True)
class RaceResult:
    """Final places and points of one race."""

    places: Mapping[str, int]
    points: Mapping[str, Fraction]


def race_result(squares: Mapping[str, int], before: Mapping[str, int], placing_tie: str = "average") -> RaceResult:
    """Rank a finished race by square, squares past the line counting in full (seed rule 1, P8),
    and share out 5/3/2/1 (P2).

    ``average``: runners level share the points of the places they occupy
    equally; ``all_higher``: each gets the points of the best of those places;
    ``countback_previous_square``: level runners are ranked by ``before`` (their
    squares before the final move), and runners level on both share as in
    ``average``.
    """

    def key(seat: str) -> tuple[int, ...]:
        if placing_tie == "countback_previous_square":
            return (squares[seat], before[seat])
        return (squares[seat],)

    places = {seat: 1 + sum(1 for other in squares if key(other) > key(seat)) for seat in squares}
    points: dict[str, Fraction] = {}
    for seat, place in places.items():
        level = sum(1 for other in squares if key(other) == key(seat))
        shares = [POINTS[i] if i < len(POINTS) else 0 for i in range(place - 1, place - 1 + level)]
        points[seat] = Fraction(shares[0]) if placing_tie == "all_higher" else Fraction(sum(shares), level)
    return RaceResult(places, points)


def ranked_places(seats: Sequence[str], key: Callable[[str], tuple[Fraction | int, ...]]) -> dict[str, int]:
    """1 + the number of seats with a strictly greater key (competition ranking)."""
    return {seat: 1 + sum(1 for other in seats if key(other) > key(seat)) for seat in seats}


def overall_places(
    totals: Mapping[str, Fraction], race_places: Sequence[Mapping[str, int]], overall_tie: str = "countback"
) -> dict[str, int]:
    """The game's placings (seed rule 1, P3): most points; level teams by countback
    (more 1st places, then 2nds, then 3rds in the finished races) unless
    ``overall_tie`` is ``shared``; teams still level share the place."""

    def key(seat: str) -> tuple[Fraction | int, ...]:
        if overall_tie == "shared":
            return (totals[seat],)
        counts = [sum(1 for places in race_places if places.get(seat) == p) for p in (1, 2, 3)]
        return (totals[seat], *counts)

    return ranked_places(list(totals), key)


def as_number(value: Fraction) -> int | float:
    """Points as JSON: an int when whole, else a float rounded to 4 places."""
    return int(value) if value.denominator == 1 else round(float(value), 4)


def points_text(value: Fraction) -> str:
    """Points for the report: ``5``, ``2.5``, ``2.75``, ``3.33``."""
    if value.denominator == 1:
        return str(int(value))
    return f"{float(value):.2f}".rstrip("0")
