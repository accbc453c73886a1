"""Count to Ten's turn: every seat's addition at once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from adjudicator.api import Event, IllegalOrders, Resolution

from .report import turn_report
from .state import State


def resolve(state: State, orders: Mapping[str, int]) -> Resolution[State]:
    for seat in state.seats:
        if not 1 <= orders[seat] <= 2:
            raise IllegalOrders(seat, f"adds {orders[seat]}")
    totals = tuple(total + orders[seat] for seat, total in zip(state.seats, state.totals, strict=True))
    new = replace(state, totals=totals, turn=state.turn + 1)
    events = tuple(Event("add", f"{seat} adds {orders[seat]}", seat) for seat in state.seats)
    return Resolution(new, events, turn_report(new))
