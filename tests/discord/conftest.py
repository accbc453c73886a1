"""Fixtures for the Discord tests: the fake Discord, and a guard on discord.py's error log.

Pitfall 15 (TEST_INFRA.md): a parse error in a gateway event is logged, not
raised, and stops the client; so any ERROR logged by discord.py or the bot
fails the test.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

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
    fake = FakeDiscord()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
