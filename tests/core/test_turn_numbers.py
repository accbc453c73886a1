"""One turn number for every game kind: the report's header and its "Next:" line, a
reminder, the status a GM reads (``referee gm status``) and the number ``referee gm
process --turn N`` accepts all name the same turn, the one the game's record keys it by.

A game's own words may count something else (Golden Strider's rounds, the three-race
game's deadlines and moves, Strike Gold's rounds), but never "turn" with another number.
"""

from __future__ import annotations

import random
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


def test_a_finished_game_shows_the_turn_it_ended_in_everywhere(sessions) -> None:
    """Once over, a game shows its last turn played (not the number a next turn would have had): on
    ``referee status``, on its calendar entry, and its board's picture names the last round run."""
    from bot.core.games.calendar_entry import deadline_entry
    from bot.core.games.stored import find_game, turn_shown
    from bot.core.views import GameViews
    from bot.host.status import gather, render
    from bot.pictures import draw
    from tests.support.stored import example_orders

    harness = Harness(sessions)
    started(harness, "golden-strider")
    views = GameViews(harness.sessions)
    rng = random.Random(3)
    last_title = ""
    for _ in range(200):
        view = views.game(GAME)
        if view.phase is None:
            break
        last_title = view.phase.title
        for seat in view.phase.owing:
            harness.send(seat, c.SubmitOrders(GAME, example_orders(harness.sessions, GAME, seat, rng)))
        harness.pass_deadline()
    assert views.game(GAME).status == "finished"
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, GAME)
        last = game.phase_number - 1  # turns 0 .. last were resolved
        assert turn_shown(game) == last
        entry = deadline_entry(game, harness.config, harness.clock.now())
        assert entry["turn"] == last and entry["uid"].startswith(f"deadline-{GAME}-0-{last}@")
    line = next(g for g in gather(harness.sessions).games if g.slug == GAME)
    assert line.turn == last
    assert f"finished  turn {last} " in render(gather(harness.sessions))
    final = [m for m in harness.outbox("report") if m.recipient == "public:g1" and m.data.get("final")]
    picture = draw("golden-strider", final[-1].data["board"])
    played = int(last_title.split()[-1])  # "round 22"
    assert f"after round {played} (race over)" in picture.alt, (picture.alt, last_title)


def test_a_game_ended_by_its_game_master_shows_the_turn_it_ended_in(sessions) -> None:
    from bot.core.games.stored import find_game, turn_shown

    harness = Harness(sessions)
    started(harness, "golden-strider")
    harness.setup_all(GAME)
    harness.pass_deadline()
    harness.send("GM", c.EndGame(GAME, "the club closes"))
    with unit_of_work(harness.sessions) as session:
        assert turn_shown(find_game(session, GAME)) == 1  # turn 1 was open; it never resolved
