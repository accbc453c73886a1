"""The data of the turn report (rendered by ``templates/lautobus/report.txt.j2``).

The road is a strip of spaces, 20 to a line, each occupied space showing the
team's letter and the rider (``A3``), so groups are visible at a glance.
Then one line per cyclist in race order: card played, spaces moved, kept or
discarded, cards still held; then bonuses and (provisional) penalties.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence

from adjudicator.api import JSON
from adjudicator.games.lautobus.cards import Card, illegal_reason
from adjudicator.games.lautobus.resolve import Bonus, TurnLine
from adjudicator.games.lautobus.scoring import race_places, team_scores
from adjudicator.games.lautobus.state import Cyclist, State

ROAD_WIDTH = 20
"""Spaces per line of the road strip (3 columns each: within 80 columns)."""


def team_codes(seats: Sequence[str]) -> dict[str, str]:
    """One letter per team: the first letter of its seat name not taken yet
    (so seats A-E keep their own letters), else the first free letter A-Z."""
    codes: dict[str, str] = {}
    for seat in seats:
        letters = [ch for ch in seat.upper() if ch in string.ascii_uppercase]
        free = [ch for ch in (*letters, *string.ascii_uppercase) if ch not in codes.values()]
        codes[seat] = free[0]
    return codes


def road(cyclists: Sequence[Cyclist], codes: Mapping[str, str]) -> list[dict[str, JSON]]:
    """Lines of the road from the hindmost cyclist's line to the leader."""
    at = {c.space: f"{codes[c.team]}{c.rider}" for c in cyclists}
    first = (min(at) - 1) // ROAD_WIDTH * ROAD_WIDTH + 1
    lines: list[dict[str, JSON]] = []
    for start in range(first, max(at) + 1, ROAD_WIDTH):
        end = min(start + ROAD_WIDTH - 1, max(at))
        cells = [at.get(space, ".") for space in range(start, end + 1)]
        lines.append({"start": start, "end": end, "cells": cells, "empty": all(cell == "." for cell in cells)})
    return lines


def _labels(cards: Sequence[Card]) -> list[JSON]:
    return [card.label for card in cards]


def turn_report(before: State, after: State, lines: Sequence[TurnLine], bonuses: Sequence[Bonus]) -> dict[str, JSON]:
    """Plain JSON data for everyone (hands are public, docs/rules/lautobus.md 5.1)."""
    codes = team_codes(after.seats)
    places = race_places(_moved(before, lines))
    return {
        "kind": "turn",
        "turn": before.turn,
        "finished": after.finished,
        "legend": [{"code": codes[seat], "seat": seat} for seat in after.seats],
        "road": road(after.cyclists, codes),
        "cyclists": [
            {
                "place": places[(line.team, line.rider)],
                "code": f"{codes[line.team]}{line.rider}",
                "team": line.team,
                "rider": line.rider,
                "from": line.start,
                "to": line.end,
                "card": line.card_text,
                "asked": line.asked.label if line.asked is not None else None,
                "moved": line.end - line.start,
                "result": line.outcome.value,
                "cards": _labels(line.cards),
            }
            for line in lines
        ],
        "bonuses": [
            {
                "place": place,
                "code": f"{codes[b.team]}{b.rider}",
                "team": b.team,
                "rider": b.rider,
                "bonus": b.bonus,
                "from": b.start,
                "to": b.end,
            }
            for place, b in enumerate(bonuses, start=1)
        ],
        "teams": [
            {
                "place": t.place,
                "seat": t.seat,
                "code": codes[t.seat],
                "score": t.score,
                "riders": [
                    {"code": f"{codes[t.seat]}{rider}", "rider": rider, "place": place, "penalty": pen}
                    for rider, place, pen in t.riders
                ],
            }
            for t in team_scores(after)
        ],
        "cyclists_with_cards": sum(1 for c in after.cyclists if c.has_cards),
    }


def _moved(before: State, lines: Sequence[TurnLine]) -> list[Cyclist]:
    """The cyclists where the turn's movement left them (before any finishing bonus)."""
    ends = {(line.team, line.rider): line.end for line in lines}
    return [Cyclist(c.team, c.rider, ends[c.key], ()) for c in before.cyclists]


def public_state(state: State) -> dict[str, JSON]:
    places = race_places(state.cyclists)
    codes = team_codes(state.seats)
    return {
        "turn": state.turn,
        "finished": state.finished,
        "teams": [{"seat": seat, "code": codes[seat]} for seat in state.seats],
        "cyclists": [
            {
                "team": c.team,
                "rider": c.rider,
                "space": c.space,
                "place": places[c.key],
                "cards": [card.to_json() for card in c.cards],
            }
            for c in state.cyclists
        ],
    }


def seat_view(state: State, seat: str) -> dict[str, JSON]:
    """``seat``'s view: the public state (hands are public, docs/rules/lautobus.md 5.1: only each turn's
    choice is secret) and its own riders' cards with those it may play now (ruling L8;
    no special on the first turn, seed rule 10), for a screen's suggestions."""
    return {
        **public_state(state),
        "seat": seat,
        "riders": [
            {
                "rider": c.rider,
                "cards": [card.to_json() for card in c.cards],
                "playable": list(
                    dict.fromkeys(
                        card.label for card in c.cards if illegal_reason(c.cards, card, state.first_turn) is None
                    )
                ),
            }
            for c in state.cyclists
            if c.team == seat
        ],
    }
