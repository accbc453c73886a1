"""``referee turns``, ``referee outbox`` and ``referee export`` (bot/host/cli_queues.py) on a real SQLite database."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

from bot.core.games.stored import rules_of
from bot.core.messaging.outbox import OutboxDrain
from bot.core.turns import resolution as turns
from bot.host.cli import main
from bot.store.db import make_engine, session_factory
from tests.core.harness import Harness
from tests.core.test_shunt import BrokenRules
from tests.support.database import migrated_sqlite


def test_parked_turns_are_listed_and_requeued(tmp_path, monkeypatch, capsys):
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    engine = make_engine(str(database))
    sessions = session_factory(engine)
    harness = Harness(sessions, config=dataclasses.replace(Harness(sessions).config, turn_max_attempts=1))
    harness.golden_strider_game("aaa")
    monkeypatch.setattr(turns, "rules_of", lambda game: BrokenRules(rules_of(game)))
    harness.clock.advance(timedelta(hours=2))
    harness.service.resolve_due(harness.clock.now())
    monkeypatch.undo()
    rows = OutboxDrain(sessions).due("screen", harness.clock.now())
    OutboxDrain(sessions).park(rows[0].id, harness.clock.now(), "10003 Unknown Channel")
    engine.dispose()

    assert main(["--config", str(config), "turns", "list"]) == 0
    out = capsys.readouterr().out
    assert "1 parked turn(s)" in out and "aaa turn 0: 1 attempts" in out and "engine bug" in out
    assert main(["--config", str(config), "outbox", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["parked"][0]["reason"] == "10003 Unknown Channel"
    assert listing["waiting"]["email"] > 0
    assert main(["--config", str(config), "turns", "requeue", "aaa"]) == 0
    assert "aaa: requeued" in capsys.readouterr().out
    assert main(["--config", str(config), "turns", "requeue", "aaa"]) == 2
    assert "game aaa has no parked turn" in capsys.readouterr().err
    assert main(["--config", str(config), "export", "aaa"]) == 2
    assert "is not over; its seed is still secret" in capsys.readouterr().err
