"""The start of the race: where the 25 cyclists stand (rulings L2 and L3).

Riders are numbered 1-5 within their team from the front of the start: rider 1
is the team's cyclist nearest the front (referee's choice; the seed gives no
numbering).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from adjudicator.games.lautobus.cards import starting_hand
from adjudicator.games.lautobus.options import RIDERS, TEAMS, Options
from adjudicator.games.lautobus.state import Cyclist

GROUP_GAP = 1
"""Seed rule 3: one empty space between groups."""


def default_layout() -> tuple[int, ...]:
    """Ruling L2: E 1-5, D 7-11, C 13-17, B 19-23, A 25-29 (the leader on 29, not 31)."""
    width = RIDERS + GROUP_GAP
    return tuple(1 + g * width + p for g in range(TEAMS) for p in range(RIDERS))


def latin_team(index: int) -> int:
    """Ruling L3: the place at offset p of group g (both from the back) is team ((g + p) mod 5) + 1."""
    group, offset = divmod(index, RIDERS)
    return (group + offset) % TEAMS + 1


def start_teams(options: Options, rng: random.Random) -> tuple[int, ...]:
    """Team number (1-5, in seat order) of each start place, back to front (L3)."""
    teams = [latin_team(i) for i in range(TEAMS * RIDERS)]
    if options.start_assignment == "seeded_random":
        rng.shuffle(teams)
    return tuple(teams)


def start_cyclists(seats: Sequence[str], options: Options, rng: random.Random) -> tuple[Cyclist, ...]:
    """All 25 cyclists at the start, in seat order then rider order, with full hands (L1)."""
    spaces = options.start_layout if options.start_layout is not None else default_layout()
    teams = start_teams(options, rng)
    hand = starting_hand(options.movement_cards)
    cyclists: list[Cyclist] = []
    for number, seat in enumerate(seats, start=1):
        mine = sorted((space for space, team in zip(spaces, teams, strict=True) if team == number), reverse=True)
        cyclists.extend(Cyclist(seat, rider, space, hand) for rider, space in enumerate(mine, start=1))
    return tuple(cyclists)
