"""Housekeeping: what is kept at rest is kept no longer than it should be.

Run by the deadline worker at most once an ``interval`` (an hour by
default), so it costs nothing on the hot paths:

* the raw bytes of settled inbound messages older than the retention
  (``inbound_raw_retention_days``, 21 by default) are emptied
  (:meth:`bot.core.intake.inbox.Inbox.prune_raw`): they are kept that long for
  replay and support, already without their secrets;
* on SQLite, the write-ahead log is checkpointed and truncated
  (``wal_checkpoint(TRUNCATE)``): a page's older copies in the log (a row as
  it was before its secret was removed) do not outlive the hour.  The
  database file itself is written with ``secure_delete`` (:mod:`bot.store.db`),
  so what a row held before an update is zeroed, not left in free space.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from bot.core.intake.inbox import Inbox
from bot.store.db import truncate_log

log = logging.getLogger(__name__)


class Housekeeping:
    """Prunes kept mail and truncates the database's log; see the module docstring."""

    def __init__(
        self, sessions: sessionmaker[Session], retention: timedelta, interval: timedelta = timedelta(hours=1)
    ) -> None:
        self._sessions = sessions
        self._inbox = Inbox(sessions)
        self.retention = retention
        self.interval = interval
        self._last: datetime | None = None

    def run_if_due(self, now: datetime) -> bool:
        """:meth:`run` when ``interval`` has passed since the last run (or never ran); whether it ran."""
        if self._last is not None and now - self._last < self.interval:
            return False
        self.run(now)
        return True

    def run(self, now: datetime) -> int:
        """Prune raw mail older than the retention, then truncate the log; returns the rows pruned."""
        self._last = now
        pruned = self._inbox.prune_raw(now, self.retention)
        if pruned:
            log.info("emptied the raw bytes of %d message(s) kept longer than %s", pruned, self.retention)
        bind = self._sessions.kw.get("bind")
        if bind is not None and not truncate_log(bind):
            log.info("the database's write-ahead log is in use: truncated at the next run")
        return pruned
