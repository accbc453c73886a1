"""Penalties and team scores (seed rules 14-15, ruling L9).

A cyclist's penalty is the number of empty spaces between it and the winning
(leading) cyclist, so a continuous group shares one time; the winner's penalty
is 0.  A team's score is the sum over its five cyclists, lowest best.  Before
the end the same count on the current road gives provisional standings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adjudicator.api import Standing
from adjudicator.games.lautobus.state import Cyclist, State


@dataclass(frozen=True)
class TeamScore:
    """One team's line of the results: place, penalty total, and each rider's
    (rider, race place, penalty)."""

    seat: str
    place: int
    score: int
    riders: tuple[tuple[int, int, int], ...]


def penalty(cyclist: Cyclist, cyclists: Sequence[Cyclist]) -> int:
    """Seed rule 14: empty spaces strictly between ``cyclist`` and the leader."""
    leader = max(c.space for c in cyclists)
    between = sum(1 for c in cyclists if cyclist.space < c.space < leader)
    return max(0, leader - cyclist.space - 1 - between)


def race_places(cyclists: Sequence[Cyclist]) -> dict[tuple[str, int], int]:
    """1 for the leader, 2 for the next... (no two cyclists share a space)."""
    return {c.key: place for place, c in enumerate(sorted(cyclists, key=lambda c: -c.space), start=1)}


def team_scores(state: State) -> tuple[TeamScore, ...]:
    """Teams best first (seed rule 15); ties by ruling L9 (``team_tie`` option)."""
    places = race_places(state.cyclists)
    raw: list[tuple[str, int, tuple[tuple[int, int, int], ...]]] = []
    for seat in state.seats:
        riders = tuple(
            (c.rider, places[c.key], penalty(c, state.cyclists))
            for c in sorted(state.team(seat), key=lambda c: c.rider)
        )
        raw.append((seat, sum(p for _, _, p in riders), riders))

    def rank_key(entry: tuple[str, int, tuple[tuple[int, int, int], ...]]) -> tuple[int, tuple[int, ...]]:
        _, score, riders = entry
        if state.options.team_tie == "shared":
            return score, ()
        return score, tuple(sorted(place for _, place, _ in riders))

    keys = {seat: rank_key(entry) for entry in raw for seat in [entry[0]]}
    ordered = sorted(raw, key=lambda entry: (keys[entry[0]], state.seats.index(entry[0])))
    return tuple(
        TeamScore(seat, 1 + sum(1 for other in keys.values() if other < keys[seat]), score, riders)
        for seat, score, riders in ordered
    )


def standings(state: State) -> tuple[Standing, ...]:
    """Places and penalty totals (final once finished, provisional before)."""
    return tuple(Standing(t.seat, t.place, t.score) for t in team_scores(state))
