"""Housekeeping (bot/core/runtime/housekeeping.py): settled mail's raw bytes are kept no longer than the
retention, and gone from the SQLite file and its log once emptied (``secure_delete``)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from bot.core.basics.clock import SimulatedClock
from bot.core.intake.inbox import Inbox
from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.core.runtime.housekeeping import Housekeeping
from bot.core.runtime.service import GameService
from bot.store.db import make_engine, session_factory, truncate_log, unit_of_work
from bot.store.models import InboundMessage
from tests.support.database import migrated_sqlite

NOW = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)
RETENTION = timedelta(days=21)


def mail(marker: str) -> bytes:
    """A mail of many pages (its bytes overflow a SQLite page), ``marker`` all through it."""
    return b"From: ann@example.org\r\nSubject: orders\r\n\r\n" + f"{marker} keeps this line\r\n".encode() * 900


def test_raw_mail_older_than_the_retention_is_emptied_and_gone_from_the_file(tmp_path: Path):
    path = str(tmp_path / "kept.sqlite3")
    migrated_sqlite(path)
    engine = make_engine(path)
    sessions = session_factory(engine)
    try:
        with engine.connect() as connection:  # set on every connection, whatever SQLite's build defaults to
            assert connection.exec_driver_sql("PRAGMA secure_delete").scalar() == 1
        inbox = Inbox(sessions)
        old_done = inbox.store("email", "k1", None, mail("old-done-mail"), NOW - RETENTION - timedelta(hours=1))
        inbox.store("email", "k2", None, mail("old-waiting-mail"), NOW - RETENTION - timedelta(hours=1))
        recent = inbox.store("email", "k3", None, mail("recent-done-mail"), NOW - RETENTION + timedelta(hours=1))
        for row in (old_done, recent):
            inbox.mark_done(row.id, NOW, "accepted")
        truncate_log(engine)  # the mail is in the database file itself, as after three weeks of checkpoints
        assert b"old-done-mail" in Path(path).read_bytes()
        housekeeping = Housekeeping(sessions, RETENTION)
        assert housekeeping.run(NOW) == 1
        with unit_of_work(sessions) as session:
            kept = dict(session.execute(select(InboundMessage.source_key, InboundMessage.raw)).all())
        assert kept["k1"] == b"" and kept["k2"] == mail("old-waiting-mail") and kept["k3"] == mail("recent-done-mail")
        assert inbox.summary(old_done.id) is not None  # the row stays: who, when, what was done
        files = [Path(path), Path(f"{path}-wal")]
        held = b"".join(f.read_bytes() for f in files if f.exists())
        assert b"old-done-mail" not in held  # zeroed where it was (secure_delete), the log truncated
        assert b"recent-done-mail" in held and not Path(f"{path}-wal").stat().st_size
    finally:
        engine.dispose()


def test_the_deadline_worker_keeps_house_once_an_interval(sessions):
    clock = SimulatedClock(NOW)
    inbox = Inbox(sessions)
    runs: list[datetime] = []

    class Counted(Housekeeping):
        def run(self, now: datetime) -> int:
            runs.append(now)
            return super().run(now)

    worker = DeadlineWorker(GameService(sessions), clock, housekeeping=Counted(sessions, RETENTION))
    stored = inbox.store("email", "k1", None, b"Subject: hello\r\n\r\nPASSWORD gone\r\n", NOW)
    inbox.mark_done(stored.id, NOW, "accepted")
    worker.run_once_sync()
    clock.advance(timedelta(minutes=59))
    worker.run_once_sync()
    assert runs == [NOW]
    clock.advance(RETENTION)
    worker.run_once_sync()
    assert runs == [NOW, clock.now()] and inbox.raw(stored.id) == b""


def test_a_log_in_use_is_left_for_the_next_run_without_waiting_long(tmp_path: Path):
    path = str(tmp_path / "busy.sqlite3")
    migrated_sqlite(path)
    engine = make_engine(path)
    sessions = session_factory(engine)
    try:
        inbox = Inbox(sessions)
        inbox.store("email", "k1", None, mail("some-mail"), NOW)
        reader = engine.connect()
        reader.exec_driver_sql("BEGIN")
        reader.exec_driver_sql("SELECT count(*) FROM inbound_messages").all()  # a reader holds a snapshot
        inbox.store("email", "k2", None, mail("later-mail"), NOW)  # written after it: the log cannot be emptied
        started = time.monotonic()
        assert truncate_log(engine) is False
        assert time.monotonic() - started < 5  # not the 30 s busy timeout: the deadline worker runs it
        reader.rollback()
        reader.close()
        assert truncate_log(engine) is True and not Path(f"{path}-wal").stat().st_size
        with engine.connect() as connection:  # the connection went back to the pool with its busy timeout
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
    finally:
        engine.dispose()


def test_a_large_prune_goes_a_chunk_at_a_time(sessions):
    inbox = Inbox(sessions)
    for number in range(5):
        stored = inbox.store(
            "email", f"k{number}", None, f"Subject: {number}\r\n\r\nhi\r\n".encode(), NOW - RETENTION * 2
        )
        inbox.mark_done(stored.id, NOW, "accepted")
    assert inbox.prune_raw(NOW, RETENTION, chunk=2) == 5
    assert inbox.prune_raw(NOW, RETENTION, chunk=2) == 0
