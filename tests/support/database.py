"""Migrated databases for tests: SQLite in a temp dir, or a fresh PostgreSQL database.

``database_url`` is parametrised over both back ends; tests that take it run
twice.  The PostgreSQL databases are cloned from a template migrated once per
session, so each test starts from an empty, fully migrated schema.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import make_engine, session_factory
from bot.store.migrate import upgrade
from tests.support.postgres import PostgresCluster

_COUNTER = itertools.count()


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
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty database on each back end."""
    if request.param == "sqlite":
        target = str(tmp_path / "test.sqlite3")
        upgrade(target)
        return target
    postgres: PostgresCluster = request.getfixturevalue("postgres")
    template: str = request.getfixturevalue("postgres_template")
    return fresh_postgres_database(postgres, template)


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()
