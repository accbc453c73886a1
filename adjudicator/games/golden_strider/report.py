"""The plain data of a Golden Strider report (seed rule 15 layout), for the game's template,
and the views adapters get: the public state and one seat's view."""

from __future__ import annotations

from adjudicator.api import JSON
from adjudicator.games.golden_strider.state import MAX_CARD, RoundLine, State
from adjudicator.games.golden_strider.track import positions


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


def public_state(state: State) -> dict[str, JSON]:
    places = positions({r.seat: r.square for r in state.runners})
    return {
        "round": state.round,
        "race_length": state.options.race_length,
        "steeplechase": state.options.steeplechase,
        "runners": [
            {
                "seat": r.seat,
                "square": r.square,
                "position": places[r.seat],
                "owed": r.owed,
                "hand": [c.label for c in r.hand],
            }
            for r in state.runners
        ],
    }


def seat_view(state: State, seat: str) -> dict[str, JSON]:
    """``seat``'s view: the public state (hands are public, docs/rules/golden-strider.md 1.1: only each round's
    order is secret) and its own hand with the last round each card may be played in
    (seed rule 8), and the largest card value (seed rule 2), for a screen's suggestions."""
    runner = next(r for r in state.runners if r.seat == seat)
    return {
        **public_state(state),
        "seat": seat,
        "max_card": MAX_CARD,
        "hand": [{"card": c.label, "value": c.value, "received": c.turn, "play_by": c.deadline} for c in runner.hand],
    }
