"""Count to Ten's state: the seats, their totals, the target, the turn; and its JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.api import JSON


@dataclass(frozen=True)
class State:
    seats: tuple[str, ...]
    totals: tuple[int, ...]
    target: int
    turn: int = 0

    @property
    def finished(self) -> bool:
        return max(self.totals) >= self.target


def dump(state: State) -> dict[str, JSON]:
    return {"version": 1, "seats": list(state.seats), "totals": list(state.totals), "target": state.target,
            "turn": state.turn}  # fmt: skip


def load(data: Mapping[str, JSON]) -> State:
    seats, totals = data["seats"], data["totals"]
    assert isinstance(seats, list) and isinstance(totals, list)
    return State(tuple(str(s) for s in seats), tuple(int(str(t)) for t in totals), int(str(data["target"])),
                 int(str(data["turn"])))  # fmt: skip
