"""Looking ahead through one deadline's moves for one team, before it resolves.

Used to check orders when they arrive (which cards will certainly, or may, be
unplayable at their move) and to build the no-moves-received orders (seed
rule 10, ruling P6: the lowest card available at each move).  A later move's
card depends on which case of an earlier move was used, so every case is
followed; races that may finish meanwhile are assumed to go on (a finished
race needs no card, so that only removes problems).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from adjudicator.games.three_races.cycle import ends_cycle, pick_card, refresh, spend
from adjudicator.games.three_races.readjust import Readjust, apply_readjust, readjust_index
from adjudicator.games.three_races.state import RACES, State, Team


@dataclass(frozen=True)
class Option:
    """One way a move's cards may be chosen: race -> (card, id of the line that wrote it)."""

    cards: Mapping[int, tuple[int, int]]


@dataclass(frozen=True)
class Verdict:
    """How a card written on a line fares: ``problem`` is None when it is always
    playable; ``never`` says it is playable in no reachable case."""

    line: int
    race: int
    card: int
    problem: str | None
    never: bool


def _key(team: Team) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(sorted(team.spent.get(race, ()))) for race in RACES)


def move_numbers(state: State) -> range:
    """The moves the coming deadline plays (never past ``max_moves``)."""
    first = state.moves + 1
    last = min(state.moves + state.options.moves_per_deadline, state.options.max_moves)
    return range(first, last + 1)


def check_cards(
    state: State, team: Team, moves: Sequence[Sequence[Option]], readjust: Readjust | None
) -> list[Verdict]:
    """For every (line, race) card, whether it can be played in every, some or no reachable case."""
    running = state.running()
    at = readjust_index(state) if readjust is not None else None
    teams = {_key(team): team}
    seen: dict[tuple[int, int], list[str | None]] = {}
    cards: dict[tuple[int, int], int] = {}
    for index, move in enumerate(move_numbers(state)):
        if index == at and readjust is not None:
            teams = {k: apply_readjust(t, readjust) for k, t in teams.items()}
        following: dict[tuple[tuple[int, ...], ...], Team] = {}
        for option in moves[index] if index < len(moves) else [Option({})]:
            for current in teams.values():
                after = current
                for race in running:
                    wanted = option.cards.get(race)
                    pick = pick_card(current, race, wanted[0] if wanted else None)
                    if wanted is not None:
                        seen.setdefault((wanted[1], race), []).append(pick.problem)
                        cards[(wanted[1], race)] = wanted[0]
                    after = spend(after, race, pick.card)
                if ends_cycle(move):
                    after = refresh(after)
                following[_key(after)] = after
        teams = following
    return [
        Verdict(line, race, cards[(line, race)], next((p for p in problems if p), None), all(problems))
        for (line, race), problems in seen.items()
    ]


def lowest_cards(state: State, team: Team) -> list[dict[int, int]]:
    """The no-moves-received play (seed rule 10, P6): each running runner's lowest
    available card at each move of the deadline, cycles refreshing on the way."""
    plays: list[dict[int, int]] = []
    for move in move_numbers(state):
        play = {race: team.available(race)[0] for race in state.running()}
        for race, card in play.items():
            team = spend(team, race, card)
        if ends_cycle(move):
            team = refresh(team)
        plays.append(play)
    return plays
