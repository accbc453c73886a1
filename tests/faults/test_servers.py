"""Faults of the servers around the bot, under load: SMTP refusing then away then back, an engine
raising on one game's turn, the SQLite database write-locked by another connection, the IMAP
server dropping the connection mid-fetch and restarting.  Real servers, real database files."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError
from sqlalchemy import func, select

import bot.core.runtime.intake_runner as intake_module
import bot.core.turns.resolution as turns
from bench import world
from bot.core.basics.clock import SimulatedClock
from bot.core.games.stored import rules_of
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.messaging.outbox import OutboxDrain
from bot.email.imap import ImapConfig, ImapIntakeLoop, ImapMailbox
from bot.email.intake import Intake
from bot.email.mail_reader import MailReader
from bot.email.processor import MailProcessor, ReplyLimit
from bot.email.render import MailIdentity
from bot.email.smtp import SmtpConfig, SmtpTransport, TransportUnavailable
from bot.email.transport import MailSender
from bot.email.understand import IntakePolicy
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, InboundMessage, ProcessedEnvelope, TurnRecord
from tests.core.test_shunt import BrokenRules
from tests.support.database import migrated_sqlite
from tests.support.dovecot import PASSWORD, DovecotServer, dovecot_binary
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.IGNORECASE | re.MULTILINE)
DUE = world.START + timedelta(hours=49)


def league(tmp_path: Path, games: int):
    database = tmp_path / "league.sqlite3"
    migrated_sqlite(str(database))
    engine = make_engine(str(database))
    sessions = session_factory(engine)
    world.build(sessions, games)
    return database, engine, sessions


def ids_at(sink: SmtpSink) -> Counter[bytes]:
    return Counter(m.group(1) for r in sink.messages() if (m := MESSAGE_ID.search(r.raw)))


@pytest.mark.parametrize("connections", [1, 2], ids=["one-session", "two-sessions"])
def test_smtp_refusing_then_away_then_back_every_report_arrives_once(tmp_path: Path, connections: int):
    _database, engine, sessions = league(tmp_path, 12)
    sink = SmtpSink()
    sink.start()
    try:
        clock = SimulatedClock(DUE)
        assert len(world.service_for(sessions).resolve_due(clock.now())) == 12
        drain = OutboxDrain(sessions)
        sender = MailSender(drain, SmtpTransport(SmtpConfig(host=sink.host, port=sink.port, security="none")),
                            clock, MailIdentity(world.REFEREE), batch=25, connections=connections)  # fmt: skip
        expected = drain.unsent_count("email")
        assert expected == 12 * 9
        sink.defer.update(world.address(n) for n in range(12 * world.SEATS))  # 450 for every player
        sink.defer.add(world.GM)
        first = asyncio.run(sender.drain_all())
        assert first.sent == 0 and first.failed == expected and drain.parked() == [], "4xx: retried, never parked"
        sink.stop()  # and then away
        clock.advance(timedelta(minutes=5))
        with pytest.raises(TransportUnavailable):
            asyncio.run(sender.drain_all())
        assert drain.unsent_count("email") == expected, "nothing marked while the server is away"
        sink.defer.clear()
        sink.start()  # back
        clock.advance(timedelta(minutes=5))
        assert asyncio.run(sender.drain_all()).sent == expected
        assert asyncio.run(sender.drain_all()).sent == 0
        ids = ids_at(sink)
        assert len(ids) == expected and set(ids.values()) == {1}
    finally:
        sink.close()
        engine.dispose()


def test_an_engine_that_raises_on_one_game_parks_that_turn_and_every_other_game_resolves(tmp_path, monkeypatch):
    _database, engine, sessions = league(tmp_path, 40)
    try:
        with unit_of_work(sessions) as session:
            broken = session.scalar(select(Game.id).where(Game.slug == "g17"))
        monkeypatch.setattr(turns, "rules_of", lambda game: BrokenRules(rules_of(game)) if game.id == broken
                            else rules_of(game))  # fmt: skip
        service = world.service_for(sessions, turn_max_attempts=2, turn_retry_seconds=30)
        resolved = service.resolve_due(DUE)
        assert len(resolved) == 39 and ("g17", 0) not in resolved
        assert service.resolve_due(DUE + timedelta(minutes=1)) == [], "the second failure parks the turn"
        with unit_of_work(sessions) as session:
            game = session.get_one(Game, broken)
            assert game.turn_parked_at is not None and game.turn_failures == 2
            assert session.scalar(select(func.count()).select_from(TurnRecord)) == 39
            assert session.scalar(select(func.count()).select_from(TurnRecord).where(TurnRecord.game_id == broken)) == 0
        assert service.resolve_due(DUE + timedelta(hours=1)) == [], "parked: not retried"
    finally:
        engine.dispose()


def intake_for(sessions, port: int, user: str, reader_processes: int = 0) -> ImapIntakeLoop:
    clock = SimulatedClock(world.START + timedelta(hours=1))
    policy = IntakePolicy(own_addresses=frozenset({world.REFEREE}))
    processor = MailProcessor(
        Inbox(sessions), world.service_for(sessions), clock, policy, ReplyBudget(sessions), ReplyLimit()
    )
    config = ImapConfig(host="127.0.0.1", port=port, security="none", user=user, password=PASSWORD, timeout=10)
    return ImapIntakeLoop(config, Intake(processor, reader=MailReader(policy, reader_processes)))


def fill(dovecot: DovecotServer, user: str, count: int, games: int) -> None:
    client = IMAPClient(dovecot.host, port=dovecot.port, ssl=False, timeout=10)
    client.login(user, PASSWORD)
    client.multiappend("INBOX", [world.order_mail(n % games, (n // games) % 8, games * 8, n) for n in range(count)])
    client.logout()


def inbox_left(dovecot: DovecotServer, user: str) -> int:
    client = IMAPClient(dovecot.host, port=dovecot.port, ssl=False, timeout=10)
    client.login(user, PASSWORD)
    try:
        return len(client.select_folder("INBOX") and client.search(["ALL"]))
    finally:
        client.logout()


def applied_once(sessions, count: int) -> None:
    with unit_of_work(sessions) as session:
        applied = Counter(s for s in session.scalars(select(ProcessedEnvelope.source_id)) if s.startswith("imap:"))
        inbound = session.scalars(select(InboundMessage)).all()
    assert len(applied) == count and set(applied.values()) == {1}
    assert len(inbound) == count and {r.status for r in inbound} == {"done"}


def test_the_database_locked_for_a_while_the_intake_waits_and_acknowledges_only_what_is_stored(
    dovecot: DovecotServer, tmp_path: Path
):
    database, engine, sessions = league(tmp_path, 4)
    user = dovecot.new_user("locked")
    fill(dovecot, user, 60, 4)
    try:
        locker = sqlite3.connect(database, timeout=30)
        locker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        loop = intake_for(sessions, dovecot.port, user)
        outcome: dict[str, object] = {}

        def one_pass() -> None:
            started = time.monotonic()
            outcome["result"] = loop.run_once()
            outcome["seconds"] = time.monotonic() - started

        worker = threading.Thread(target=one_pass)
        worker.start()
        time.sleep(2.0)
        assert worker.is_alive(), "the pass waits for the lock"
        assert inbox_left(dovecot, user) == 60, "nothing acknowledged before it is stored"
        locker.rollback()
        locker.close()
        worker.join(60)
        assert not worker.is_alive() and float(outcome["seconds"]) >= 2.0  # type: ignore[arg-type]
        while loop.run_once().acknowledged:
            pass
        assert inbox_left(dovecot, user) == 0
        applied_once(sessions, 60)
    finally:
        engine.dispose()


@pytest.mark.parametrize("reader_processes", [0, 1], ids=["read-inline", "reader-process"])
def test_the_imap_server_drops_the_connection_mid_fetch_and_restarts(tmp_path, monkeypatch, reader_processes):
    binary = dovecot_binary()
    if binary is None:
        pytest.skip("Dovecot is not installed (apt-get install dovecot-imapd)")
    dovecot = DovecotServer(binary)  # its own server: this test kills it
    dovecot.start()
    _database, engine, sessions = league(tmp_path, 4)
    user = dovecot.new_user("dropped")
    fill(dovecot, user, 120, 4)
    original = ImapMailbox.read_many
    calls = 0

    def dropping(self: ImapMailbox, refs, max_bytes):  # the second batch of the first pass: the server goes away
        nonlocal calls
        calls += 1
        if calls == 2:
            dovecot.restart()
        return original(self, refs, max_bytes)

    monkeypatch.setattr(ImapMailbox, "read_many", dropping)
    monkeypatch.setattr(intake_module, "FETCH_BATCH", 50)  # 120 mails: three batches, the drop in the second
    try:
        loop = intake_for(sessions, dovecot.port, user, reader_processes)
        with pytest.raises((OSError, IMAPClientError)):
            loop.run_once()
        with unit_of_work(sessions) as session:
            stored = session.scalar(select(func.count()).select_from(InboundMessage))
        assert 0 < stored < 120, "the first batch was stored before the drop"
        assert inbox_left(dovecot, user) == 120, "and nothing acknowledged"
        for _ in range(10):
            if not loop.run_once().acknowledged and inbox_left(dovecot, user) == 0:
                break
        assert inbox_left(dovecot, user) == 0
        applied_once(sessions, 120)
        assert loop.intake.reader.batches_in_process >= reader_processes * 3
    finally:
        loop.intake.reader.close()
        engine.dispose()
        dovecot.stop()
