"""The worked examples of docs/rules/dragon-stripes.md 4.3, one test each, named after their ids.

Defaults: v(k) = k, hoard 400, bounty = gems beside the knight.
"""

from __future__ import annotations

import pytest

from adjudicator.api import PhaseKind
from tests.adjudicator.dragon_stripes.scenario import RULES, cards, gems, lines, new, play, position


def test_DS_1_basic_run_and_hold():
    """DS-1: A has 40; F2 then F3: knight 2, beside 2 (hoard 398); knight 5, beside 7 (hoard 393).
    A holds and nobody takes over: A 47, hoard 393."""
    game = new("AB", deck="F2 F3 F1")
    assert (game.knight, game.beside, game.hoard) == (2, 2, 398)
    first = play(game, {"A": "reveal"})
    assert (first.state.knight, first.state.beside, first.state.hoard) == (5, 7, 393)
    held = play(first.state, {"A": "hold"})
    assert RULES.phase(held.state).owing == ("B",)
    done = play(held.state, {"B": "pass"})
    collect = lines(done, "collect")[0]
    assert (collect["seat"], collect["gems"], collect["hoard"]) == ("A", 47, 393)
    assert gems(done.state)["A"] == 47
    assert cards(done) == ["B:F1"]
    assert done.state.hoard == 392


@pytest.mark.parametrize(("start", "after"), [(40, 30), (41, 31), (43, 33)])
def test_DS_2_stop_loses_a_quarter_rounded_down(start, after):
    """DS-2: after F2, F3 the card is Stop: A loses floor(40/4) = 10, so 30; the 7 beside go back:
    hoard 393 + 7 + 10 = 410.  Variant: 41 loses 10 leaving 31; 43 loses 10 leaving 33."""
    table = position({"A": start, "B": 40}, active="A", knight=5, beside=7, seen="F2 F3", deck="S F1")
    hoard = table.hoard
    assert hoard == 393 - (start - 40)
    result = play(table, {"A": "reveal"})
    stop = lines(result, "card")[0]
    assert stop["card"] == "S"
    assert gems(result.state)["A"] == after
    assert start - after == 10
    assert stop["hoard"] == hoard + 7 + 10
    assert stop["beside"] == 0 and stop["knight"] == 0


def test_DS_2_from_a_new_game():
    """DS-2 played from the start of a game: A 30, hoard 410 after the stop."""
    game = new("AB", deck="F2 F3 S F1")
    result = play(play(game, {"A": "reveal"}).state, {"A": "reveal"})
    stop = lines(result, "card")[0]
    assert (stop["seat"], stop["card"], stop["gems"], stop["hoard"]) == ("A", "S", 30, 410)
    assert gems(result.state) == {"A": 30, "B": 40}


def test_DS_4_second_danger_card():
    """DS-4: C has 33 and 12 beside, and reveals Danger #2: C loses floor(33/2) = 16, so 17; the 12 go
    back to the hoard; doubling is now on and p = 1/2 for the rest of the game."""
    table = position({"A": 40, "B": 40, "C": 33}, active="C", knight=7, beside=12, seen="F3 D F4 F4 F3", deck="D F3 S")
    hoard = table.hoard
    result = play(table, {"C": "reveal"})
    danger = lines(result, "card")[0]
    assert danger["card"] == "D" and danger["seat"] == "C"
    assert danger["gems"] == 17
    assert danger["hoard"] == hoard + 16 + 12
    assert result.state.dangers == 2 and result.state.doubling
    # Next turn (A, after the turn owner C): F3 places 3 x 2 = 6 ...
    follow = lines(result, "card")[1]
    assert (follow["seat"], follow["card"], follow["knight"], follow["beside"]) == ("A", "F3", 3, 6)
    # ... and a later stop costs half: A loses 20 of 40.
    stopped = play(result.state, {"A": "reveal"})
    assert lines(stopped, "card")[0]["card"] == "S"
    assert gems(stopped.state)["A"] == 20


def test_DS_9_takeover():
    """DS-9: A reveals F4, F3, F2 (4 + 7 + 9 = 20 beside) and holds.  B takes over and pays 20: A 60,
    B 20.  B must reveal: F4 -> stripe 13, +13, 33 beside (hoard 367).  B holds, nobody takes over:
    B 53, hoard 367.  Net A +20, B +13."""
    game = new("AB", deck="F4 F3 F2 F4 F1")
    game = play(play(game, {"A": "reveal"}).state, {"A": "reveal"}).state
    assert (game.knight, game.beside, game.hoard) == (9, 20, 380)
    held = play(game, {"A": "hold"})
    phase = RULES.phase(held.state)
    assert phase.kind is PhaseKind.OFFER and phase.owing == ("B",) and phase.window == "offer"
    taken = play(held.state, {"B": "take"})
    assert gems(taken.state) == {"A": 60, "B": 20}
    assert cards(taken) == ["B:F4"]
    assert (taken.state.active_player.seat, taken.state.knight, taken.state.beside, taken.state.hoard) == (
        "B",
        13,
        33,
        367,
    )
    kept = play(play(taken.state, {"B": "hold"}).state, {"A": "pass"})
    collect = lines(kept, "collect")[0]
    assert (collect["seat"], collect["gems"], collect["hoard"]) == ("B", 53, 367)
    assert gems(kept.state)["A"] == 60


def test_reveal_is_compulsory_after_a_takeover_even_into_a_stop():
    """docs/rules/dragon-stripes.md 4.1 step 4: the taker must reveal; a stop then costs the taker a quarter of its gems."""
    table = position({"A": 40, "B": 40}, active="A", knight=9, beside=20, seen="F4 F3 F2", deck="S F1")
    held = play(table, {"A": "hold"})
    result = play(held.state, {"B": "take"})
    assert cards(result) == ["B:S", "B:F1"]
    # B paid 20 (20 left), lost 5 to the stop; the 20 beside went back; the next turn is B's (after A).
    assert gems(result.state) == {"A": 60, "B": 15}
    assert result.state.active_player.seat == "B"
