"""Engine, session factory and the unit of work.

SQLite (a file path or ``sqlite:///...``) is the embedded default; any
SQLAlchemy URL works, e.g. ``postgresql+psycopg://user@host/db``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


def database_url(target: str) -> str:
    """A SQLAlchemy URL for ``target``: a URL is kept, a plain path becomes SQLite."""
    if "://" in target:
        return target
    return f"sqlite:///{target}"


def make_engine(target: str) -> Engine:
    """An engine for a URL or SQLite path; SQLite gets foreign keys and a busy timeout."""
    url = database_url(target)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded objects usable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def unit_of_work(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """One transaction: commit when the block ends normally, roll back if it raises."""
    with sessions() as session, session.begin():
        yield session
