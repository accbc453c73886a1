"""What a simple computer player writes (for the demo and the property tests).

Always legal: cards are chosen along the one path the orders can take (a
condition is only ever put on the deadline's last move), and a readjustment
only when the rules allow it.  The layout varies a little, as a human's would.
"""

from __future__ import annotations

import random

from adjudicator.games.three_races.cycle import ends_cycle, refresh, spend
from adjudicator.games.three_races.orders import Split, format_setup
from adjudicator.games.three_races.plan import move_numbers
from adjudicator.games.three_races.readjust import (
    Readjust,
    apply_readjust,
    format_readjust,
    make,
    readjust_index,
    readjust_problem,
)
from adjudicator.games.three_races.state import CARDS, RACES, READJUSTMENTS, State, Team


def example_orders(state: State, seat: str, rng: random.Random) -> str:
    """What the computer player sends for ``seat`` now: a setup split, or a deadline's moves."""
    if state.turn == 0:
        return example_setup(rng)
    return example_deadline(state, seat, rng)


def example_setup(rng: random.Random) -> str:
    cards = list(CARDS)
    rng.shuffle(cards)
    split = Split(tuple(tuple(sorted(cards[i : i + 4])) for i in range(0, 12, 4)))
    style = rng.randrange(3)
    if style == 0:
        return format_setup(split)
    hands = [" ".join(str(c) for c in split.hand(race)) for race in RACES]
    if style == 1:
        return "\n".join(f"R{race} {hand.replace(' ', ', ')}" for race, hand in zip(RACES, hands, strict=True))
    return "; ".join(f"{race} = {hand}" for race, hand in zip(RACES, hands, strict=True))


def _readjust(state: State, team: Team, rng: random.Random) -> Readjust | None:
    running = list(state.running())
    if team.readjustments >= READJUSTMENTS or len(running) < 2 or readjust_index(state) is None:
        return None
    if rng.random() >= 0.1:
        return None
    races = rng.sample(running, rng.choice([2, 3]) if len(running) == 3 else 2)
    readjust = make([(race, rng.choice(team.available(race))) for race in races])
    return None if readjust_problem(state, team, readjust) else readjust


def _condition(state: State, seat: str, rng: random.Random) -> str:
    other = rng.choice([s for s in state.seats if s != seat])
    race = rng.choice(RACES)
    square = rng.randint(1, race)
    return rng.choice(
        [
            f"{race} finished",
            f"{other} square in {race} >= {square}",
            f"{other} leads {race}",
            f"{other}'s square in the {race} race is at least {square}",
            f"I am ahead of {other} in {race}",
            f"anyone played 12 in r{race}",
            f"not {race} finished and my place in {race} <= 2",
            f"{other} played >= {rng.randint(1, 12)} in {race} or {race} finished",
        ]
    )


def _pairs(play: dict[int, int], style: int) -> str:
    if style == 1:
        return ", ".join(f"r{race} {card}" for race, card in play.items())
    return " ".join(f"{race}={card}" if style == 0 else f"{race}:{card}" for race, card in play.items())


def example_deadline(state: State, seat: str, rng: random.Random) -> str:
    """Random legal cards for each move, sometimes a readjustment or a case on the last move."""
    team = state.team(seat)
    readjust = _readjust(state, team, rng)
    at = readjust_index(state) if readjust else None
    plays: list[dict[int, int]] = []
    case: tuple[str, dict[int, int]] | None = None
    moves = move_numbers(state)
    for index, move in enumerate(moves):
        if index == at and readjust is not None:
            team = apply_readjust(team, readjust)
        if index == len(moves) - 1 and index > 0 and rng.random() < 0.3:
            races = [r for r in state.running() if rng.random() < 0.7] or list(state.running())
            case = (_condition(state, seat, rng), {r: rng.choice(team.available(r)) for r in races})
        play = {race: rng.choice(team.available(race)) for race in state.running()}
        for race, card in play.items():
            team = spend(team, race, card)
        if ends_cycle(move):
            team = refresh(team)
        plays.append(play)
    style = rng.randrange(3)
    lines = []
    if readjust is not None:
        lines.append(format_readjust(readjust))
    for number, play in enumerate(plays, start=moves[0]):
        if case is not None and number == moves[0] + len(plays) - 1:
            lines.append(f"move {number} if {case[0]}: {_pairs(case[1], style)}")
        label = f"move {number}: " if style == 0 else (f"M{number} " if style == 1 else f"{number}: ")
        lines.append(label + _pairs(play, style))
    return "; ".join(lines) if style == 0 and case is None else "\n".join(lines)
