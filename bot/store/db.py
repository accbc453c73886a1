"""Engine, session factory and the unit of work.

SQLite (a file path or ``sqlite:///...``) is the embedded default; any
SQLAlchemy URL works, e.g. ``postgresql+psycopg://user@host/db``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker


def database_url(target: str) -> str:
    """A SQLAlchemy URL for ``target``: a URL is kept, a plain path becomes SQLite."""
    if "://" in target:
        return target
    return f"sqlite:///{target}"


def without_password(target: str) -> str:
    """``target`` as it may be shown (an error, a log line): a URL's password becomes ``***``."""
    if "://" not in target or make_url(target).password is None:
        return target
    return make_url(target).render_as_string(hide_password=True)


def sqlite_file(target: str) -> Path | None:
    """The file of a SQLite database (a plain path or ``sqlite:///path``); None for a server or memory."""
    url = make_url(database_url(target))
    if not url.drivername.startswith("sqlite") or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


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
