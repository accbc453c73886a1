"""A sixth game plugs in without touching the referee: registered for a test, played by ``referee demo``.

``tests/support/count_game`` is a whole game (its rules and its report
template); the test adds it to :mod:`adjudicator.registry` (the plain dict)
and lets the report lookup find its template beside it, then plays it through
the demo's real pipeline (envelopes, the service, the database, the deadline
worker, the outbox), which must finish the game, send its reports, and seal a
record that replays.  What a new game costs in files: its engine package, one
registry line, one report template, and optionally one Discord module
(``bot/discord/games/<kind>.py``); this one has none.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2
import pytest

from adjudicator import registry
from bot.core.messaging import rendering
from bot.discord.games.registry import SCREENS
from bot.host.demo import DemoOptions, run_demo
from tests.support.count_game import KIND, TEMPLATES, CountToTen


@pytest.fixture
def sixth_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count to Ten registered, and its template found before the referee's own (the lookup has one folder)."""
    monkeypatch.setitem(registry._GAMES, KIND, CountToTen())
    plain = rendering.environment.__wrapped__

    @functools.lru_cache(maxsize=16)
    def environment(form: str = "common", directory: Path = rendering.TEMPLATES_DIR) -> jinja2.Environment:
        env = plain(form, directory)
        assert env.loader is not None
        env.loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(TEMPLATES)), env.loader])
        return env

    monkeypatch.setattr(rendering, "environment", environment)


def test_the_sixth_game_is_registered_only_for_the_test() -> None:
    assert KIND not in registry.kinds() and KIND not in SCREENS


@pytest.mark.parametrize("via", ["direct", "email"])
def test_a_sixth_game_plays_to_its_end_through_the_demo(sixth_game: None, tmp_path: Path, via: str) -> None:
    lines: list[str] = []
    status = run_demo(DemoOptions(game=KIND, seed=3, directory=tmp_path, via=via), out=lines.append)
    text = "\n".join(lines)
    assert status == 0, text
    assert f"Demo: Count to Ten, {CountToTen.min_seats} players" in text
    reports = text.count("Count to Ten, after turn ")
    assert reports >= 4 and "The count is over." in text, text  # every turn's public report went out
    assert "Seed revealed: " in text and "FAIL" not in text
    assert (tmp_path / "record.json").is_file()
    checks: Any = [line for line in lines if line.startswith("  ok  ")]
    assert checks, text
