"""IMAP intake against a real Dovecot: stored before acknowledged, moved or flagged, IDLE, polling, reconnection."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

import bot.core.runtime.intake_runner as intake_module
import bot.email.imap as imap_module
from bot.core.basics.clock import SimulatedClock
from bot.core.intake.inbox import Inbox
from bot.email.imap import ImapIntakeLoop, ImapMailbox
from bot.email.intake import Intake
from bot.email.mime import describe_size
from bot.email.understand import IntakePolicy
from bot.store.db import unit_of_work
from bot.store.models import InboundMessage, OrderSubmission, ProcessedEnvelope
from tests.email.mailboxes import append, client_for, config_for, folder_counts, orders, wait_until
from tests.email.pipeline import POLICY, message, processor_for
from tests.email.world import START, outbox_rows
from tests.support.dovecot import DovecotServer

pytestmark = pytest.mark.integration


@pytest.fixture
def intake(world: sessionmaker[Session]) -> Intake:
    processor = processor_for(world, SimulatedClock(START + timedelta(hours=1)))
    return Intake(processor)


def stored_rows(sessions: sessionmaker[Session]) -> list[InboundMessage]:
    with unit_of_work(sessions) as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all())


def test_a_pass_stores_applies_answers_and_moves(dovecot, imap_user, intake, world):
    append(dovecot, imap_user, orders("Ann"), orders("Ben"))
    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    try:
        result = intake.run_once(mailbox)
        assert (result.stored, result.processed.done, result.acknowledged) == (2, 2, 2)
        assert mailbox.unacknowledged() == []
    finally:
        mailbox.close()
    assert folder_counts(dovecot, imap_user, "INBOX", "Processed") == {"INBOX": 0, "Processed": 2}
    rows = stored_rows(world)
    assert [row.status for row in rows] == ["done", "done"]
    assert all(row.source_key.startswith(f"imap:{imap_user}@127.0.0.1/INBOX:") for row in rows)
    assert [row.message_id for row in rows] == ["<ann-setup@example.org>", "<ben-setup@example.org>"]
    assert len([row for row in outbox_rows(world) if row.kind == "reply"]) == 2


def test_messages_are_stored_before_the_server_is_told_anything(dovecot, imap_user, intake, world, monkeypatch):
    """If acknowledging fails, every message is already stored; the next pass acknowledges without reapplying."""
    append(dovecot, imap_user, orders("Ann"))

    def broken(self: ImapMailbox, refs: object) -> None:
        raise OSError("connection reset while moving")

    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    with monkeypatch.context() as patch:
        patch.setattr(ImapMailbox, "acknowledge", broken)
        with pytest.raises(OSError):
            intake.run_once(mailbox)
    mailbox.close()
    assert [row.status for row in stored_rows(world)] == ["done"]
    assert folder_counts(dovecot, imap_user, "INBOX") == {"INBOX": 1}
    client = client_for(dovecot, imap_user)
    client.select_folder("INBOX", readonly=True)
    assert client.get_flags(client.search(["ALL"])) == {1: ()}, "fetching must not set \\Seen"
    client.logout()

    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    result = intake.run_once(mailbox)
    mailbox.close()
    assert (result.stored, result.processed.done, result.acknowledged) == (0, 0, 1)
    with unit_of_work(world) as session:
        applied = session.scalars(select(ProcessedEnvelope.source_id)).all()
    assert len([source for source in applied if source.startswith("imap:")]) == 1


def test_each_batch_is_acknowledged_once_committed_and_not_before(dovecot, imap_user, intake, world, monkeypatch):
    """A batch's new messages are acknowledged as soon as its transaction is committed, while the pass
    goes on (so a long pass does not hold every message to its end); never one not yet stored."""
    monkeypatch.setattr(intake_module, "FIRST_FETCH_BATCH", 10)
    monkeypatch.setattr(intake_module, "FETCH_BATCH", 20)  # 70 mails: batches of 10, 20, 20, 20
    raws = [message("HELP\n", sender=f"p{n}@example.org", message_id=f"<b{n}@example.org>") for n in range(70)]
    client = client_for(dovecot, imap_user)
    try:
        client.multiappend("INBOX", raws)
    finally:
        client.logout()
    seen: list[tuple[int, int, int]] = []  # (acknowledged now, of them stored and done, stored in all)
    original = ImapMailbox.acknowledge

    def recording(self: ImapMailbox, refs):
        keys = {ref.key for ref in refs}
        with unit_of_work(world) as session:  # another session: only what is committed
            rows = session.scalars(select(InboundMessage)).all()
        done = sum(1 for row in rows if row.source_key in keys and row.status == "done")
        seen.append((len(keys), done, len(rows)))
        original(self, refs)

    monkeypatch.setattr(ImapMailbox, "acknowledge", recording)
    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    try:
        result = intake.run_once(mailbox)
    finally:
        mailbox.close()
    assert (result.stored, result.acknowledged) == (70, 70)
    assert [count for count, _done, _stored in seen] == [10, 20, 20, 20]
    assert all(done == count for count, done, _stored in seen), seen
    assert seen[0][2] < 70, "the first batch was acknowledged before the pass had stored everything"
    assert folder_counts(dovecot, imap_user, "INBOX", "Processed") == {"INBOX": 0, "Processed": 70}


def test_a_second_copy_is_a_no_op(dovecot, imap_user, intake, world):
    append(dovecot, imap_user, orders("Ann"), orders("Ann"))
    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    result = intake.run_once(mailbox)
    mailbox.close()
    assert (result.stored, result.duplicates, result.processed.done, result.acknowledged) == (1, 1, 1, 2)
    assert len(stored_rows(world)) == 1
    assert len([row for row in outbox_rows(world) if row.kind == "reply"]) == 1
    with unit_of_work(world) as session:
        assert len(session.scalars(select(OrderSubmission)).all()) == 1  # the world has no orders of its own


def test_without_a_done_folder_messages_are_flagged(dovecot, imap_user, intake, world):
    append(dovecot, imap_user, orders("Ann"))
    mailbox = ImapMailbox(config_for(dovecot, imap_user, done_folder=""))
    assert not mailbox.can_move
    assert intake.run_once(mailbox).acknowledged == 1
    assert mailbox.unacknowledged() == []
    mailbox.close()
    client = client_for(dovecot, imap_user)
    client.select_folder("INBOX", readonly=True)
    flags = client.get_flags(client.search(["ALL"]))
    client.logout()
    assert set(flags[1]) == {b"\\Seen", b"$RefereeDone"}


def test_a_server_without_move_gets_flags(dovecot, world, intake):
    server = DovecotServer(dovecot.binary, extra="imap_capability = IMAP4rev1 IDLE UIDPLUS LITERAL+")
    server.start()
    try:
        user = server.new_user()
        append(server, user, orders("Cat"))
        mailbox = ImapMailbox(config_for(server, user))
        assert not mailbox.can_move and mailbox.can_idle
        assert intake.run_once(mailbox).acknowledged == 1
        assert mailbox.unacknowledged() == []
        mailbox.close()
        assert folder_counts(server, user, "INBOX") == {"INBOX": 1}
    finally:
        server.stop()


def test_a_huge_message_is_stored_cut_at_the_limit_and_answered(dovecot, imap_user, world):
    policy = IntakePolicy(own_addresses=POLICY.own_addresses, max_message_bytes=64 * 1024)
    processor = processor_for(world, SimulatedClock(START + timedelta(hours=1)), policy)
    intake = Intake(processor)
    big = message("STATUS demo\n" + "x" * 200_000 + "\n", subject="big")
    append(dovecot, imap_user, big)
    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    assert intake.run_once(mailbox).acknowledged == 1
    mailbox.close()
    (row,) = stored_rows(world)
    assert len(row.raw) == 64 * 1024 and big.startswith(bytes(row.raw))
    (reply,) = [row for row in outbox_rows(world) if row.kind == "reply"]
    assert "too large" in reply.body
    # the size the server reported, not the size of the cut fetch
    assert f"(a message of {describe_size(len(big))})" in reply.body and describe_size(len(big)) != "64 KB"
    assert Inbox(world).summary(row.id).server_size == len(big)


@pytest.fixture
def running(dovecot, imap_user, intake) -> Iterator[tuple[ImapIntakeLoop, threading.Event]]:
    loop = ImapIntakeLoop(config_for(dovecot, imap_user, poll_seconds=30.0), intake)
    stop = threading.Event()
    thread = threading.Thread(target=loop.run, args=(stop,), daemon=True)
    thread.start()
    try:
        yield loop, stop
    finally:
        stop.set()
        thread.join(timeout=5)
        assert not thread.is_alive()


def test_idle_picks_up_new_mail_at_once(dovecot, imap_user, world, running):
    loop, _ = running
    wait_until(lambda: loop.passes >= 1)
    started = time.monotonic()
    append(dovecot, imap_user, orders("Dan"))
    wait_until(lambda: [row.status for row in stored_rows(world)] == ["done"])
    assert time.monotonic() - started < 5, "IDLE should wake the intake (the poll interval is 30 s)"


def test_new_mail_is_found_even_when_idle_polling_cannot_see_the_report(dovecot, imap_user, monkeypatch):
    """The server's EXISTS may arrive with IDLE's "+ idling" and be read into imaplib's buffer, where
    polling the socket never sees it: ending and starting IDLE every IDLE_RENEW_SECONDS reads it, so
    the wait ends within about that long, not at its timeout."""
    from imapclient import IMAPClient

    monkeypatch.setattr(IMAPClient, "idle_check", lambda self, timeout=None: time.sleep(timeout or 0) or [])
    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    try:
        assert mailbox.can_idle
        mailbox.begin_pass()
        assert not mailbox.arrived_meanwhile()
        timer = threading.Timer(0.3, lambda: append(dovecot, imap_user, orders("Eve")))
        timer.start()
        started = time.monotonic()
        mailbox.wait(20.0, threading.Event())
        waited = time.monotonic() - started
        timer.join()
    finally:
        mailbox.close()
    assert waited < imap_module.IDLE_RENEW_SECONDS + 2.5, f"waited {waited:.1f} s for mail polling could not see"


def test_the_intake_reconnects_when_the_connection_drops(dovecot, imap_user, world, running):
    loop, _ = running
    wait_until(lambda: loop.passes >= 1)
    dovecot.kick(imap_user)
    wait_until(lambda: loop.connections >= 2)
    append(dovecot, imap_user, orders("Eve"))
    wait_until(lambda: [row.status for row in stored_rows(world)] == ["done"])


def test_without_idle_the_intake_polls(dovecot, imap_user, intake, world):
    loop = ImapIntakeLoop(config_for(dovecot, imap_user, idle=False, poll_seconds=0.2), intake)
    stop = threading.Event()
    thread = threading.Thread(target=loop.run, args=(stop,), daemon=True)
    thread.start()
    try:
        wait_until(lambda: loop.passes >= 1)
        append(dovecot, imap_user, orders("Fay"))
        wait_until(lambda: [row.status for row in stored_rows(world)] == ["done"])
        assert loop.passes >= 2
    finally:
        stop.set()
        thread.join(timeout=5)


def test_a_wrong_password_is_retried_with_back_off(dovecot, intake):
    # A server of its own: Dovecot slows down later logins from an address that failed (auth penalty).
    server = DovecotServer(dovecot.binary)
    server.start()
    try:
        loop = ImapIntakeLoop(config_for(server, server.new_user(), password="wrong", max_backoff=0.1), intake)
        stop = threading.Event()
        thread = threading.Thread(target=loop.run, args=(stop,), daemon=True)
        thread.start()
        time.sleep(0.6)
        stop.set()
        thread.join(timeout=5)
        assert loop.connections == 0 and not thread.is_alive()
    finally:
        server.stop()


def test_the_inbox_row_keys_name_the_account_and_uidvalidity(dovecot, imap_user, world):
    append(dovecot, imap_user, orders("Ann"))
    mailbox = ImapMailbox(config_for(dovecot, imap_user))
    (ref,) = mailbox.unacknowledged()
    mailbox.close()
    assert ref.key == f"imap:{imap_user}@127.0.0.1/INBOX:{mailbox.uidvalidity}:1"
    assert ref.arrived_at is not None and ref.arrived_at.tzinfo is not None
    assert Inbox(world).statuses([ref.key]) == {}


@pytest.mark.parametrize("security", ["starttls", "tls"])
def test_tls_and_starttls(dovecot, world, intake, security):
    server = DovecotServer(dovecot.binary, tls=True)
    server.start()
    try:
        user = server.new_user()
        append(server, user, orders("Ann"))
        port = server.tls_port if security == "tls" else server.port
        config = config_for(server, user, security=security, port=port, ca_file=str(server.cert))
        mailbox = ImapMailbox(config)
        assert intake.run_once(mailbox).acknowledged == 1
        mailbox.close()
        untrusted = config_for(server, user, security=security, port=port)
        with pytest.raises(ssl.SSLCertVerificationError):
            ImapMailbox(untrusted)
    finally:
        server.stop()
