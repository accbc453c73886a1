"""The data each Strike Gold report shows (``templates/strike-gold/report.txt.j2``).

Only public facts: face-down cards appear as None, never by value; the draw pile only as a
count.  A card drawn alone is shown to its drawer through ``Resolution.private`` only.
"""

from __future__ import annotations

from adjudicator.api import JSON, Standing
from adjudicator.games.strike_gold.cards import COLUMNS, ROWS, slot_name
from adjudicator.games.strike_gold.grid import Grid, face_down_slots, public_rows
from adjudicator.games.strike_gold.rounds import RoundResult, flips_due
from adjudicator.games.strike_gold.state import Source, Stage, State


def _grids(state: State, grids: tuple[Grid, ...], to_move: int | None) -> list[JSON]:
    return [
        {
            "seat": seat,
            "rows": public_rows(grid),
            "face_down": len(face_down_slots(grid)),
            "out": state.out == i,
            "to_move": to_move == i,
            "columns_cleared": state.columns_cleared[i],
            "rows_cleared": state.rows_cleared[i],
        }
        for i, (seat, grid) in enumerate(zip(state.seats, grids, strict=True))
    ]


def pending_json(state: State) -> JSON:
    """Who holds a card drawn alone, and from where; its value only when it came from the
    discard pile (then it was public already).  A deck card stays private to its drawer."""
    if state.pending is None:
        return None
    data: dict[str, JSON] = {"seat": state.seats[state.current], "source": state.pending.source.value}
    if state.pending.source is Source.DISCARD:
        data["value"] = state.pending.value
    return data


def next_up(state: State) -> dict[str, JSON] | None:
    """Who owes the next order and what kind, for the report and the status."""
    if state.stage is Stage.OVER:
        return None
    if state.stage is Stage.SETUP:
        return {"seat": None, "what": "setup", "flips": flips_due(state.round), "round": state.round}
    seat = state.seats[state.current]
    what = "decide" if state.stage is Stage.DECIDE else ("final turn" if state.ending else "move")
    return {"seat": seat, "what": what, "flips": 0, "round": state.round}


def build_report(
    state: State,
    kind: str,
    standings: tuple[Standing, ...],
    result: RoundResult | None = None,
) -> dict[str, JSON]:
    """The report after a phase: ``kind`` is "setup", "move", "draw" or "round" (a round ended)."""
    playing = state.stage in (Stage.TURN, Stage.DECIDE)
    if result is not None:
        grids = _grids(state, result.grids, None)
        for entry, raw in zip(grids, result.raw, strict=True):
            entry["out"] = result.out is not None and entry["seat"] == state.seats[result.out]
            entry["score"] = raw
    else:
        grids = _grids(state, state.grids, state.current if playing else None)
    round_result: JSON = None
    if result is not None:
        round_result = {
            "round": result.round,
            "note": result.note,
            "lines": [
                {"seat": seat, "raw": raw, "score": scored, "total": total, "out": result.out == i}
                for i, (seat, raw, scored, total) in enumerate(
                    zip(state.seats, result.raw, result.scores, state.totals, strict=True)
                )
            ],
        }
    return {
        "kind": kind,
        "round": result.round if result is not None else state.round,
        "row_wipe": state.options.row_wipe,
        "game_to": state.options.game_to,
        "grids": grids,
        "discard_top": state.discard[-1] if state.discard else None,
        "deck_size": len(state.deck),
        "out": state.seats[state.out] if state.out is not None and result is None else None,
        "final_turns": [state.seats[i] for i in state.final_turns] if playing else [],
        "pending": pending_json(state),
        "totals": [
            {"seat": seat, "total": state.totals[i], "columns": state.columns_cleared[i], "rows": state.rows_cleared[i]}
            for i, seat in enumerate(state.seats)
        ],
        "round_result": round_result,
        "next": next_up(state),
        "finished": state.stage is Stage.OVER,
        "standings": (
            [{"seat": s.seat, "place": s.place, "score": s.score} for s in standings]
            if state.stage is Stage.OVER
            else []
        ),
    }


def public_state(state: State) -> dict[str, JSON]:
    return {
        "round": state.round,
        "stage": state.stage.value,
        "grids": {seat: public_rows(grid) for seat, grid in zip(state.seats, state.grids, strict=True)},
        "discard_top": state.discard[-1] if state.discard else None,
        "discard_size": len(state.discard),
        "deck_size": len(state.deck),
        "totals": dict(zip(state.seats, state.totals, strict=True)),
        "columns_cleared": dict(zip(state.seats, state.columns_cleared, strict=True)),
        "rows_cleared": dict(zip(state.seats, state.rows_cleared, strict=True)),
        "round_scores": [dict(zip(state.seats, scores, strict=True)) for scores in state.history],
        "out": state.seats[state.out] if state.out is not None else None,
        "final_turns": [state.seats[i] for i in state.final_turns],
        "pending": pending_json(state),
        "next": next_up(state),
    }


def seat_view(state: State, seat: str) -> dict[str, JSON]:
    """``seat``'s view: the public state, the slots' names in reading order, whether a card
    taken from the discard pile must be kept (ruling S1), and the card ``seat`` drew alone,
    which is its drawer's until placed or discarded (docs/rules/strike-gold.md 3.1).  No face-down value:
    the owner does not know its own (docs/rules/strike-gold.md 3.1)."""
    drawn = None
    if state.pending is not None and state.seats[state.current] == seat:
        drawn = {"value": state.pending.value, "source": state.pending.source.value}
    return {
        **public_state(state),
        "seat": seat,
        "slots": [[slot_name(r * COLUMNS + c) for c in range(COLUMNS)] for r in range(ROWS)],
        "discard_pick_must_keep": state.options.discard_pick_must_keep,
        "drawn": drawn,
    }
