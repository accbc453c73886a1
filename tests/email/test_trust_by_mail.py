"""Who sent it and who is vouched for, tried as an attacker would against the real servers.

``referee serve``'s workers (:func:`bot.host.wiring.workers`: IMAP intake against Dovecot, the SMTP
sender against aiosmtpd) read the attack mails of ``tests/email/corpus`` APPENDed to Dovecot, in
the world of tests/email/world.py (``club``: address-only authentication).  The receiving server
the host trusts is ``mx.example.com`` (``email_trusted_authserv_ids``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.games.stored import find_game
from bot.core.runtime import supervisor
from bot.email.mime import message_id_of
from bot.host.wiring import workers
from bot.settings.loader import Settings
from bot.store.db import unit_of_work
from bot.store.models import Game, OrderSubmission, Seat
from tests.email.mailboxes import append, eventually
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.email.test_deadlines import replies_to
from tests.email.world import GM, REFEREE, START
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).parent / "corpus"
MALLORY = "mallory@evil.example"


@asynccontextmanager
async def serving(
    dovecot: DovecotServer, user: str, smtp: SmtpSink, world: sessionmaker[Session], world_path: Path
) -> AsyncIterator[None]:
    settings = Settings().merged({
        "database": str(world_path), "mail_domain": "example.com", "bot_address": REFEREE, "game_masters": GM,
        "imap_host": dovecot.host, "imap_port": dovecot.port, "imap_security": "none", "imap_user": user,
        "imap_password": PASSWORD, "smtp_host": smtp.host, "smtp_port": smtp.port, "smtp_security": "none",
        "send_interval_seconds": 0.05, "intake_poll_seconds": 30, "email_trusted_authserv_ids": TRUSTED_SERVER,
    })  # fmt: skip
    stop = asyncio.Event()
    task = asyncio.create_task(
        supervisor.serve(workers(settings, world, SimulatedClock(START + timedelta(hours=1))), stop)
    )
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=10)


async def answers(dovecot: DovecotServer, user: str, smtp: SmtpSink, *raws: bytes) -> list[str]:
    """APPEND ``raws`` to the referee's mailbox; the one reply to each, in order (flowed into one line)."""
    ids = [message_id_of(raw) or "" for raw in raws]
    append(dovecot, user, *raws)
    await eventually(lambda: all(len(replies_to(smtp, mid)) == 1 for mid in ids))
    return [" ".join(replies_to(smtp, mid)[0].split()) for mid in ids]


def corpus(name: str) -> bytes:
    return (CORPUS / name).read_bytes()


def seat(sessions: sessionmaker[Session], game: str, name: str) -> tuple[bool, int]:
    """(resigned, how many sets of orders were filed) for the seat ``name`` of ``game``."""
    with unit_of_work(sessions) as session:
        found = session.scalars(select(Seat).join(Game).where(Game.slug == game, Seat.name == name)).one()
        filed = session.scalars(
            select(OrderSubmission).where(OrderSubmission.game_id == found.game_id, OrderSubmission.seat_name == name)
        ).all()
        return found.resigned, len(filed)


async def test_a_spoofed_from_acts_for_nobody_and_is_answered_at_the_real_address_alone(
    dovecot, imap_user, smtp, world, world_path
):
    """An encoded word decoding to CR LF ann@example.org, and one decoding to Evil CR LF Bcc: ...,
    in the display name: the sender is mallory@evil.example, who has no seat."""
    async with serving(dovecot, imap_user, smtp, world, world_path):
        spoof, injected = await answers(
            dovecot, imap_user, smtp, corpus("from_encoded_word_spoof.eml"), corpus("from_bcc_injection.eml")
        )
    assert "you have no seat in club" in spoof and "ORDERS ACCEPTED" not in spoof and "RESIGNED" not in spoof
    assert "STATUS club" in injected
    assert seat(world, "club", "Ann") == (False, 0), "nothing was applied to Ann's seat"
    recipients = [r.recipients for r in smtp.messages()]
    assert recipients == [(MALLORY,), (MALLORY,)], "the replies go to Mallory alone: no Bcc, never Ann"
    for reply in smtp.messages():  # the subject quoted back keeps its words on one line: no Bcc field
        assert reply.message.get_all("Bcc") is None and not any(
            line.lower().startswith(b"bcc:") for line in reply.raw.splitlines()
        )


async def test_a_forged_envelope_sender_is_refused_with_the_reason_and_a_vouched_one_is_served(
    dovecot, imap_user, smtp, world, world_path
):
    """Return-Path equal to From proves nothing; the trusted server's spf=fail and dkim=fail, an
    untrusted server's dmarc=pass and a forged one below the server's own leave Dan's seat alone;
    the trusted server's dmarc=pass is believed."""
    async with serving(dovecot, imap_user, smtp, world, world_path):
        bare, failed, untrusted, below = await answers(
            dovecot, imap_user, smtp, corpus("forged_envelope_no_results.eml"),
            corpus("forged_envelope_checks_failed.eml"), corpus("untrusted_authserv_id.eml"),
            corpus("forged_results_below_the_servers.eml"),
        )  # fmt: skip
        assert seat(world, "club", "Dan") == (False, 0)
        (vouched,) = await answers(dovecot, imap_user, smtp, corpus("dmarc_pass_vouched.eml"))
    nobody_checked = "your address could not be verified: the receiving mail server recorded no check of the sender"
    assert nobody_checked in bare and "RESIGNED" not in bare
    assert "checks did not pass for example.org (spf=fail, dkim=fail)" in failed and "PASSWORD" in failed
    assert "ORDERS ACCEPTED" not in failed and "RESIGNED" not in failed
    assert nobody_checked in untrusted and "ORDERS ACCEPTED" not in untrusted
    assert "checks did not pass for example.org (spf=fail, dkim=none)" in below
    assert "ORDERS ACCEPTED for club" in vouched and "seat Dan" in vouched
    assert seat(world, "club", "Dan") == (False, 1), "only the vouched orders were filed; Dan still plays"
    assert {r for m in smtp.messages() for r in m.recipients} == {"dan@example.org"}


async def test_a_forged_creator_creates_nothing_and_a_vouched_one_creates(dovecot, imap_user, smtp, world, world_path):
    """From the configured game master, with Return-Path mallory@evil.example and no check by the
    trusted server: CREATE evil golden-strider with GM mallory@evil.example creates nothing, and
    Mallory is mailed nothing (no GM password).  The same CREATE the trusted server vouched for works."""
    real = message("CREATE real golden-strider\nSEATS 6\n", sender=GM, name="Game Master", vouched_by=TRUSTED_SERVER)
    unchecked = message("CREATE other golden-strider\nSEATS 6\n", sender=GM, name="Game Master",
                        vouched_by="mx.evil.example")  # fmt: skip
    async with serving(dovecot, imap_user, smtp, world, world_path):
        forged, created, untrusted = await answers(
            dovecot, imap_user, smtp, corpus("forged_creator.eml"), real, unchecked
        )
    assert "your address could not be verified (the receiving mail server recorded no check of the sender)" in forged
    assert "ask the host" in forged and "CREATED" not in forged and "PASSWORD" not in forged
    assert "CREATED real" in created
    assert "could not be verified" in untrusted and "CREATED" not in untrusted
    with unit_of_work(world) as session:
        assert find_game(session, "evil") is None and find_game(session, "other") is None
        assert find_game(session, "real") is not None
    assert all(MALLORY not in m.recipients for m in smtp.messages()), "Mallory was mailed nothing"
