"""The Alan Parr three-race card game: the :class:`~adjudicator.api.GameRules` implementation.

Rules: docs/rules/three-races.md (the rule text restated; rulings P1-P8).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.api import (
    JSON,
    IllegalOrders,
    InvariantViolation,
    OptionSpec,
    ParsedOrders,
    Phase,
    PhaseKind,
    Resolution,
    Standing,
)
from adjudicator.checks import check_seats, expect_orders, refuse_oversized
from adjudicator.games.three_races import computer, report
from adjudicator.games.three_races import help as game_help
from adjudicator.games.three_races import state as state_io
from adjudicator.games.three_races.options import OPTION_SPECS, Options
from adjudicator.games.three_races.orders import (
    DEFAULT_SPLIT,
    DeadlineOrders,
    MoveOrders,
    Split,
    format_deadline,
    format_setup,
    parse_setup,
)
from adjudicator.games.three_races.orders_deadline import parse_deadline
from adjudicator.games.three_races.plan import lowest_cards, move_numbers
from adjudicator.games.three_races.resolve import resolve_deadline, resolve_setup
from adjudicator.games.three_races.scoring import as_number
from adjudicator.games.three_races.state import CARDS, CYCLE, HAND_SIZE, RACES, READJUSTMENTS, State, new_state
from adjudicator.words import say

Orders = Split | DeadlineOrders


class ThreeRaces:
    """The three-race game; see the module docstring."""

    kind = "three-races"
    title: str = say("The three-race game")
    min_seats = 4
    max_seats = 4
    default_orders_public = False  # the defaults would name cards of the secret split (P6)

    def options(self) -> Sequence[OptionSpec]:
        return OPTION_SPECS

    def new_game(self, seats: Sequence[str], options: Mapping[str, JSON], rng: random.Random) -> State:
        check_seats(
            seats,
            self.min_seats,
            self.max_seats,
            game=say("the three-race game"),
            noun=say("teams"),
            twice=say("a team is named twice"),
        )
        return new_state(Options.from_mapping(options), tuple(seats))

    def phase(self, state: State) -> Phase | None:
        if state.finished:
            return None
        if state.turn == 0:
            title = say("setup: split your cards 1-12 into three hands of four")
            return Phase(0, PhaseKind.SETUP, state.seats, title)
        numbers = move_numbers(state)
        if len(numbers) == 1:
            title = say("deadline {deadline}: move {move}", deadline=state.turn, move=numbers[0])
        else:
            title = say(
                "deadline {deadline}: moves {first}-{last}", deadline=state.turn, first=numbers[0], last=numbers[-1]
            )
        return Phase(state.turn, PhaseKind.TURN, state.seats, title)

    def parse_orders(self, state: State, seat: str, text: str) -> ParsedOrders[Any]:
        if (refused := refuse_oversized(text)) is not None:
            return refused
        if state.turn == 0:
            return parse_setup(text)
        return parse_deadline(state, seat, text)

    def format_orders(self, state: State, seat: str, orders: Any) -> str:
        if isinstance(orders, Split):
            return format_setup(orders)
        return format_deadline(orders, state.moves + 1)

    def default_orders(self, state: State, seat: str) -> Orders:
        """Seed rule 10, ruling P6: the lowest card available at each move."""
        if state.turn == 0:
            return DEFAULT_SPLIT
        plays = lowest_cards(state, state.team(seat))
        moves = [MoveOrders((), tuple(sorted(play.items()))) for play in plays]
        moves += [MoveOrders()] * (state.options.moves_per_deadline - len(moves))
        return DeadlineOrders(tuple(moves))

    def resolve(self, state: State, orders: Mapping[str, Any], rng: random.Random) -> Resolution[State]:
        if self.phase(state) is None:
            raise IllegalOrders("-", say("the game is over"))
        if state.turn == 0:
            splits = {seat: expect_orders(seat, orders, Split, "Split") for seat in state.seats}
            new = resolve_setup(state, splits)
            return Resolution(new, (), report.setup_report(new), report.private_reports(new, {}))
        plays = {seat: expect_orders(seat, orders, DeadlineOrders, "DeadlineOrders") for seat in state.seats}
        result = resolve_deadline(state, plays)
        public = report.deadline_report(result.state, state.turn, result.moves)
        return Resolution(result.state, result.events, public, report.private_reports(result.state, result.notes))

    def redeal(self, state: State, rng: random.Random) -> State:
        """The hands are the rules' own, not shuffled: nothing hidden is left to chance."""
        return state

    def check_invariants(self, state: State) -> None:
        if state.turn == 0:
            return
        done = state.moves % CYCLE
        for team in state.teams:
            dealt = sorted(card for race in RACES for card in team.hands[race])
            if dealt != list(CARDS) or any(len(team.hands[race]) != HAND_SIZE for race in RACES):
                raise InvariantViolation(f"{team.seat} does not hold the cards 1-12 four to a runner")
            if not 0 <= team.readjustments <= READJUSTMENTS:
                raise InvariantViolation(f"{team.seat} has made {team.readjustments} readjustments")
            for race in state.races:
                spent = team.spent[race.length]
                if not spent <= set(team.hands[race.length]):
                    raise InvariantViolation(f"{team.seat} spent a card it does not hold in the {race.length} race")
                if not race.finished and (len(spent) != done or len(race.played[team.seat]) != done):
                    raise InvariantViolation(f"{team.seat}'s {race.length} runner is out of step with the cycle")
        for race in state.races:
            if any(square < 0 for square in race.squares.values()):
                raise InvariantViolation(f"a negative square in the {race.length} race")
            if race.finished != bool(race.points) or (race.finished and not race.places):
                raise InvariantViolation(f"the {race.length} race's result does not match its status")
            reached = max(race.squares.values()) >= race.length
            if reached and not race.finished:
                raise InvariantViolation(f"the {race.length} race has reached its finish but goes on")

    def standings(self, state: State) -> tuple[Standing, ...]:
        """By points from the finished races; level teams by countback (P3)."""
        ranks = report.game_places(state)
        order = sorted(state.seats, key=lambda s: (ranks[s], state.seats.index(s)))
        return tuple(Standing(seat, ranks[seat], as_number(state.total(seat))) for seat in order)

    def public_state(self, state: State) -> dict[str, JSON]:
        return report.public_state(state)

    def seat_view(self, state: State, seat: str) -> dict[str, JSON]:
        return report.seat_view(state, seat)

    def dump_state(self, state: State) -> dict[str, JSON]:
        return state_io.dump(state)

    def load_state(self, data: Mapping[str, JSON]) -> State:
        return state_io.load(data)

    def example_orders(self, state: State, seat: str, rng: random.Random) -> str:
        return computer.example_orders(state, seat, rng)

    def help_text(self, options: Mapping[str, JSON] | None = None) -> str:
        return game_help.help_text(options)
