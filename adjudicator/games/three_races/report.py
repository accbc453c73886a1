"""The report data of the three-race game: public for everyone, private per team.

Public: each move's cards, reference card and movement, squares and places,
race results and points, and the cards played so far this cycle (the cards
played are public, docs/rules/three-races.md 2.1).  Private (``Resolution.private``): the team's
own split, the cards each of its runners still has to play this cycle, its
readjustments left and how its orders were applied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adjudicator.api import JSON
from adjudicator.games.three_races.plan import move_numbers
from adjudicator.games.three_races.resolve import MoveLine, places
from adjudicator.games.three_races.scoring import as_number, overall_places, points_text
from adjudicator.games.three_races.state import CARDS, CYCLE, HAND_SIZE, RACES, READJUSTMENTS, Race, State
from adjudicator.words import say


def _cards(cards: Sequence[int]) -> str:
    return " ".join(str(card) for card in cards)


def game_places(state: State) -> dict[str, int]:
    """The teams' places by points so far (seed rule 1, P3)."""
    totals = {seat: state.total(seat) for seat in state.seats}
    finished = [race.places for race in state.races if race.finished]
    return overall_places(totals, finished, state.options.overall_tie)


def _race_table(state: State, race: Race, lines: Sequence[MoveLine]) -> dict[str, JSON]:
    moves = [next((r for r in line.races if r.race == race.length), None) for line in lines]
    ranks = places(race)
    order = sorted(state.seats, key=lambda s: (ranks[s], state.seats.index(s)))
    rows = [
        {
            "seat": seat,
            "cards": [str(m.cards[seat]) if m else "" for m in moves],
            "moved": [(f"+{m.moved[seat]}" if m.moved[seat] else "-") if m else "" for m in moves],
            "square": race.squares[seat],
            "place": ranks[seat],
            "points": points_text(race.points[seat]) if race.finished else "",
        }
        for seat in order
    ]
    ran = any(m is not None for m in moves)
    return {
        "race": race.length,
        "movers": race.movers,
        "finished": race.finished,
        "finished_at": race.finished_at,
        "stopped": race.stopped,
        "ran": ran,
        "references": [str(m.reference) if m else "" for m in moves],
        "rows": rows,
    }


def _cycle(state: State) -> dict[str, JSON]:
    done = state.moves % CYCLE
    first = state.moves - done + 1
    rows = [
        {
            "seat": seat,
            "played": [
                say("finished") if race.finished else (_cards(race.played[seat]) or "-") for race in state.races
            ],
        }
        for seat in state.seats
    ]
    return {"first": first, "last": first + CYCLE - 1, "played": done, "left": CYCLE - done, "rows": rows}


def points_table(state: State) -> list[dict[str, JSON]]:
    ranks = game_places(state)
    order = sorted(state.seats, key=lambda s: (ranks[s], state.seats.index(s)))
    return [
        {
            "seat": seat,
            "races": [points_text(race.points[seat]) if race.finished else "-" for race in state.races],
            "total": points_text(state.total(seat)),
            "place": ranks[seat],
        }
        for seat in order
    ]


def deadline_report(state: State, deadline: int, lines: Sequence[MoveLine]) -> dict[str, JSON]:
    """Public data for one deadline's report (the template lays it out)."""
    return {
        "kind": "deadline",
        "deadline": deadline,
        "moves": [line.move for line in lines],
        "move_details": [
            {
                "move": line.move,
                "races": {
                    str(r.race): {
                        "reference": r.reference,
                        "cards": dict(r.cards),
                        "moved": dict(r.moved),
                        "squares": dict(r.squares),
                        "finished": r.finished,
                    }
                    for r in line.races
                },
            }
            for line in lines
        ],
        "races": [_race_table(state, race, lines) for race in state.races],
        "points": points_table(state),
        "cycle": _cycle(state),
        "finished": state.finished,
    }


def setup_report(state: State) -> dict[str, JSON]:
    return {
        "kind": "setup",
        "seats": list(state.seats),
        "moves_per_deadline": state.options.moves_per_deadline,
        "races": list(RACES),
    }


def private_report(state: State, seat: str, notes: Sequence[str] = ()) -> dict[str, JSON]:
    """One team's secret: its hands, the cards still to play this cycle, readjustments left."""
    team = state.team(seat)
    return {
        "hands": [
            {
                "race": race.length,
                "hand": _cards(team.hands[race.length]),
                "to_play": "" if race.finished else _cards(team.available(race.length)),
                "finished": race.finished,
            }
            for race in state.races
        ],
        "readjustments_left": READJUSTMENTS - team.readjustments,
        "notes": list(notes),
    }


def private_reports(state: State, notes: Mapping[str, Sequence[str]]) -> dict[str, Mapping[str, JSON]]:
    return {seat: private_report(state, seat, notes.get(seat, ())) for seat in state.seats}


def public_state(state: State) -> dict[str, JSON]:
    """``replay --json`` "state": nothing secret (no hands, no readjustments)."""
    return {
        "move": state.moves,
        "deadline": state.turn,
        "moves_per_deadline": state.options.moves_per_deadline,
        "races": {
            str(race.length): {
                "finished": race.finished,
                "finished_at": race.finished_at,
                "stopped": race.stopped,
                "squares": dict(race.squares),
                "places": places(race),
                "points": {seat: as_number(p) for seat, p in race.points.items()},
                "played_this_cycle": {seat: list(cards) for seat, cards in race.played.items()},
            }
            for race in state.races
        },
        "points": {seat: as_number(state.total(seat)) for seat in state.seats},
    }


def seat_view(state: State, seat: str) -> dict[str, JSON]:
    """``seat``'s view: the public state and its own team's secret (docs/rules/three-races.md 2.1): each
    runner's hand and the cards spent this cycle, the readjustments left; and what the
    coming phase asks for (the setup's split, or the moves of the deadline).  Never
    another team's cards."""
    team = state.team(seat)
    return {
        **public_state(state),
        "seat": seat,
        "setup": state.turn == 0,
        "cards": list(CARDS),
        "hand_size": HAND_SIZE,
        "cycle": CYCLE,
        "moves": list(move_numbers(state)),
        "running": list(state.running()),
        "hands": {str(race): list(team.hands.get(race, ())) for race in RACES},
        "spent": {str(race): sorted(team.spent.get(race, frozenset())) for race in RACES},
        "readjustments_left": READJUSTMENTS - team.readjustments,
    }
