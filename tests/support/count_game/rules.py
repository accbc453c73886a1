"""Count to Ten's rules: thin, each job handed to its role module."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from adjudicator.api import JSON, InvariantViolation, OptionSpec, ParsedOrders, Phase, PhaseKind, Resolution, Standing
from adjudicator.checks import check_seats

from . import computer, help, orders, report, resolve
from . import state as stored
from .options import OPTION_SPECS
from .state import State

KIND = "count-to-ten"


class CountToTen:
    """The rules; see the package's docstring."""

    kind = KIND
    title = "Count to Ten"
    min_seats = 2
    max_seats = 4
    default_orders_public = True

    def options(self) -> Sequence[OptionSpec]:
        return OPTION_SPECS

    def new_game(self, seats: Sequence[str], options: Mapping[str, JSON], rng: random.Random) -> State:
        check_seats(
            seats, self.min_seats, self.max_seats, game="Count to Ten", noun="players", twice="a seat named twice"
        )
        return State(tuple(seats), tuple(0 for _ in seats), int(str(options.get("target", 10))))

    def phase(self, state: State) -> Phase | None:
        if state.finished:
            return None
        return Phase(state.turn, PhaseKind.TURN, state.seats, "everyone adds 1 or 2")

    def parse_orders(self, state: State, seat: str, text: str) -> ParsedOrders[int]:
        return orders.parse(text)

    def format_orders(self, state: State, seat: str, given: int) -> str:
        return orders.format_orders(given)

    def default_orders(self, state: State, seat: str) -> int:
        return 1

    def resolve(self, state: State, given: Mapping[str, int], rng: random.Random) -> Resolution[State]:
        return resolve.resolve(state, given)

    def redeal(self, state: State, rng: random.Random) -> State:
        """Nothing is hidden."""
        return state

    def check_invariants(self, state: State) -> None:
        if len(state.totals) != len(state.seats) or min(state.totals) < 0:
            raise InvariantViolation("a total per seat, none negative")

    def standings(self, state: State) -> tuple[Standing, ...]:
        order = sorted(state.seats, key=lambda seat: -state.totals[state.seats.index(seat)])
        return tuple(
            Standing(seat, 1 + sum(t > state.totals[state.seats.index(seat)] for t in state.totals),
                     state.totals[state.seats.index(seat)])
            for seat in order
        )  # fmt: skip

    def public_state(self, state: State) -> dict[str, JSON]:
        return report.public_state(state)

    def seat_view(self, state: State, seat: str) -> dict[str, JSON]:
        return report.seat_view(state, seat)

    def dump_state(self, state: State) -> dict[str, JSON]:
        return stored.dump(state)

    def load_state(self, data: Mapping[str, JSON]) -> State:
        return stored.load(data)

    def example_orders(self, state: State, seat: str, rng: random.Random) -> str:
        return computer.example_orders(rng)

    def help_text(self, options: Mapping[str, JSON] | None = None) -> str:
        return help.help_text(int(str((options or {}).get("target", 10))))
