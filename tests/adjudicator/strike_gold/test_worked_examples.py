"""docs/rules/strike-gold.md 3.3: every worked example of Strike Gold, by its id."""

from __future__ import annotations

import random
from types import SimpleNamespace

from adjudicator.games.strike_gold import StrikeGold
from adjudicator.games.strike_gold.state import Stage, State
from adjudicator.options import resolve_options
from adjudicator.turn import advance

FACE_DOWN = ("?1 ?2 ?3 ?4", "?5 ?6 ?7 ?8", "?9 ?10 ?11 ?12")


def test_SG_1_column_clear_by_placing(sg: SimpleNamespace) -> None:
    """SG-1: "P1 column c1 = [7, 7, ?3]. P1 draws 7 from the deck and plays keep(r3c1). The face-down 3
    is revealed and discarded. The column is now [7, 7, 7], so it clears. Discard pile after the turn,
    bottom to top: ..., 3, 7, 7, 7 (top 7). P1's cleared-column count goes up by 1 and c1 is removed." """
    state = sg.build(
        {"P1": sg.grid("7 ?1 ?2 ?4", "7 ?5 ?6 ?8", "?3 ?9 ?10 ?11"), "P2": sg.grid(*FACE_DOWN)},
        discard=(6,),
        deck_top=(7,),
    )
    result = sg.play(state, "draw deck, keep r3c1")
    after = result.state
    assert after.discard == (6, 3, 7, 7, 7)
    assert after.discard[-1] == 7
    assert after.columns_cleared == (1, 0)
    assert [row[0] for row in sg.cells(after, "P1")] == ["x", "x", "x"]
    assert any(e.kind == "clear" and "column 1" in e.text for e in result.events)
    assert result.report["discard_top"] == 7


def test_SG_2_column_clear_by_flipping(sg: SimpleNamespace) -> None:
    """SG-2: "P1 c2 = [4, ?4, 4]. P1 draws 11 from the deck and plays discard_flip(r2c2). The 11 is
    discarded, the 4 is revealed, and the column clears. Discard pile top after the turn: 4 (order 11, 4, 4, 4)." """
    state = sg.build(
        {"P1": sg.grid("?1 4 ?2 ?3", "?5 ?4 ?6 ?8", "?9 4 ?10 ?11"), "P2": sg.grid(*FACE_DOWN)},
        discard=(6,),
        deck_top=(11,),
    )
    after = sg.play(state, "draw deck, flip r2c2").state
    assert after.discard == (6, 11, 4, 4, 4)
    assert after.columns_cleared == (1, 0)
    assert [row[1] for row in sg.cells(after, "P1")] == ["x", "x", "x"]


def _sg4_state(sg: SimpleNamespace, **options: object) -> State:
    """P1 is out; P2 takes the last final turn with c4 = [5, 5, ?5]."""
    return sg.build(
        {
            "P1": sg.grid("1 2 3 4", "2 1 0 3", "0 0 -1 -2"),
            "P2": sg.grid("?1 ?2 ?3 5", "?4 ?6 ?7 5", "?8 ?9 ?10 ?5"),
        },
        discard=(6,),
        deck_top=(12,),
        current="P2",
        out="P1",
        options=options,
    )


def test_SG_4_face_down_cards_do_not_count(sg: SimpleNamespace) -> None:
    """SG-4: "c4 = [5, 5, ?5]. There is no clear until r3c4 is turned face up, and by default (S5)
    not at the end-of-round reveal either." """
    result = sg.play(_sg4_state(sg), "draw deck, flip r1c1")
    assert not any(e.kind == "clear" for e in result.events)
    lines = {line["seat"]: line for line in result.report["round_result"]["lines"]}
    assert lines["P2"]["raw"] == 1 + 2 + 3 + 5 + 4 + 6 + 7 + 5 + 8 + 9 + 10 + 5 == 65
    assert result.report["grids"][1]["rows"][2] == [8, 9, 10, 5]
    assert result.state.columns_cleared == (0, 0)
    assert lines["P1"]["score"] == 13


def test_SG_4_clear_on_final_reveal_option(sg: SimpleNamespace) -> None:
    """SG-4 with S5's option ``clear_on_final_reveal``: the reveal completes c4 = [5, 5, 5], which clears."""
    result = sg.play(_sg4_state(sg, clear_on_final_reveal=True), "draw deck, flip r1c1")
    lines = {line["seat"]: line for line in result.report["round_result"]["lines"]}
    assert lines["P2"]["raw"] == 65 - 15
    assert result.state.columns_cleared == (0, 1)
    assert [row[3] for row in result.report["grids"][1]["rows"]] == ["x", "x", "x"]


def test_SG_4_flipping_the_third_five_clears(sg: SimpleNamespace) -> None:
    """SG-4: "There is no clear until r3c4 is turned face up": turning it up in play clears the column."""
    state = sg.build({"P1": sg.grid("?1 ?2 ?3 5", "?4 ?6 ?7 5", "?8 ?9 ?10 ?5"), "P2": sg.grid(*FACE_DOWN)})
    after = sg.play(state, "draw deck, flip r3c4").state
    assert after.columns_cleared == (1, 0)
    assert after.discard[-3:] == (5, 5, 5)


def _sg5_state(sg: SimpleNamespace, **options: object) -> State:
    """P1 went out; P2 has had its final turn; P3's final turn (keep a 5 over its 9 in r1c1) is the last."""
    return sg.build(
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
        options=options,
    )


def test_SG_5_out_player_doubling_full_3_player_scoring(sg: SimpleNamespace) -> None:
    """SG-5: "P1 goes out. [...] Score 3 + 6 + 5 = 14. P2 [...] The reveal clears nothing. Score
    (-1) + (2+1+3) + (1+0+3) = 9. P3 [...] Score 8 + 9 + 3 = 20. [...] P1 is not the lowest (9 < 14),
    so P1 scores 28. Round scores: P1 28, P2 9, P3 20." """
    result = sg.play(_sg5_state(sg), "draw deck, keep r1c1")
    report = result.report
    assert report["kind"] == "round"
    lines = {line["seat"]: (line["raw"], line["score"]) for line in report["round_result"]["lines"]}
    assert lines == {"P1": (14, 28), "P2": (9, 9), "P3": (20, 20)}
    assert result.state.totals == (38, 29, 50)
    assert result.state.history == ((28, 9, 20),)
    assert report["grids"][2]["rows"] == [[5, 0, 2, 1], [4, 3, 0, 2], [1, 1, 0, 1]]
    assert report["grids"][1]["rows"] == [[0, 2, "x", 1], [0, 1, "x", 0], [-1, 3, "x", 3]]
    assert "14 doubled to 28" in report["round_result"]["note"]
    assert result.state.stage is Stage.SETUP and result.state.round == 2


def test_SG_5_out_player_scores_zero_options(sg: SimpleNamespace) -> None:
    """SG-5 under S3b: "out player scores 0" (seed flag, or out_penalty 'zero') gives P1 0; 'none' gives 14."""
    for options, expected in (
        ({"out_player_scores_zero": True}, 0),
        ({"out_penalty": "zero"}, 0),
        ({"out_penalty": "none"}, 14),
        ({"out_penalty": "double"}, 28),
    ):
        result = sg.play(_sg5_state(sg, **options), "draw deck, keep r1c1")
        scores = {line["seat"]: line["score"] for line in result.report["round_result"]["lines"]}
        assert scores == {"P1": expected, "P2": 9, "P3": 20}, options


def _sg11_state(sg: SimpleNamespace, **options: object) -> State:
    """Seats P1..P4; P2 is to move with one face-down card left (r3c4)."""
    return sg.build(
        {
            "P1": sg.grid(*FACE_DOWN),
            "P2": sg.grid("1 2 3 4", "5 6 7 8", "9 10 11 ?12"),
            "P3": sg.grid(*FACE_DOWN),
            "P4": sg.grid(*FACE_DOWN),
        },
        current="P2",
        options=options,
    )


def _final_turns(sg: SimpleNamespace, state: State) -> tuple[list[str], object]:
    """Play no-moves-received turns until the round ends; return who moved."""
    movers = []
    while sg.RULES.phase(state).kind.value == "decision":
        movers.append(sg.RULES.phase(state).owing[0])
        state = advance(sg.RULES, state, {}, random.Random(1)).state
    return movers, state


def test_SG_11_final_turn_order_with_the_option(sg: SimpleNamespace) -> None:
    """SG-11: "Seats P1..P4. P2 goes out. Default final turns: P3, P4, P1, then reveal. With 'out player
    takes final turn': P3, P4, P1, P2, then reveal. If P2 has no face-down cards on that final turn,
    discard_only is legal." """
    result = sg.play(_sg11_state(sg), "draw deck, flip r3c4")
    assert result.state.out == 1
    assert any(e.kind == "out" for e in result.events)
    movers, after = _final_turns(sg, result.state)
    assert movers == ["P3", "P4", "P1"]
    assert after.round == 2 and after.stage is Stage.SETUP

    result = sg.play(_sg11_state(sg, out_player_final_turn=True), "draw deck, flip r3c4")
    state = result.state
    movers = []
    for _ in range(3):
        movers.append(sg.RULES.phase(state).owing[0])
        state = advance(sg.RULES, state, {}, random.Random(1)).state
    assert movers == ["P3", "P4", "P1"]
    assert sg.RULES.phase(state).owing == ("P2",)
    assert "final turn" in sg.RULES.phase(state).title
    last = sg.play(state, "draw deck, discard")
    assert last.report["kind"] == "round"
    assert last.state.round == 2


def test_SG_12_first_player(sg: SimpleNamespace, rules: StrikeGold) -> None:
    """SG-12: "Round 1 reveals: P1 7+3 = 10, P2 12+(-2) = 10, P3 5+4 = 9. P1 and P2 tie. Default: the
    earliest seat, so P1 starts. Round 2 (one card each): P1 4, P2 11, P3 11, so P2 starts (earliest
    seat among the tied)." """
    deck = sg.stacked_deck({"P1": [7, 3, *[1] * 10], "P2": [12, -2, *[2] * 10], "P3": [5, 4, *[8] * 10]}, discard=6)
    options = resolve_options(rules.options(), {"deck": deck})
    state = rules.new_game(["P1", "P2", "P3"], options, random.Random(0))
    result = sg.setup(state, {seat: "flip r1c1 r1c2" for seat in ("P1", "P2", "P3")})
    assert rules.phase(result.state).owing == ("P1",)
    assert any(e.kind == "start" and "tied" in e.text for e in result.events)

    round2 = sg.build(
        {
            "P1": sg.grid("?4 ?1 ?1 ?1", "?1 ?1 ?1 ?1", "?1 ?1 ?1 ?0"),
            "P2": sg.grid("?11 ?2 ?2 ?2", "?2 ?2 ?2 ?2", "?2 ?2 ?2 ?0"),
            "P3": sg.grid("?11 ?3 ?3 ?3", "?3 ?3 ?3 ?3", "?3 ?3 ?3 ?0"),
        },
        stage=Stage.SETUP,
        round_number=2,
    )
    result = sg.setup(round2, {seat: "flip r1c1" for seat in ("P1", "P2", "P3")})
    assert rules.phase(result.state).owing == ("P2",)
