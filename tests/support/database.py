"""Migrated databases for tests: SQLite in a temp dir, or a fresh PostgreSQL database.

``database_url`` is parametrised over both back ends; tests that take it run
twice.  The PostgreSQL databases are cloned from a template migrated once per
session, and the SQLite files are copies of one file migrated once per process
(:func:`migrated_sqlite`), so each test starts from an empty, fully migrated
schema without running the migrations again (that takes most of a second).
"""

from __future__ import annotations

import atexit
import itertools
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import make_engine, session_factory
from bot.store.migrate import upgrade
from tests.support.postgres import PostgresCluster

_COUNTER = itertools.count()
_MIGRATED: list[Path] = []
"""The SQLite file this process migrated once (empty until :func:`migrated_sqlite` first runs)."""


def migrated_sqlite(target: str | Path) -> str:
    """Make ``target`` (a SQLite file path that does not exist yet) a migrated, empty database;
    returns it as a string.

    It is a byte-for-byte copy of a database this process migrated with
    :func:`bot.store.migrate.upgrade` the first time it was asked (the log checkpointed
    into the file), so it is what ``upgrade(target)`` would make, a thousand times faster.
    Tests of the migrations themselves call ``upgrade``.
    """
    if not _MIGRATED or not _MIGRATED[0].exists():
        folder = Path(tempfile.mkdtemp(prefix="refmig-"))
        atexit.register(shutil.rmtree, folder, True)
        source = folder / "migrated.sqlite3"
        upgrade(str(source))
        connection = sqlite3.connect(source)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()  # the last connection: SQLite removes the log files
        _MIGRATED[:] = [source]
    shutil.copyfile(_MIGRATED[0], target)
    return str(target)


@pytest.fixture(scope="session")
def postgres_template(postgres: PostgresCluster) -> str:
    postgres.execute("CREATE DATABASE referee_template")
    upgrade(postgres.url("referee_template"))
    return "referee_template"


def fresh_postgres_database(postgres: PostgresCluster, template: str) -> str:
    name = f"t{next(_COUNTER)}"
    postgres.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
    return postgres.url(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database on each back end (on PostgreSQL dropped after the test, its
    connections ended: the cluster keeps no copy of every test's database)."""
    if request.param == "sqlite":
        yield migrated_sqlite(tmp_path / "test.sqlite3")
        return
    postgres: PostgresCluster = request.getfixturevalue("postgres")
    template: str = request.getfixturevalue("postgres_template")
    url = fresh_postgres_database(postgres, template)
    yield url
    postgres.execute(f"DROP DATABASE IF EXISTS {make_url(url).database} WITH (FORCE)")


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()
