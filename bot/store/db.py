"""Engine, session factory and the unit of work.

SQLite (a file path or ``sqlite:///...``) is the embedded default; any
SQLAlchemy URL works, e.g. ``postgresql+psycopg://user@host/db``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import QueuePool


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
    """An engine for a URL or SQLite path; SQLite gets foreign keys, a busy timeout, the write-ahead
    log and ``secure_delete`` (what an update or delete removes is zeroed, not left in free space:
    a removed secret is not in the file)."""
    url = database_url(target)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


READER_BUSY_SECONDS = 5
"""How long a read-only connection waits for a busy SQLite file (a reader rarely waits at all: in WAL
mode readers never wait for the writer)."""


def make_reader_engine(target: str, connections: int) -> Engine:
    """An engine that can only read ``target``, with at most ``connections`` connections.

    For a process that must never write (the web pages): SQLite is opened with
    ``mode=ro`` and ``query_only``, so a write fails in the driver; PostgreSQL
    sessions start with ``default_transaction_read_only``.  A SQLite database
    in memory cannot be shared with another process and is refused.
    """
    file = sqlite_file(target)
    if file is not None:
        address = f"file:{quote(str(file.resolve()))}?mode=ro"

        def connect() -> sqlite3.Connection:
            return sqlite3.connect(address, uri=True, timeout=READER_BUSY_SECONDS, check_same_thread=False)

        engine = create_engine("sqlite://", creator=connect, poolclass=QueuePool, pool_size=connections, max_overflow=0)
        event.listen(engine, "connect", _sqlite_reader_pragmas)
        return engine
    url = database_url(target)
    if url.startswith("sqlite"):
        raise ValueError("a SQLite database in memory cannot be read by another process")
    return create_engine(
        url, pool_pre_ping=True, pool_size=connections, max_overflow=0,
        connect_args={"options": "-c default_transaction_read_only=on"},
    )  # fmt: skip


def _sqlite_reader_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA secure_delete=ON")
    cursor.close()


def truncate_log(engine: Engine, wait_ms: int = 200) -> bool:
    """On SQLite in WAL mode, copy the log into the database file and truncate it to nothing, so
    no older copy of a page (a row before its secret was removed) stays in it; whether it was.

    It waits at most ``wait_ms`` for other connections' readers and writer (not the 30 s busy
    timeout: the deadline worker runs it), and leaves a log still in use for the next time.
    Other databases: nothing (True)."""
    if engine.dialect.name != "sqlite":
        return True
    with engine.connect() as connection:
        if str(connection.exec_driver_sql("PRAGMA journal_mode").scalar()).lower() != "wal":
            return True
        waited = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
        try:
            connection.exec_driver_sql(f"PRAGMA busy_timeout={int(wait_ms)}")
            busy = connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").first()
        finally:
            connection.exec_driver_sql(f"PRAGMA busy_timeout={int(waited or 0)}")
            connection.commit()
        return busy is not None and not busy[0]


def relax_durability(connection: Connection) -> str | None:
    """Make ``connection``'s commits stop waiting for the disk; returns the statement that undoes it.

    Only for work where a commit that survives the process dying is enough
    (:class:`bot.core.messaging.outbox.SentMarker`).  SQLite in WAL mode (else unchanged):
    ``synchronous=NORMAL`` for this connection (a commit is in the WAL file at
    once, so a killed process loses nothing; an OS crash before the next sync
    may lose it).  PostgreSQL: ``synchronous_commit = off`` for this session
    (a crash of the server may lose the last 0.6 s of commits).  Other
    databases: unchanged (None).  The change is committed at once.
    """
    restore: str | None = None
    if connection.dialect.name == "sqlite":
        wal = str(connection.exec_driver_sql("PRAGMA journal_mode").scalar()).lower() == "wal"
        if wal:  # NORMAL is safe against a process crash only with the write-ahead log
            level = connection.exec_driver_sql("PRAGMA synchronous").scalar()
            connection.exec_driver_sql("PRAGMA synchronous=NORMAL")
            restore = f"PRAGMA synchronous={int(level if level is not None else 2)}"
    elif connection.dialect.name == "postgresql":
        connection.exec_driver_sql("SET synchronous_commit = off")
        restore = "RESET synchronous_commit"
    connection.commit()
    return restore


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded objects usable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def unit_of_work(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """One transaction: commit when the block ends normally, roll back if it raises."""
    with sessions() as session, session.begin():
        yield session
