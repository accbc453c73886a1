"""Resolving the setup and one deadline of the three-race game (seed rules 1-10; rulings P1-P8)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from adjudicator.api import Event, IllegalOrders
from adjudicator.games.three_races.conditions import Facts, format_condition, holds
from adjudicator.games.three_races.cycle import ends_cycle, pick_card, refresh, spend
from adjudicator.games.three_races.orders import DeadlineOrders, MoveOrders, Split
from adjudicator.games.three_races.plan import move_numbers
from adjudicator.games.three_races.readjust import (
    apply_readjust,
    describe,
    format_readjust,
    readjust_index,
    readjust_problem,
)
from adjudicator.games.three_races.scoring import move_runners, points_text, positions, race_result
from adjudicator.games.three_races.state import RACES, Race, State, Team
from adjudicator.words import say


def resolve_setup(state: State, splits: Mapping[str, Split]) -> State:
    """Give each runner the four cards its team chose (seed rule 2); all start on square 0 (P8)."""
    teams = tuple(
        replace(
            team,
            hands={race: splits[team.seat].hand(race) for race in RACES},
            spent={race: frozenset() for race in RACES},
        )
        for team in state.teams
    )
    return replace(state, teams=teams, turn=state.turn + 1)


@dataclass(frozen=True)
class RaceMove:
    """One race in one move: the cards, the reference card, movement and squares after."""

    race: int
    reference: int
    cards: Mapping[str, int]
    moved: Mapping[str, int]
    squares: Mapping[str, int]
    finished: bool


@dataclass(frozen=True)
class MoveLine:
    """One move: the races that ran in it."""

    move: int
    races: tuple[RaceMove, ...]


@dataclass(frozen=True)
class DeadlineResult:
    """The state after a deadline, its moves, public events and each team's private notes."""

    state: State
    moves: tuple[MoveLine, ...]
    events: tuple[Event, ...]
    notes: Mapping[str, tuple[str, ...]]


def places(race: Race) -> dict[str, int]:
    """Final places of a finished race, else the current positions by square."""
    return dict(race.places) if race.finished else positions(race.squares)


def facts_for(state: State, seat: str, previous: MoveLine | None) -> Facts:
    """What a condition of ``seat`` sees before the next move (ruling P5)."""
    return Facts(
        me=seat,
        squares={race.length: dict(race.squares) for race in state.races},
        places={race.length: places(race) for race in state.races},
        finished=frozenset(race.length for race in state.races if race.finished),
        played={line.race: dict(line.cards) for line in previous.races} if previous else {},
    )


def choose(move: MoveOrders, facts: Facts) -> tuple[int | None, dict[int, int]]:
    """The first case whose condition holds (its number from 1, or None) and the cards to
    play: the case's own, and the plain cards for the races it does not name (ruling P5)."""
    cards = dict(move.cards)
    for number, case in enumerate(move.cases, start=1):
        if holds(case.condition, facts):
            return number, {**cards, **dict(case.cards)}
    return None, cards


def _finish(race: Race, squares: Mapping[str, int], before: Mapping[str, int], move: int, state: State) -> Race:
    result = race_result(squares, before, state.options.placing_tie)
    reached = max(squares.values()) >= race.length
    return replace(race, finished_at=move, stopped=not reached, places=result.places, points=result.points)


def _finish_event(race: Race, move: int) -> Event:
    ranking = sorted(race.places, key=race.places.__getitem__)
    scores = ", ".join(f"{seat} {points_text(race.points[seat])}" for seat in ranking)
    if race.stopped:
        text = say(
            "the {race} race was stopped after move {move} (max_moves) and ranked by square; points: {scores}",
            race=race.length,
            move=move,
            scores=scores,
        )
    else:
        text = say(
            "the {race} race finished at move {move}; points: {scores}", race=race.length, move=move, scores=scores
        )
    return Event("finish", text)


def play_move(state: State, cards: Mapping[int, Mapping[str, int]]) -> tuple[State, MoveLine, list[Event]]:
    """Play one move of every running race (seed rules 4-7 by the formula of docs/rules/three-races.md 2.1);
    a race ends when a runner reaches its finish (seed rule 1, P8) or at ``max_moves``."""
    move = state.moves + 1
    teams = {team.seat: team for team in state.teams}
    races: list[Race] = []
    lines: list[RaceMove] = []
    events: list[Event] = []
    for race in state.races:
        if race.finished:
            races.append(race)
            continue
        played = cards[race.length]
        movement = move_runners(played, race.movers, state.options.top_tie_mode)
        squares = {seat: race.squares[seat] + movement.moved[seat] for seat in state.seats}
        for seat in state.seats:
            teams[seat] = spend(teams[seat], race.length, played[seat])
        after = replace(race, squares=squares, played={s: (*race.played[s], played[s]) for s in state.seats})
        if max(squares.values()) >= race.length or move >= state.options.max_moves:
            after = _finish(after, squares, race.squares, move, state)
            events.append(_finish_event(after, move))
        races.append(after)
        lines.append(RaceMove(race.length, movement.reference, dict(played), movement.moved, squares, after.finished))
    if ends_cycle(move):
        teams = {seat: refresh(team) for seat, team in teams.items()}
        races = [replace(race, played={seat: () for seat in state.seats}) for race in races]
    new_state = replace(state, teams=tuple(teams[seat] for seat in state.seats), races=tuple(races), moves=move)
    return new_state, MoveLine(move, tuple(lines)), events


def _choose_cards(
    state: State, team: Team, move: MoveOrders, previous: MoveLine | None, notes: list[str], events: list[Event]
) -> dict[int, int]:
    """The card each running runner of ``team`` plays this move (rules 9-10, P5, P6)."""
    number, wanted = choose(move, facts_for(state, team.seat, previous))
    label = state.moves + 1
    if number is not None:
        condition = format_condition(move.cases[number - 1].condition)
        notes.append(say('move {move}: case {case} held ("{condition}")', move=label, case=number, condition=condition))
    elif move.cases:
        notes.append(say("move {move}: no case held; the plain cards were used", move=label))
    played: dict[int, int] = {}
    for race in state.running():
        pick = pick_card(team, race, wanted.get(race))
        played[race] = pick.card
        if pick.problem is None:
            continue
        notes.append(
            say(
                "move {move}, {race} race: {problem}; your lowest card left, {card}, was played (P6)",
                move=label,
                race=race,
                problem=pick.problem,
                card=pick.card,
            )
        )
        if wanted.get(race) is not None:
            events.append(
                Event(
                    "substitute",
                    say(
                        "{seat}: the card ordered for the {race} race at move {move} could not be played; "
                        "the lowest card left was played (rule 10, ruling P6)",
                        seat=team.seat,
                        race=race,
                        move=label,
                    ),
                    team.seat,
                )
            )
    return played


def resolve_deadline(state: State, orders: Mapping[str, DeadlineOrders]) -> DeadlineResult:
    """Play the deadline's moves in turn (seed rules 3, 9): readjustments at their move (P4),
    each team's first case that holds, then the move itself."""
    at = readjust_index(state)
    for seat in state.seats:
        readjust = orders[seat].readjust
        if readjust is not None:
            problem = readjust_problem(state, state.team(seat), readjust)
            if problem:
                raise IllegalOrders(seat, f"{format_readjust(readjust)}: {problem}")
    notes: dict[str, list[str]] = {seat: [] for seat in state.seats}
    events: list[Event] = []
    lines: list[MoveLine] = []
    previous: MoveLine | None = None
    for index, _ in enumerate(move_numbers(state)):
        if state.finished:
            break
        if index == at:
            state = _readjust(state, orders, notes)
        cards: dict[int, dict[str, int]] = {race: {} for race in state.running()}
        for team in state.teams:
            move = orders[team.seat].moves[index] if index < len(orders[team.seat].moves) else MoveOrders()
            for race, card in _choose_cards(state, team, move, previous, notes[team.seat], events).items():
                cards[race][team.seat] = card
        state, previous, finished = play_move(state, cards)
        events.extend(finished)
        lines.append(previous)
    if state.finished:
        events.append(Event("game-over", say("all three races are over")))
    state = replace(state, turn=state.turn + 1)
    return DeadlineResult(state, tuple(lines), tuple(events), {seat: tuple(n) for seat, n in notes.items()})


def _readjust(state: State, orders: Mapping[str, DeadlineOrders], notes: dict[str, list[str]]) -> State:
    teams = []
    for team in state.teams:
        readjust = orders[team.seat].readjust
        finished = [race for race, _ in readjust.transfers if race not in state.running()] if readjust else []
        if readjust is not None and finished:
            notes[team.seat].append(
                say("readjustment not made: the {race} race has finished meanwhile (ruling P7)", race=finished[0])
            )
        elif readjust is not None:
            team = apply_readjust(team, readjust)
            notes[team.seat].append(
                say(
                    "before move {move}: readjustment made ({description})",
                    move=state.moves + 1,
                    description=describe(readjust),
                )
            )
        teams.append(team)
    return replace(state, teams=tuple(teams))
