"""Crash safety: a bot process killed with SIGKILL at each step of the intake loses nothing and applies nothing twice.

A real subprocess (tests/email/crash_runner.py) runs IMAP intake passes
against Dovecot and the world database, and kills itself at an injected
point: right after storing a fetched batch, after applying a message, after
marking one done (all three in the batch's one transaction, before its
commit), and just before moving the processed messages.  After each kill the
next process carries on from what is stored; at the end every order is
applied exactly once, every message has exactly one reply, and the server's
INBOX is empty.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.store.db import unit_of_work
from bot.store.models import InboundMessage, OrderSubmission, ProcessedEnvelope
from tests.email.mailboxes import append, folder_counts, orders
from tests.email.pipeline import message
from tests.email.world import PLAYERS, outbox_rows
from tests.support.dovecot import DovecotServer

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def run_bot(database: Path, server: DovecotServer, user: str, point: str, count: int = 1) -> int:
    command = [sys.executable, "-m", "tests.email.crash_runner", str(database), server.host, str(server.port), user,
               point, str(count)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    if done.returncode not in (0, -signal.SIGKILL):
        raise AssertionError(f"the bot failed:\n{done.stderr}")
    return done.returncode


def test_killed_at_every_step_every_order_is_applied_once(dovecot, imap_user, world_path: Path, world):
    status = message("STATUS demo\n", subject="status", message_id="<status@example.org>")
    append(dovecot, imap_user, *(orders(seat) for seat in PLAYERS), orders("Ann"), status)  # Ann's arrives twice

    killed = [
        run_bot(world_path, dovecot, imap_user, "after-store", 1),
        run_bot(world_path, dovecot, imap_user, "after-apply", 2),
        run_bot(world_path, dovecot, imap_user, "after-done", 2),
        run_bot(world_path, dovecot, imap_user, "before-ack", 1),
    ]
    assert killed == [-signal.SIGKILL] * 4, "each run must have died at its kill point"
    assert run_bot(world_path, dovecot, imap_user, "none") == 0

    assert folder_counts(dovecot, imap_user, "INBOX", "Processed") == {"INBOX": 0, "Processed": 8}
    with unit_of_work(world) as session:
        inbound = session.scalars(select(InboundMessage)).all()
        assert len(inbound) == 7 and {row.status for row in inbound} == {"done"}
        applied = [s for s in session.scalars(select(ProcessedEnvelope.source_id)).all() if s.startswith("imap:")]
        assert sorted(applied) == sorted(row.source_key for row in inbound)
        submissions = session.scalars(select(OrderSubmission)).all()
        assert sorted(row.seat_name for row in submissions) == sorted(PLAYERS)
        assert all(row.current for row in submissions)
    replies = [row for row in outbox_rows(world) if row.kind == "reply"]
    answered = sorted(str(row.context["message_id"]) for row in replies)
    expected = sorted([f"<{seat.lower()}-setup@example.org>" for seat in PLAYERS] + ["<status@example.org>"])
    assert answered == expected, "one reply per message, none twice"
