"""A sixth game for tests only: "Count to Ten", the smallest whole :class:`adjudicator.api.GameRules`.

Every seat owes one order a turn, ``add N`` (N is 1 to 3), all at once; the
totals grow by the orders, and the game ends after the turn in which a total
reaches the target (option ``target``, 10).  Places go by total.  Nothing is
secret: a seat's view is the public state and its own name.  It shows what a
new game costs: this package, one registry entry, one report template
(``tests/support/count_game/templates/count-to-ten/report.txt.j2``), and no Discord module
(the generic ``/orders`` plays it).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from adjudicator.api import (
    JSON,
    Event,
    IllegalOrders,
    InvariantViolation,
    OptionSpec,
    OrderError,
    ParsedOrders,
    Phase,
    PhaseKind,
    Resolution,
    SetupError,
    Standing,
)

KIND = "count-to-ten"
TEMPLATES = Path(__file__).parent / "templates"
"""Its report template, ``count-to-ten/report.txt.j2``, as the game's folder under ``templates/`` would hold it."""
_ADD = re.compile(r"^\s*add\s+(\d)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class State:
    seats: tuple[str, ...]
    totals: tuple[int, ...]
    target: int
    turn: int = 0

    @property
    def finished(self) -> bool:
        return max(self.totals) >= self.target


class CountToTen:
    """The rules; see the module docstring."""

    kind = KIND
    title = "Count to Ten"
    min_seats = 2
    max_seats = 4
    default_orders_public = True

    def options(self) -> Sequence[OptionSpec]:
        return (OptionSpec("target", 10, "The total that ends the game."),)

    def new_game(self, seats: Sequence[str], options: Mapping[str, JSON], rng: random.Random) -> State:
        if not self.min_seats <= len(seats) <= self.max_seats:
            raise SetupError(f"Count to Ten needs 2 to 4 players, not {len(seats)}")
        return State(tuple(seats), tuple(0 for _ in seats), int(options.get("target", 10)))

    def phase(self, state: State) -> Phase | None:
        if state.finished:
            return None
        return Phase(state.turn, PhaseKind.TURN, state.seats, "everyone adds 1 to 3")

    def parse_orders(self, state: State, seat: str, text: str) -> ParsedOrders[int]:
        lines = [line for line in text.splitlines() if line.strip()]
        match = _ADD.match(lines[0]) if len(lines) == 1 else None
        if match is None or not 1 <= int(match.group(1)) <= 3:
            return ParsedOrders(None, errors=(OrderError(text.strip()[:40], "write: add 1, add 2 or add 3"),))
        return ParsedOrders(int(match.group(1)), f"add {match.group(1)}")

    def format_orders(self, state: State, seat: str, orders: int) -> str:
        return f"add {orders}"

    def default_orders(self, state: State, seat: str) -> int:
        return 1

    def resolve(self, state: State, orders: Mapping[str, int], rng: random.Random) -> Resolution[State]:
        for seat in state.seats:
            if not 1 <= orders[seat] <= 3:
                raise IllegalOrders(seat, f"adds {orders[seat]}")
        totals = tuple(total + orders[seat] for seat, total in zip(state.seats, state.totals, strict=True))
        new = replace(state, totals=totals, turn=state.turn + 1)
        events = tuple(Event("add", f"{seat} adds {orders[seat]}", seat) for seat in state.seats)
        report = {"turn": new.turn, "totals": dict(zip(new.seats, totals, strict=True)), "finished": new.finished}
        return Resolution(new, events, report)

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
        return {"turn": state.turn, "target": state.target, "totals": dict(zip(state.seats, state.totals, strict=True))}

    def seat_view(self, state: State, seat: str) -> dict[str, JSON]:
        return {**self.public_state(state), "seat": seat}

    def dump_state(self, state: State) -> dict[str, JSON]:
        return {"version": 1, "seats": list(state.seats), "totals": list(state.totals), "target": state.target,
                "turn": state.turn}  # fmt: skip

    def load_state(self, data: Mapping[str, JSON]) -> State:
        return State(tuple(data["seats"]), tuple(data["totals"]), int(data["target"]), int(data["turn"]))

    def example_orders(self, state: State, seat: str, rng: random.Random) -> str:
        return f"add {rng.randint(1, 3)}"

    def help_text(self, options: Mapping[str, JSON] | None = None) -> str:
        target = (options or {}).get("target", 10)
        return f"Count to Ten: each turn send  add 1,  add 2  or  add 3.  The first to {target} ends the game.\n"
