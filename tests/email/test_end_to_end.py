"""End to end: mail APPENDed to Dovecot is read, applied, and answered through aiosmtpd, threaded.

Everything is wired from the settings as ``referee serve`` does it
(:func:`bot.host.wiring.workers`): IMAP intake with IDLE, the SMTP sender and
the deadline worker, running together until stopped.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import pytest

from bot.core.basics.clock import SimulatedClock
from bot.core.runtime import supervisor
from bot.host.wiring import workers
from bot.settings.loader import Settings
from tests.email.mailboxes import append, eventually, folder_counts
from tests.email.pipeline import message
from tests.email.world import PASSWORDS, REFEREE, START
from tests.support.dovecot import PASSWORD

pytestmark = pytest.mark.integration


async def test_mail_in_reply_out_threaded(dovecot, imap_user, smtp, world, world_path, caplog):
    caplog.set_level(logging.DEBUG)
    settings = Settings().merged(
        {
            "database": str(world_path), "mail_domain": "example.com", "bot_address": REFEREE,
            "imap_host": dovecot.host, "imap_port": dovecot.port, "imap_security": "none", "imap_user": imap_user,
            "imap_password": PASSWORD, "smtp_host": smtp.host, "smtp_port": smtp.port, "smtp_security": "none",
            "send_interval_seconds": 0.05, "intake_poll_seconds": 30,
        }
    )  # fmt: skip
    found = workers(settings, world, SimulatedClock(START + timedelta(hours=1)))
    stop = asyncio.Event()
    task = asyncio.create_task(supervisor.serve(found, stop))
    try:
        orders = message(
            f"ORDERS demo\ncards 10 8 6 4 2\nPASSWORD {PASSWORDS['Ann']}\n", subject="my orders",
            message_id="<first@example.org>",
        )  # fmt: skip
        append(dovecot, imap_user, orders)
        await eventually(lambda: len(smtp.messages()) == 1)
        reply = smtp.messages()[0]
        assert reply.recipients == ("ann@example.org",) and reply.mail_from == REFEREE
        first = reply.message
        assert first["Subject"] == "Re: my orders [demo]"
        assert first["In-Reply-To"] == "<first@example.org>"
        assert first["References"] == "<first@example.org>"
        assert first["Auto-Submitted"] == "auto-replied"
        body = first.get_content()
        assert "ORDERS ACCEPTED for demo" in body and "cards 10 8 6 4 2" in body
        assert PASSWORDS["Ann"] not in body

        # The player answers the reply: the conversation stays one thread.
        follow_up = message(
            "STATUS demo\n\nOn Mon, 2 Mar 2026, Referee wrote:\n> " + body.replace("\n", "\n> "),
            subject=str(first["Subject"]), message_id="<second@example.org>",
            headers={"In-Reply-To": str(first["Message-ID"]), "References": f"<first@example.org> {first['Message-ID']}"},
        )  # fmt: skip
        append(dovecot, imap_user, follow_up)
        await eventually(lambda: len(smtp.messages()) == 2)
        second = smtp.messages()[1].message
        assert second["Subject"] == "Re: my orders [demo]"
        assert second["In-Reply-To"] == "<second@example.org>"
        assert str(second["References"]).split() == [
            "<first@example.org>",
            str(first["Message-ID"]),
            "<second@example.org>",
        ]
        assert "Orders in from: Ann" in second.get_content()

        # A newcomer joins: the seat password is mailed to them, and never logged.
        append(dovecot, imap_user, message("JOIN newgame AS Zed\n", sender="zed@example.net", name="Zed"))
        await eventually(lambda: len(smtp.messages()) == 4)  # the reply, and the game master's notice of the JOIN
        [joined] = [r.message.get_content() for r in smtp.messages()[2:] if "zed@example.net" in r.recipients]
        new_secret = joined.split("Your seat password: ")[1].split()[0]
        assert folder_counts(dovecot, imap_user, "INBOX", "Processed") == {"INBOX": 0, "Processed": 3}
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=10)
    assert "inbox #" in caplog.text, "the intake logs what it did"
    for secret in (*PASSWORDS.values(), new_secret, PASSWORD):
        assert secret not in caplog.text, "a password reached the log"
