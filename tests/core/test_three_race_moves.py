"""The three-race game by mail: the orders of the second deadline use the moves the report
names ("Next: turn 2, deadline 2: moves 3-4"), and the reply echoes them."""

from __future__ import annotations

from bot.core.model import commands as c
from tests.core.harness import SEATS, Harness

GAME = "tr1"
TEAMS = SEATS[:4]
SPLIT = "25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8 12"


def test_the_second_deadline_takes_moves_3_and_4(sessions) -> None:
    harness = Harness(sessions)
    harness.send("GM", c.CreateGame(GAME, "three-races", {}, "UTC", 60, False, "address"))
    for name in TEAMS:
        harness.send(name, c.JoinGame(GAME, name))
    harness.send("GM", c.StartGame(GAME))
    for name in TEAMS:
        harness.send(name, c.SubmitOrders(GAME, SPLIT))
    harness.send("GM", c.ProcessNow(GAME, 0, "all in"))
    first = harness.send("Ann", c.SubmitOrders(GAME, "move 1: 25=5 55=1 85=3\nmove 2: 25=10 55=9 85=8")).reply or ""
    assert "move 1: 25=5 55=1 85=3; move 2: 25=10 55=9 85=8" in first, first
    harness.send("GM", c.ProcessNow(GAME, 1, "all in"))
    reports = [r.body for r in harness.outbox("report") if r.row.turn_number == 1]
    assert reports and all("Next: turn 2, deadline 2: moves 3-4" in body for body in reports)

    sent = harness.send("Ann", c.SubmitOrders(GAME, "move 3: 25=4 55=6 85=7\n4: 25=2 55=11 85=12")).reply or ""
    assert "there is no move" not in sent, sent
    assert "move 3: 25=4 55=6 85=7; move 4: 25=2 55=11 85=12" in " ".join(sent.split()), sent
    # Ben sent nothing at deadline 1: the referee played his lowest cards (2 1 3, then 4 6 7)
    own = harness.send("Ben", c.SubmitOrders(GAME, "move 1: 25=5 55=9 85=8\nmove 2: 25=10 55=11 85=12")).reply or ""
    flat = " ".join(own.split())
    assert "move 3: 25=5 55=9 85=8; move 4: 25=10 55=11 85=12" in flat, own
    assert "move 1 read as move 3, the first move of this deadline" in flat, own
