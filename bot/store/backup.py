"""``referee db backup PATH``: a consistent copy of a live SQLite database.

SQLite's online backup API (:meth:`sqlite3.Connection.backup`) copies the
database page by page while the bot keeps running; the copy is one
consistent snapshot, WAL contents included.  PostgreSQL is refused with the
``pg_dump`` command to use instead (its own tool takes a consistent snapshot
without stopping the bot).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url

from bot.store.db import database_url


class BackupRefused(Exception):
    """This database is not backed up by ``referee db backup``; the message says what to do."""


def pg_dump_command(target: str) -> str:
    """The ``pg_dump`` line for a PostgreSQL URL (password left out: use ~/.pgpass or PGPASSWORD)."""
    url = make_url(database_url(target))
    parts = ["pg_dump", "--format=custom", "--file=referee-$(date +%F).dump"]
    if url.host:
        parts.append(f"--host={url.host}")
    if url.port:
        parts.append(f"--port={url.port}")
    if url.username:
        parts.append(f"--username={url.username}")
    parts.append(url.database or "referee")
    return " ".join(parts)


def backup(target: str, destination: Path) -> int:
    """Copy the SQLite database ``target`` to ``destination`` (a new file); returns its size in bytes."""
    url = make_url(database_url(target))
    if not url.drivername.startswith("sqlite"):
        raise BackupRefused(f"{url.get_backend_name()} is backed up with its own tool: {pg_dump_command(target)}")
    source_path = url.database
    if not source_path or source_path == ":memory:":
        raise BackupRefused("an in-memory database has nothing to back up")
    if not Path(source_path).exists():
        raise BackupRefused(f"there is no database at {source_path}")
    if destination.exists():
        raise BackupRefused(f"{destination} exists already: choose a new file name")
    partial = destination.with_name(destination.name + ".partial")
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
    try:
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            copy.close()
    finally:
        source.close()
    partial.rename(destination)
    return destination.stat().st_size
