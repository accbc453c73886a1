"""docs/rules/lautobus.md 5.3: every worked example of L'autobus, by its id."""

from __future__ import annotations

from types import SimpleNamespace

from adjudicator.games.lautobus import Lautobus
from adjudicator.rng import SETUP_TURN, rng_for


def test_LA_1_slipstream_keeps_the_card(la: SimpleNamespace) -> None:
    """LA-1: "P on 10, Q on 11, R on 13 (12 is empty). Cards: R 5, Q 4, P 4. [...] P keeps 4.
    Q's space ahead (12) is empty, so Q discards. R's space ahead (14) is empty, so R discards.
    Movement, leader first: R 13 -> 18, Q 11 -> 15, P 10 -> 14." """
    p, q, r = ("A", 1), ("B", 1), ("C", 1)
    state = la.state([(*p, 10, la.FULL), (*q, 11, la.FULL), (*r, 13, la.FULL)])
    result = la.play(state, {"A": "1: 4", "B": "1: 4", "C": "1: 5"})
    assert la.where(result.state) == {p: 14, q: 15, r: 18}
    assert la.hand(result.state, *p) == [1, 2, 3, 4, 5, 6, "zero", "sprint"]
    assert la.hand(result.state, *q) == [1, 2, 3, 5, 6, "zero", "sprint"]
    assert la.hand(result.state, *r) == [1, 2, 3, 4, 6, "zero", "sprint"]
    results = {(c["team"], c["rider"]): c["result"] for c in result.report["cyclists"]}
    assert results == {p: "kept", q: "discarded", r: "discarded"}


def test_LA_3_movement_order_lets_a_follower_overtake(la: SimpleNamespace) -> None:
    """LA-3: "X on 30, Y on 29. X plays 2, Y plays 3. X moves first to 32. Y's target 32 is
    occupied, so Y goes to 33 and now leads. The cards differ (3 != 2), so Y discards." """
    x, y = ("A", 1), ("B", 1)
    state = la.state([(*x, 30, la.FULL), (*y, 29, la.FULL)])
    result = la.play(state, {"A": "1: 2", "B": "1: 3"})
    assert la.where(result.state) == {x: 32, y: 33}
    assert 3 not in la.hand(result.state, *y)
    assert 2 not in la.hand(result.state, *x)
    assert [c["code"] for c in result.report["cyclists"]] == ["B1", "A1"]


def test_LA_3_matching_variant_follower_keeps(la: SimpleNamespace) -> None:
    """LA-3 matching variant: "both play 2. X -> 32, Y -> 31, and Y keeps its 2." """
    x, y = ("A", 1), ("B", 1)
    state = la.state([(*x, 30, la.FULL), (*y, 29, la.FULL)])
    result = la.play(state, {"A": "1: 2", "B": "1: 2"})
    assert la.where(result.state) == {x: 32, y: 31}
    assert 2 in la.hand(result.state, *y)
    assert 2 not in la.hand(result.state, *x)


def test_LA_5_sprint_plays_all_remaining_cards(la: SimpleNamespace) -> None:
    """LA-5: "S on 40 holds {1, 3, 6, SPRINT} (ZERO already used) and plays SPRINT. It moves
    1 + 3 + 6 = 10 to 50 (if 50 is empty) and now has no cards." """
    s, other = ("A", 1), ("B", 1)
    state = la.state([(*s, 40, [1, 3, 6, "sprint"]), (*other, 5, [1, 2])])
    result = la.play(state, {"A": "1: sprint", "B": "1: 1"})
    assert la.where(result.state)[s] == 50
    assert la.hand(result.state, *s) == []
    assert not result.state.finished
    line = next(c for c in result.report["cyclists"] if c["code"] == "A1")
    assert (line["card"], line["moved"], line["result"]) == ("sprint=10", 10, "all used")
    assert any(e.kind == "sprint" and "sprints 10: 40 -> 50" in e.text for e in result.events)


def test_LA_5_sprint_behind_a_sprint_keeps_nothing(la: SimpleNamespace) -> None:
    """LA-5: "Even if S is directly behind a cyclist who also played SPRINT, nothing is kept." """
    s, t, other = ("A", 1), ("B", 1), ("C", 1)
    state = la.state([(*s, 40, [1, 3, 6, "sprint"]), (*t, 41, [1, 3, 6, "sprint"]), (*other, 5, [1, 2])])
    result = la.play(state, {"A": "1: sprint", "B": "1: sprint", "C": "1: 1"})
    assert la.where(result.state)[t] == 51
    assert la.where(result.state)[s] == 50
    assert la.hand(result.state, *s) == [] and la.hand(result.state, *t) == []


def test_LA_11_default_start_layout_latin_square() -> None:
    """LA-11: "E (1-5): T1 T2 T3 T4 T5. D (7-11): T2 T3 T4 T5 T1. C (13-17): T3 T4 T5 T1 T2.
    B (19-23): T4 T5 T1 T2 T3. A (25-29): T5 T1 T2 T3 T4. The leader on space 29 is T4's." """
    seats = ["T1", "T2", "T3", "T4", "T5"]
    state = Lautobus().new_game(seats, {}, rng_for("LA-11", SETUP_TURN))
    team_at = {c.space: c.team for c in state.cyclists}
    expected = {
        range(1, 6): "T1 T2 T3 T4 T5",
        range(7, 12): "T2 T3 T4 T5 T1",
        range(13, 18): "T3 T4 T5 T1 T2",
        range(19, 24): "T4 T5 T1 T2 T3",
        range(25, 30): "T5 T1 T2 T3 T4",
    }
    for spaces, teams in expected.items():
        assert [team_at[s] for s in spaces] == teams.split()
    assert sorted(team_at) == [s for s in range(1, 30) if s % 6 != 0]
    assert max(team_at) == 29 and team_at[29] == "T4"
