"""Count to Ten's report data and views: nothing is secret."""

from __future__ import annotations

from adjudicator.api import JSON

from .state import State


def turn_report(state: State) -> dict[str, JSON]:
    """What the report template renders after a turn."""
    return {"turn": state.turn, "totals": dict(zip(state.seats, state.totals, strict=True)), "finished": state.finished}


def public_state(state: State) -> dict[str, JSON]:
    return {"turn": state.turn, "target": state.target, "totals": dict(zip(state.seats, state.totals, strict=True))}


def seat_view(state: State, seat: str) -> dict[str, JSON]:
    return {**public_state(state), "seat": seat}
