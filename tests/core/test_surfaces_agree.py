"""Every surface shows the same facts of a game: those of :func:`bot.core.games.facts.facts_of`.

Mail ``STATUS`` (and ``referee gm status``, the same command) and ``LIST``, ``referee status``, the web
index and game page, the live status board and the calendar entry are read in each situation a game
can be in (forming with seats left, full, running with a seat left by its player, every order in
with an early resolution planned, waiting in its grace for a late seat, paused until a time, ended,
abandoned) and compared with the facts: the status, the turn, the deadline (none while paused: the
old one will not hold), who owes orders, who has ordered and whom the turn waits for, and whether
the game takes a JOIN (a full one offers none).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from bot.channels.contract import Hints
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.facts import GameFacts, facts_of
from bot.core.games.stored import find_game
from bot.core.messaging.status_board import game_status
from bot.core.model import commands as c
from bot.core.views.pages import Pages
from bot.host.status import gather
from bot.store.db import unit_of_work
from bot.web.pages import index_html
from tests.core.harness import SEATS, Harness

SETUP = "cards 10 8 6 4 2"


def create(h: Harness, **settings: Any) -> None:
    sent = h.send("GM", c.CreateGame("g1", "golden-strider", {}, "UTC", 60, auth="address", **settings))
    assert sent.applied.results == ("created",), sent.reply


def forming_open(h: Harness) -> None:
    create(h, seats=6)
    for name in SEATS[:3]:
        h.send(name, c.JoinGame("g1", name))


def forming_full(h: Harness) -> None:
    create(h, seats=6)
    for name in SEATS:
        h.send(name, c.JoinGame("g1", name))


def running(h: Harness, **settings: Any) -> None:
    create(h, **settings)
    for name in SEATS:
        h.send(name, c.JoinGame("g1", name))
    assert h.send("GM", c.StartGame("g1")).applied.results == ("started",)


def a_seat_left(h: Harness) -> None:
    running(h)
    h.send("Ann", c.SubmitOrders("g1", SETUP))
    h.send("Ben", c.SubmitOrders("g1", SETUP))
    h.send("Cat", c.Resign("g1"))


def early_planned(h: Harness) -> None:
    running(h, early_delay="30m")
    for name in SEATS:
        h.send(name, c.SubmitOrders("g1", SETUP))


def in_grace(h: Harness) -> None:
    running(h, grace="2h")
    for name in SEATS[:-1]:
        h.send(name, c.SubmitOrders("g1", SETUP))
    h.clock.advance(timedelta(minutes=61))
    assert h.service.resolve_due(h.clock.now()) == []


def paused_until(h: Harness) -> None:
    running(h)
    h.send("Ann", c.SubmitOrders("g1", SETUP))
    h.clock.advance(timedelta(minutes=10))
    h.send("GM", c.PauseGame("g1", "a holiday", until="+1d"))


def ended(h: Harness) -> None:
    running(h)
    h.setup_all("g1")
    h.pass_deadline()
    h.send("GM", c.EndGame("g1", "the club closes"))


def abandoned(h: Harness) -> None:
    running(h)
    h.send("Ann", c.SubmitOrders("g1", SETUP))
    h.send("GM", c.EndGame("g1", "nobody plays", abandon=True))


SITUATIONS: dict[str, Callable[[Harness], None]] = {
    "forming_open": forming_open,
    "forming_full": forming_full,
    "a_seat_left": a_seat_left,
    "early_planned": early_planned,
    "in_grace": in_grace,
    "paused_until": paused_until,
    "ended": ended,
    "abandoned": abandoned,
}


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def item(h: Harness, command: c.Command, code: str) -> dict[str, Any]:
    reply = h.send("Zed", command).applied.reply
    assert reply is not None
    return next(i for i in reply.data["items"] if i["code"] == code)


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
def test_every_surface_shows_the_facts(sessions, situation: str) -> None:
    h = Harness(sessions)
    SITUATIONS[situation](h)
    with unit_of_work(h.sessions) as session:
        game = find_game(session, "g1")
        facts: GameFacts = facts_of(session, game)
        board = game_status(session, game)
        entry = deadline_entry(game, h.config, h.clock.now())
    open_turn = facts.turn if facts.phase is not None else None
    deadline = iso(facts.deadline)

    status = item(h, c.ShowStatus("g1"), "status")
    assert (status["status"], status["turn"], status["deadline"]) == (facts.status, open_turn, deadline), status
    assert (status["ordered"], status["waiting"]) == (list(facts.ordered), list(facts.waiting)), status
    assert (status["paused_since"], status["paused_until"]) == (iso(facts.paused_since), iso(facts.paused_until))
    assert status["resolves_at"] == iso(facts.resolves_at)

    listed = [g for g in item(h, c.ListGames(), "games")["games"] if g["game"] == "g1"]
    if facts.status != "finished":
        [row] = listed
        assert (row["status"], row["deadline"], row["joinable"]) == (facts.status, deadline, facts.joinable), row

    assert (board["status"], board["turn"], board["deadline"]) == (facts.status, open_turn, deadline), board
    assert (board["ordered"], board["waiting"]) == (list(facts.ordered), list(facts.waiting)), board
    assert board["paused_until"] == iso(facts.paused_until)

    pages = Pages(h.sessions)
    page = pages.game("g1")
    assert page is not None
    line = page.line
    assert (line.status, line.turn, line.joinable) == (facts.status, open_turn, facts.joinable), line
    assert (line.deadline.at if line.deadline else None) == facts.deadline, line
    assert (page.owing, page.ordered) == (facts.owing, facts.ordered)
    index = index_html(pages.club(), Hints(join=("JOIN {game}",)))
    assert ("JOIN g1" in index) == facts.joinable, "the index offers JOIN only to a game that takes one"

    [host_line] = [g for g in gather(h.sessions).games if g.slug == "g1"]
    soonest = min((m for m in (facts.deadline, facts.resolves_at) if m is not None), default=None)
    assert (host_line.status, host_line.turn, host_line.next_deadline) == (facts.status, facts.turn, soonest)
    assert host_line.paused_until == facts.paused_until

    if entry is not None:
        assert entry["turn"] == facts.turn and entry["cancelled"] == (facts.deadline is None), entry
        if facts.deadline is not None:
            assert entry["start"] == deadline


@pytest.mark.parametrize("situation", ["a_seat_left", "paused_until", "forming_full", "abandoned"])
def test_the_facts_themselves(sessions, situation: str) -> None:
    h = Harness(sessions)
    SITUATIONS[situation](h)
    with unit_of_work(h.sessions) as session:
        facts = facts_of(session, find_game(session, "g1"))
    if situation == "a_seat_left":
        assert facts.ordered == ("Ann", "Ben") and facts.waiting == ("Dan", "Eve", "Fay")
    if situation == "paused_until":
        assert facts.deadline is None and facts.paused_since == h.clock.now()
        assert facts.paused_until == h.clock.now() + timedelta(days=1)
    if situation == "forming_full":
        assert not facts.joinable
    if situation == "abandoned":
        assert facts.turn == 0 and facts.phase is None and facts.waiting == () and facts.deadline is None
