"""kill -9 at random points while the bot ingests a mailbox and while it resolves a deadline crunch.

Real servers (Dovecot, aiosmtpd, SQLite file) and a real bot subprocess
(tests/faults/bot_runner.py) that SIGKILLs itself at a randomly chosen step
(seeded: the run is reproducible).  After each kill the next process carries
on from what is stored.  At the end: every order applied exactly once, every
turn resolved exactly once, every reply and report received exactly once at
the SMTP server (Message-IDs counted), the INBOX empty.
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from imapclient import IMAPClient
from sqlalchemy import func, select

from bench import world
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, InboundMessage, OutboxMessage, ProcessedEnvelope, TurnRecord
from tests.faults.bot_runner import CRUNCH, INGEST
from tests.support.database import migrated_sqlite
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GAMES = 4
KILLS_PER_PHASE = 11
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.IGNORECASE | re.MULTILINE)


def run_bot(database: Path, dovecot: DovecotServer, user: str, sink: SmtpSink, phase: str, point: str, calls: int,
            run: int) -> int:  # fmt: skip
    command = [sys.executable, "-m", "tests.faults.bot_runner", str(database), str(dovecot.port), user,
               str(sink.port), phase, point, str(calls), str(run)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if done.returncode not in (0, -signal.SIGKILL):
        raise AssertionError(f"the bot failed:\n{done.stderr[-3000:]}")
    return done.returncode


def phase(database, dovecot, user, sink, name: str, points: tuple[str, ...], rng: random.Random, runs: list[int],
          feed=lambda: None):  # fmt: skip
    """Random kills until KILLS_PER_PHASE happened (a run may end before its kill point), then a clean run.

    ``feed`` gives each run new work first (new mail)."""
    kills = 0
    for _ in range(3 * KILLS_PER_PHASE):
        if kills == KILLS_PER_PHASE:
            break
        feed()
        point = rng.choice(points)
        calls = 1 if point == "before-ack" else rng.randint(1, GAMES)
        code = run_bot(database, dovecot, user, sink, name, point, calls, len(runs))
        runs.append(code)
        kills += code == -signal.SIGKILL
    assert kills == KILLS_PER_PHASE, f"only {kills} runs died at their kill point"
    assert run_bot(database, dovecot, user, sink, name, "none", 0, len(runs)) == 0
    runs.append(0)
    return kills


def received_ids(sink: SmtpSink) -> Counter[bytes]:
    return Counter(m.group(1) for r in sink.messages() if (m := MESSAGE_ID.search(r.raw)))


def test_killed_at_random_points_everything_happens_exactly_once(dovecot: DovecotServer, tmp_path: Path):
    started = time.monotonic()
    rng = random.Random(14)
    database = tmp_path / "faults.sqlite3"
    migrated_sqlite(str(database))
    engine = make_engine(str(database))
    sessions = session_factory(engine)
    world.build(sessions, GAMES)
    user = dovecot.new_user("faults")
    client = IMAPClient(dovecot.host, port=dovecot.port, ssl=False, timeout=10)
    client.login(user, PASSWORD)

    def feed() -> None:  # six more order mails (orders sent again replace the last ones)
        start = len(mails)
        new = [world.order_mail(n % GAMES, (n // GAMES) % world.SEATS, GAMES * world.SEATS, n)
               for n in range(start, start + 6)]  # fmt: skip
        mails.extend(new)
        client.multiappend("INBOX", new)

    mails: list[bytes] = []
    sink = SmtpSink()
    sink.start()
    runs: list[int] = []
    try:
        kills = phase(database, dovecot, user, sink, "ingest", INGEST, rng, runs, feed)
        client.select_folder("INBOX")
        assert client.search(["ALL"]) == [], "every message acknowledged"
        with unit_of_work(sessions) as session:
            inbound = session.scalars(select(InboundMessage)).all()
            assert len(inbound) == len(mails) and {row.status for row in inbound} == {"done"}
            applied = Counter(s for s in session.scalars(select(ProcessedEnvelope.source_id)) if s.startswith("imap:"))
            assert len(applied) == len(mails) and set(applied.values()) == {1}, "every order applied exactly once"
            replies = set(
                session.scalars(
                    select(OutboxMessage.message_id).where(
                        OutboxMessage.kind == "reply", OutboxMessage.sent_at != world.START
                    )
                )
            )  # fmt: skip (the league's own set-up replies were settled, never sent)
        ids = received_ids(sink)
        assert len(replies) == len(mails)
        assert {i.decode() for i in ids} >= replies and set(ids.values()) == {1}, "every reply received once"

        kills += phase(database, dovecot, user, sink, "crunch", CRUNCH, rng, runs)
        with unit_of_work(sessions) as session:
            turns = Counter(session.scalars(select(TurnRecord.game_id)))
            numbers = {g: sorted(session.scalars(select(TurnRecord.turn_number).where(TurnRecord.game_id == g)))
                       for g in turns}  # fmt: skip
            games = session.scalar(select(func.count()).select_from(Game))
            unsent = session.scalar(
                select(func.count()).select_from(OutboxMessage).where(OutboxMessage.sent_at.is_(None))
            )
            all_ids = set(session.scalars(
                select(OutboxMessage.message_id).where(OutboxMessage.channel == "email", OutboxMessage.sent_at != world.START)
            ))  # fmt: skip
        assert games == GAMES and len(turns) == GAMES
        assert all(n == list(range(len(n))) for n in numbers.values()), "each turn resolved once, in order"
        assert sum(turns.values()) >= KILLS_PER_PHASE // 2
        ids = received_ids(sink)
        assert unsent == 0 and {i.decode() for i in ids} == all_ids, "every reply and report arrived"
        assert set(ids.values()) == {1}, f"sent twice: {[i for i, n in ids.items() if n > 1]}"
        assert kills >= 20
    finally:
        sink.close()
        client.logout()
        engine.dispose()
    print(
        f"\nkill -9: {kills} kills in {len(runs)} runs, {len(mails)} mails, {GAMES} games, "
        f"{len(received_ids(sink))} messages received once each, {time.monotonic() - started:.1f} s"
    )
