"""Fixtures for the Discord tests: the fake Discord, and a guard on discord.py's error log.

discord.py's own behaviour: a parse error in a gateway event is logged, not
raised, and stops the client; so any ERROR logged by discord.py or the bot
fails the test.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import make_engine, session_factory
from tests.support.database import migrated_sqlite
from tests.support.fake_discord import FakeDiscord


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def no_logged_errors() -> Iterator[_Errors]:
    """Fail the test on any ERROR logged by discord.py or the bot (tests that expect one clear it)."""
    handler = _Errors()
    loggers = [logging.getLogger(name) for name in ("discord", "bot")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)
    messages = [f"{r.name}: {r.getMessage()}" for r in handler.records]
    assert not messages, messages


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """The fake Discord; after the test, every message the bot created or edited must have pinged nobody
    (``allowed_mentions`` with ``parse: []``, no roles, no users)."""
    fake = FakeDiscord()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
    unguarded = [(r.method, r.path, r.body) for r in fake.unguarded_mentions()]
    assert not unguarded, f"{len(unguarded)} messages sent that could ping: {unguarded[:3]}"


@pytest.fixture
def discord_endpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Restore discord.py's endpoints after a test that points them at the fake."""
    import discord
    import discord.gateway
    import discord.http

    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    )


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite file per run; each test gets a copy."""
    target = tmp_path_factory.mktemp("template") / "template.sqlite3"
    migrated_sqlite(str(target))
    return target


@pytest.fixture
def sqlite_sessions(sqlite_template: Path, tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    """A migrated, empty SQLite database (these tests run on one back end; the core's tests cover both)."""
    target = tmp_path / "discord.sqlite3"
    shutil.copy(sqlite_template, target)
    engine = make_engine(str(target))
    yield session_factory(engine)
    engine.dispose()
