"""The Strike Gold report template: golden files, the private copy, and the fixed width."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

from adjudicator.games.strike_gold import StrikeGold
from adjudicator.turn import advance
from bot.core.messaging.rendering import render_report_body
from tests.golden import assert_golden

GOLDEN = Path(__file__).parent / "golden"
DOWN = ("?1 ?2 ?3 ?4", "?5 ?6 ?7 ?8", "?9 ?10 ?11 ?12")


def _check_golden(name: str, text: str) -> None:
    assert_golden(text, GOLDEN / name)


def test_golden_SG_5_round_end(sg: SimpleNamespace) -> None:
    """The round-end report of worked example SG-5: revealed grids, round scores with the doubling, totals."""
    state = sg.build(
        {
            "P1": sg.grid("x 1 3 2", "x 2 -1 2", "x 0 4 1"),
            "P2": sg.grid("0 2 x 1", "0 ?1 x 0", "-1 3 x ?3"),
            "P3": sg.grid("9 0 2 1", "?4 3 0 2", "1 1 ?0 1"),
        },
        discard=(8,),
        deck_top=(5,),
        current="P3",
        out="P1",
        totals={"P1": 10, "P2": 20, "P3": 30},
        columns={"P1": 1, "P2": 1},
    )
    result = sg.play(state, "draw deck, keep r1c1")
    text = render_report_body("strike-gold", result.report, [e.text for e in result.events])
    _check_golden("sg5_round_end.txt", text)


def test_golden_SG_1_move(sg: SimpleNamespace) -> None:
    """A move report (worked example SG-1, with a third player): face-down cards as ?, the cleared column as x."""
    state = sg.build(
        {
            "P1": sg.grid("7 ?1 ?2 ?4", "7 ?5 ?6 ?8", "?3 ?9 ?10 ?11"),
            "P2": sg.grid("?1 -2 ?3 ?4", "?5 ?6 ?7 12", "?9 ?10 ?11 ?12"),
            "P3": sg.grid("0 ?2 ?3 ?4", "?5 ?6 ?7 ?8", "?9 ?10 5 ?12"),
        },
        discard=(6,),
        deck_top=(7,),
        totals={"P1": 12, "P2": 40, "P3": 7},
    )
    result = sg.play(state, "draw deck; if 4 or less keep r2c2; else keep r3c1")
    text = render_report_body("strike-gold", result.report, [e.text for e in result.events])
    _check_golden("sg1_move.txt", text)


def test_the_drawn_card_is_in_the_drawers_copy_only(sg: SimpleNamespace) -> None:
    state = sg.build({"A": sg.grid(*DOWN), "B": sg.grid(*DOWN)}, discard=(6,), deck_top=(11,))
    result = sg.play(state, "draw deck")
    mine = render_report_body("strike-gold", result.report, [e.text for e in result.events], "A", result.private["A"])
    public = render_report_body("strike-gold", result.report, [e.text for e in result.events])
    theirs = render_report_body("strike-gold", result.report, [e.text for e in result.events], "B", None)
    assert "You drew 11 from the deck (shown to you only)." in mine
    assert "11" not in public and "11" not in theirs
    assert "Next: A has drawn a card and decides" in public


def test_reports_fit_a_mail_client_with_eight_players(rules: StrikeGold) -> None:
    seats = [f"A very long player name {i}" for i in range(8)]
    state = rules.new_game(seats, {"row_wipe": True}, random.Random(4))
    rng = random.Random(4)
    kinds = set()
    for _ in range(120):
        phase = rules.phase(state)
        if phase is None:
            break
        orders = {s: rules.parse_orders(state, s, rules.example_orders(state, s, rng)).orders for s in phase.owing}
        result = advance(rules, state, orders, random.Random(1))
        kinds.add(result.report["kind"])
        text = render_report_body("strike-gold", result.report, [e.text for e in result.events], None, None)
        assert max(len(line) for line in text.splitlines()) <= 78
        assert (
            "1 A very l~" in text
            and "Who is who:\n  1 = A very long player name 0   2 = A very long player name 1" in text
        )
        state = result.state
    assert {"setup", "move"} <= kinds


def test_final_report_shows_the_result(sg: SimpleNamespace) -> None:
    state = sg.build(
        {"A": sg.grid("1 2 3 4", "0 0 0 0", "0 0 0 0"), "B": sg.grid("?0 2 3 -1", "1 0 0 0", "0 1 2 2")},
        deck_top=(0,),
        current="B",
        out="A",
        totals={"A": 45},
        options={"game_to": 50},
    )
    result = sg.play(state, "draw deck, flip r1c1")
    text = render_report_body("strike-gold", result.report, [e.text for e in result.events])
    assert "Final totals (game to 50):" in text
    assert "Result:\n   1. B                  10\n   2. A                  55\n" in text
