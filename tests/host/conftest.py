"""Fixtures of the hosting tests: a migrated SQLite database with Maildir settings for `referee serve`."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.host.cli import main
from tests.discord.conftest import fake_discord  # noqa: F401  (the Discord tests' fixture, for test_full_serve)
from tests.support.smtp_sink import SmtpSink


def write_config(directory: Path, *lines: str) -> Path:
    """A settings file: SQLite in ``directory``, Maildir in and out, quick loops; ``lines`` appended."""
    config = directory / "referee.toml"
    config.write_text(
        "\n".join([
            "[referee]",
            f'database = "{directory / "referee.sqlite3"}"',
            'bot_address = "referee@example.com"',
            'mail_domain = "example.com"',
            "send_interval_seconds = 0.1",
            "intake_poll_seconds = 0.1",
            "deadline_check_seconds = 0.5",
            *lines,
            "[referee.maildir]",
            f'inbox = "{directory / "in"}"',
            f'outbox = "{directory / "out"}"',
        ]) + "\n"
    )  # fmt: skip
    return config


@pytest.fixture
def maildir_config(tmp_path: Path) -> Path:
    config = write_config(tmp_path)
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    return config


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """`referee serve` in-process installs handlers on the root logger: take them away afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


@pytest.fixture
def smtp_with_login() -> Iterator[SmtpSink]:
    """An aiosmtpd with AUTH, as a host's relay asks (the host and season tests)."""
    sink = SmtpSink(login=("referee@example.com", "smtp-pass-123"))
    sink.start()
    try:
        yield sink
    finally:
        sink.close()
