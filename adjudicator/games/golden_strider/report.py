"""The plain data of a Golden Strider report (seed rule 15 layout), for the game's template."""

from __future__ import annotations

from adjudicator.api import JSON
from adjudicator.games.golden_strider.state import RoundLine, State


def _played_index(line: RoundLine) -> int:
    """Where the played card stands in the line's cards (the first of equal cards)."""
    return line.cards.index(line.played) if line.played is not None else -1


def setup_report(state: State) -> dict[str, JSON]:
    return {
        "kind": "setup",
        "round": 0,
        "race_length": state.options.race_length,
        "steeplechase": state.options.steeplechase,
        "runners": [{"seat": r.seat, "cards": [c.label for c in r.hand]} for r in state.runners],
    }


def round_report(state: State, lines: tuple[RoundLine, ...]) -> dict[str, JSON]:
    standing = sorted(lines, key=lambda line: (line.position, [ln.seat for ln in lines].index(line.seat)))
    return {
        "kind": "round",
        "round": state.round - 1,
        "race_length": state.options.race_length,
        "steeplechase": state.options.steeplechase,
        "finished": state.finished,
        "lines": [
            {
                "seat": line.seat,
                "cards": [{"label": c.label, "played": i == _played_index(line)} for i, c in enumerate(line.cards)],
                "D": line.deducted,
                "M": line.moved,
                "B": line.banked,
                "R": line.replacement,
                "S": line.square,
                "P": line.position,
                "O": line.owed_next,
                "cf": line.carried > 0,
                "tripped": line.tripped,
            }
            for line in lines
        ],
        "positions": [{"place": line.position, "seat": line.seat, "square": line.square} for line in standing],
    }
