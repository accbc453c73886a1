"""The fixed-width report (golden files) and a whole game through the record replayer."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

from adjudicator.games.three_races.report import deadline_report, private_report
from adjudicator.games.three_races.resolve import MoveLine, RaceMove
from adjudicator.record import read_record, replay, replay_document
from bot.core.messaging.rendering import render_report_body
from tests.golden import assert_golden

GOLDEN = Path(__file__).parent / "golden"

PA1_RECORD = {
    "game": "three-races",
    "seed": "pa-1",
    "seats": ["Alice", "Bob", "Carol", "Dmitri"],
    "turns": [
        {
            "Alice": "25: 1 2 3 4 / 55: 5 6 7 9 / 85: 8 10 11 12",
            "Bob": "25: 1 3 4 6 / 55: 5 7 8 9 / 85: 2 10 11 12",
            "Carol": "25: 1 4 5 8 / 55: 2 6 7 9 / 85: 3 10 11 12",
            "Dmitri": "25: 1 2 4 5 / 55: 3 7 8 9 / 85: 6 10 11 12",
        },
        {
            "Alice": "move 1: 25=3 55=6 85=8\nmove 2 if Carol leads 25: 25=4 55=9\nmove 2: 25=1 55=5 85=10",
            "Bob": "move 1: 25=6 55=8 85=2",
            "Carol": "move 1: 25=8 55=2 85=3\nmove 2: 25=5 55=9 85=12",
        },
    ],
}


def check_golden(name: str, text: str) -> None:
    assert_golden(text, GOLDEN / name)


def test_golden_pa1_deadline_private_copy() -> None:
    """PA-1 cards at move 1 (Dmitri sends nothing and plays his lowest cards), a case for
    Alice's move 2; Alice's copy shows her secret cards and how her case was read."""
    played = replay(read_record(PA1_RECORD))
    turn = played.turns[1].resolution
    events = [e.text for e in turn.events]
    text = render_report_body("three-races", turn.report, events, "Alice", turn.private["Alice"])
    check_golden("pa1_deadline_alice.txt", text)
    public = render_report_body("three-races", turn.report, events)
    assert "Your cards" not in public and "5 6 7 9" not in public
    assert public in text.replace(text[text.index("\nYour cards") :], "\n")


def test_golden_race_finishing_with_shared_places(tr: SimpleNamespace) -> None:
    """P2 in the report: the 25 race finishes with 2nd/3rd shared (2.5 each), the 85 race had
    finished earlier, the 55 race goes on; the public copy."""
    state = tr.setup(tr.start(seats=("North", "East", "South", "West")), {})
    seats = state.seats
    r25, r55, r85 = state.races
    r85 = replace(
        r85,
        squares={"North": 86, "East": 70, "South": 64, "West": 80},
        finished_at=7,
        places={"North": 1, "East": 3, "South": 4, "West": 2},
        points={"North": Fraction(5), "East": Fraction(2), "South": Fraction(1), "West": Fraction(3)},
        played={s: () for s in seats},
    )
    r25 = replace(
        r25,
        squares={"North": 21, "East": 26, "South": 21, "West": 9},
        finished_at=10,
        places={"North": 2, "East": 1, "South": 2, "West": 4},
        points={"North": Fraction(5, 2), "East": Fraction(5), "South": Fraction(5, 2), "West": Fraction(1)},
        played={"North": (4, 2), "East": (1, 4), "South": (2, 3), "West": (1, 2)},
    )
    r55 = replace(
        r55,
        squares={"North": 30, "East": 41, "South": 33, "West": 38},
        played={"North": (5, 8), "East": (7, 6), "South": (6, 5), "West": (8, 7)},
    )
    state = replace(state, races=(r25, r55, r85), moves=10, turn=6)
    lines = (
        MoveLine(
            9,
            (
                RaceMove(
                    25,
                    3,
                    {"North": 4, "East": 1, "South": 2, "West": 3},
                    {"North": 1, "East": 0, "South": 0, "West": 0},
                    {"North": 18, "East": 26, "South": 21, "West": 9},
                    False,
                ),
                RaceMove(
                    55,
                    6,
                    {"North": 5, "East": 7, "South": 6, "West": 8},
                    {"North": 0, "East": 1, "South": 0, "West": 2},
                    {"North": 30, "East": 37, "South": 33, "West": 38},
                    False,
                ),
            ),
        ),
        MoveLine(
            10,
            (
                RaceMove(
                    25,
                    3,
                    {"North": 2, "East": 4, "South": 3, "West": 1},
                    {"North": 0, "East": 1, "South": 0, "West": 0},
                    {"North": 21, "East": 26, "South": 21, "West": 9},
                    True,
                ),
                RaceMove(
                    55,
                    5,
                    {"North": 8, "East": 6, "South": 5, "West": 7},
                    {"North": 3, "East": 1, "South": 0, "West": 2},
                    {"North": 30, "East": 41, "South": 33, "West": 38},
                    False,
                ),
            ),
        ),
    )
    report = deadline_report(state, 5, lines)
    events = ["the 25 race finished at move 10; points: East 5, North 2.5, South 2.5, West 1"]
    text = render_report_body("three-races", report, events, "North", private_report(state, "North"))
    check_golden("finish_north.txt", text)
    assert max(len(line) for line in text.splitlines()) <= 80


def test_whole_game_through_the_record(tr: SimpleNamespace) -> None:
    """A whole game from a record; ``replay --json`` has the keys the issue asks for."""
    record = dict(PA1_RECORD, turns=list(PA1_RECORD["turns"]))
    state = replay(read_record(record)).final_state
    rng = __import__("random").Random(11)
    while tr.rules.phase(state) is not None:
        texts = {seat: tr.rules.example_orders(state, seat, rng) for seat in state.seats}
        record["turns"].append(texts)
        state = tr.submit(state, texts).state
    document = replay_document(replay(read_record(json.loads(json.dumps(record)))))
    assert document["finished"] is True
    races = document["state"]["races"]
    assert set(races) == {"25", "55", "85"}
    for race in races.values():
        assert race["finished"] is True
        assert set(race["squares"]) == {"Alice", "Bob", "Carol", "Dmitri"}
    points = document["state"]["points"]
    assert sum(points.values()) == 33
    standings = document["standings"]
    assert [set(s) for s in standings] == [{"seat", "place", "score"}] * 4
    assert standings[0]["place"] == 1 and standings[0]["score"] == max(points.values())
    assert {s["seat"]: s["score"] for s in standings} == points
    assert document["turns"][0]["phase"] == "setup" and document["turns"][1]["title"] == "deadline 1: moves 1-2"
    public = json.dumps([turn["report"] for turn in document["turns"]]) + json.dumps(document["state"])
    assert "hand" not in public and "spent" not in public
