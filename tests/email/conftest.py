"""Fixtures of the email tests: the world database, Dovecot, an SMTP sink.

The real servers are started by the tests (Dovecot once per session, an
aiosmtpd sink per test).  Without a ``dovecot`` binary the IMAP tests are
skipped, and under CI a skipped test fails the run (tests/conftest.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import make_engine, session_factory
from tests.email.world import build_world
from tests.support.database import migrated_sqlite
from tests.support.dovecot import DovecotServer


@pytest.fixture(scope="session")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite database holding the world of tests/email/world.py, built once."""
    path = tmp_path_factory.mktemp("world") / "world.sqlite3"
    migrated_sqlite(str(path))
    engine = make_engine(str(path))
    try:
        build_world(session_factory(engine))
    finally:
        engine.dispose()  # the last connection closing checkpoints the WAL into the file
    return path


@pytest.fixture
def world_path(world_template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "world.sqlite3"
    shutil.copyfile(world_template, path)
    return path


@pytest.fixture
def world(world_path: Path) -> Iterator[sessionmaker[Session]]:
    """A fresh copy of the world (SQLite)."""
    engine = make_engine(str(world_path))
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()


@pytest.fixture
def imap_user(dovecot: DovecotServer) -> str:
    """A user with a fresh, empty mailbox on the session's Dovecot."""
    return dovecot.new_user()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[str, sessionmaker[Session]]]:
    """A migrated SQLite database file: its path and a session factory (for ``referee serve``'s workers)."""
    path = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(path)
    engine = make_engine(path)
    try:
        yield path, session_factory(engine)
    finally:
        engine.dispose()
