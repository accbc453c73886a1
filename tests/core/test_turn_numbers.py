"""One turn number for every game kind: the report's header and its "Next:" line, a
reminder, the status a GM reads (``referee gm status``) and the number ``referee gm
process --turn N`` accepts all name the same turn, the one the game's record keys it by.

A game's own words may count something else (Golden Strider's rounds, the three-race
game's deadlines and moves, Strike Gold's rounds), but never "turn" with another number.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import update

from adjudicator import registry
from bot.core.model import commands as c
from bot.store.db import unit_of_work
from bot.store.models import Game
from tests.core.harness import SEATS, Harness

KINDS = registry.kinds()
GAME = "g1"


def started(harness: Harness, kind: str) -> None:
    rules = registry.get_rules(kind)
    harness.send("GM", c.CreateGame(GAME, kind, {}, "UTC", 60, False, "address"))
    for name in SEATS[: rules.min_seats]:
        harness.send(name, c.JoinGame(GAME, name))
    assert "STARTED" in (harness.send("GM", c.StartGame(GAME)).reply or "")
    with unit_of_work(harness.sessions) as session:
        session.execute(update(Game).values(reminders="30m"))


def turns_named(pattern: str, text: str) -> set[int]:
    return {int(n) for n in re.findall(pattern, text)}


@pytest.mark.parametrize("kind", KINDS)
def test_every_place_names_the_same_turn(sessions, kind: str) -> None:
    harness = Harness(sessions)
    started(harness, kind)
    for number in (0, 1, 2):
        status = harness.send("GM", c.ShowStatus(GAME)).reply or ""
        assert turns_named(r"Now: turn (\d+)", status) == {number}, status
        for phase_word in re.findall(r"Now: turn \d+, (.*)", status):
            assert not re.search(r"\bturn \d", phase_word), status  # no second count of turns
        harness.clock.advance(timedelta(minutes=35))
        seen = len(harness.outbox("notice"))
        harness.service.remind_due(harness.clock.now())
        reminders = [r.body for r in harness.outbox("notice")[seen:] if r.template == "reminder"]
        assert reminders, f"turn {number}: no reminder"
        for body in reminders:
            assert turns_named(r"\bturn (\d+)", body) == {number}, body
        refused = harness.send("GM", c.ProcessNow(GAME, number + 1, "too far")).reply or ""
        assert "is not open" in refused and f"(turn {number} is)" in refused, refused
        seen = len(harness.outbox("report"))
        processed = harness.send("GM", c.ProcessNow(GAME, number, "testing")).reply or ""
        assert f"Turn {number} was resolved now" in processed, processed
        reports = [r.body for r in harness.outbox("report")[seen:] if r.template == "report"]
        assert reports, f"turn {number}: no report"
        for body in reports:
            header = body.splitlines()[0]
            assert turns_named(r"\bturn (\d+)", header) == {number}, header
            assert turns_named(r"(?m)^Next: turn (\d+)", body) == {number + 1}, body
            assert not re.search(rf"\bturn (?!{number}\b|{number + 1}\b)\d+", body, re.IGNORECASE), body
