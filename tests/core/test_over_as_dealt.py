"""A game its deal already ends: START finishes it and tells everyone (bot/core/commands/hosting.py).

Dragon Stripes plays each turn's first card as the game is dealt (docs/rules/dragon-stripes.md 4.1),
so a deal whose first cards hold the third danger card ends the game before any turn: about one
two-player deal in three thousand.  Found by the state machine on PostgreSQL (a random seed per run):
START asserted an open turn, so the GM's START failed on every try and the game could never start.
"""

from __future__ import annotations

from adjudicator.record import read_record, verify
from bot.core.commands import hosting
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.turns.game_record import export_record
from bot.store.db import unit_of_work
from tests.core.harness import Harness

OVER_AS_DEALT = "ceaf59349c1e75e15758d4ed9508dac0"
"""A two-player Dragon Stripes seed whose deal draws all three danger cards among the first cards."""


class DealtSeed:
    @staticmethod
    def token_hex(nbytes: int) -> str:
        return OVER_AS_DEALT


def test_a_game_over_as_dealt_is_finished_told_and_replays(sessions, monkeypatch):
    monkeypatch.setattr(hosting, "secrets", DealtSeed)
    harness = Harness(sessions)
    harness.send("GM", c.CreateGame("ds1", "dragon-stripes", {}, "UTC", 60))
    for name in ("Ann", "Ben"):
        harness.send(name, c.JoinGame("ds1", name))
    started = harness.send("GM", c.StartGame("ds1"))
    assert started.applied.results == ("over_as_dealt",), started.reply
    assert "STARTED AND OVER ds1" in started.reply and "1. Ann" in started.reply, started.reply
    with unit_of_work(sessions) as session:
        game = find_game(session, "ds1")
        assert game is not None and game.status == "finished" and game.deadline_at is None
        record = export_record(session, game)
    assert verify(read_record(record)).ok  # the deal replays from the seed
    told = [m for m in harness.outbox() if m.template == "over_as_dealt"]
    assert {m.recipient for m in told} >= {"ann@example.org", "ben@example.org", "gm@example.org"}
    body = next(m.body for m in told if m.recipient == "ann@example.org")
    assert f"Seed revealed: {OVER_AS_DEALT}" in body and "1. Ann" in body, body
    assert max(len(line) for m in harness.outbox() for line in m.body.splitlines()) <= 78
    assert harness.pass_deadline() == []  # nothing left to resolve
