"""Rolling a game back (``ROLLBACK``): a revealed seed never drives a game again.

A game's seed is secret until the game is over: its final report (or the game master's END) reveals it, with
the record every player can replay.  From the seed and the public orders anyone computes every card the game
ever hid: every seat's face-down cards, the order of the draw pile, the salt of every order commitment.  A
rollback of a game that is over would play on with all of that known, so it is refused, with the reason.
"""

from __future__ import annotations

import pytest

from bot.core.games.stored import ABANDONED, FINISHED, find_game
from bot.core.model import commands as c
from bot.store.db import unit_of_work
from tests.core.harness import Harness

SLUG = "sg1"
SEATS = ("Ann", "Ben", "Cat")


@pytest.fixture
def harness(sessions) -> Harness:
    """A Strike Gold game of three seats, its setup resolved at once (turn 0: one seat moves at a time)."""
    harness = Harness(sessions)
    created = harness.send("GM", c.CreateGame(SLUG, "strike-gold", {}, "UTC", 60, False, "address"))
    assert created.applied.results == ("created",), created.reply
    for name in SEATS:
        harness.send(name, c.JoinGame(SLUG, name))
    assert harness.send("GM", c.StartGame(SLUG)).applied.results == ("started",)
    for name in SEATS:
        harness.send(name, c.SubmitOrders(SLUG, "flip r1c1 r1c2"))
    assert status(harness)[2] == 1
    return harness


def status(harness: Harness) -> tuple[str, int, int]:
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, SLUG)
        assert game is not None
        return game.status, game.generation, game.phase_number


@pytest.mark.parametrize("abandon", [False, True])
def test_a_game_whose_seed_was_revealed_is_never_rolled_back(harness: Harness, abandon: bool) -> None:
    """The attack: END sg1 (the seed goes to every player), then ROLLBACK sg1 TO 0 would play the game on
    with that seed.  Refused, saying why; the game stays over, in the same line of records."""
    ended = harness.send("GM", c.EndGame(SLUG, "we stop here", abandon=abandon))
    assert ended.applied.results == ("ended",), ended.reply
    before = status(harness)
    assert before[0] == (ABANDONED if abandon else FINISHED)
    sent = harness.send("GM", c.RollBack(SLUG, 0, "one more go"))
    assert sent.applied.problems == ("seed_revealed",), sent.reply
    assert sent.reply is not None
    said = " ".join(sent.reply.split())
    assert "its seed was revealed" in said and "cannot be rolled back" in said, said
    assert status(harness) == before
    assert not [row for row in harness.outbox("rolled_back")]  # nobody was told of a rollback
