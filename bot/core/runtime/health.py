"""The last error of each supervised worker, kept in the database for ``referee status``.

:data:`current_worker` names the worker whose task is running: the
supervisor sets it in each worker's task (``asyncio.to_thread`` copies it into
the worker's threads), so a log record knows which worker wrote it.
:class:`WorkerErrorLog` is a logging handler that keeps each worker's last
WARNING-or-worse line with :func:`record_worker_error`.  It queues the line and
writes it from its own thread, because the record may be logged inside a
transaction that holds SQLite's write lock.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import unit_of_work
from bot.store.models import WorkerHealth

current_worker: ContextVar[str | None] = ContextVar("current_worker", default=None)
MAX_ERROR = 2000
ROUTINE_LOGGERS = frozenset({"bot.core.commands.pipeline"})
"""Loggers whose warnings are routine (a command refused, a wrong password): logged, never a worker's error."""


@dataclass(frozen=True)
class WorkerError:
    """One worker's last error as the host sees it."""

    worker: str
    at: datetime
    error: str


def record_worker_error(sessions: sessionmaker[Session], name: str, at: datetime, error: str) -> None:
    """Keep ``error`` as ``name``'s last error (one row per worker, replaced)."""
    with unit_of_work(sessions) as session:
        row = session.get(WorkerHealth, name)
        if row is None:
            session.add(WorkerHealth(name=name, error_at=at, error=error[:MAX_ERROR]))
        else:
            row.error_at, row.error = at, error[:MAX_ERROR]


def worker_health(sessions: sessionmaker[Session]) -> list[WorkerError]:
    """Every worker's last error, by worker name."""
    with unit_of_work(sessions) as session:
        rows = session.query(WorkerHealth).order_by(WorkerHealth.name).all()
        return [WorkerError(r.name, r.error_at, r.error) for r in rows]


class WorkerErrorLog(logging.Handler):
    """Records the WARNING-or-worse lines a worker logs (see the module docstring); ``close`` flushes."""

    def __init__(self, sessions: sessionmaker[Session], level: int = logging.WARNING) -> None:
        super().__init__(level)
        self._sessions = sessions
        self._queue: queue.Queue[tuple[str, datetime, str] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._write, name="worker-health", daemon=True)
        self._thread.start()

    def emit(self, record: logging.LogRecord) -> None:
        name = getattr(record, "worker", None) or current_worker.get()
        if name is None or threading.current_thread() is self._thread:
            return
        if record.levelno < logging.ERROR and record.name in ROUTINE_LOGGERS:
            return  # a refused command or a wrong password: the sender's mistake, answered in the reply
        text = f"{record.levelname} {record.getMessage()}"
        self._queue.put((str(name), datetime.fromtimestamp(record.created, UTC), text))

    def _write(self) -> None:
        while (item := self._queue.get()) is not None:
            with contextlib.suppress(Exception):  # the database being away must not break the logs
                record_worker_error(self._sessions, *item)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)
        super().close()
