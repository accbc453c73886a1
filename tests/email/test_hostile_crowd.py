"""A crowd of costly mails from new addresses just before a deadline costs no player an in-time order.

Against the real servers, as ``referee serve`` runs (:func:`bot.host.wiring.workers`:
IMAP IDLE against Dovecot, the mail reader in its own process, the SMTP
sender against aiosmtpd, the deadline worker), on the real clock, every
setting at its default.  Twenty mails from twenty new addresses reach the
mailbox 12 s before a deadline: ten whose single line is a GM command
followed by thousands of spaces (a backtracking pattern once took seconds on
each), and ten multiparts nested 100 deep over 199,000 empty lines, inside
the screen's default limits (about 1.7 s of CPU each to parse).  A budget
per mail lets them hold the intake for their sum (half a minute); seven
seconds after them Ann's orders arrive, and the turn would have resolved
late.  With the strangers' reading budget
(:mod:`bot.core.intake.sender_budgets`) the turn resolves within 10 s of its
deadline with Ann's orders, her reply comes within 5 s, and every hostile
mail is stored (read, or parked and answered): nothing is dropped.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from bot.core.intake.inbox import DONE, PARKED
from bot.store.db import unit_of_work
from bot.store.models import Game, InboundMessage
from tests.email.mailboxes import eventually
from tests.email.pipeline import message
from tests.email.test_deadlines import (
    Appender,
    make_game,
    orders_mail,
    replies_to,
    serving,
    settings_for,
    turn_records,
)
from tests.email.test_prescreen import slow_to_read

pytestmark = pytest.mark.integration

SPACES = 4000
LEAD = 14.0
"""Seconds from the start to the deadline; the crowd comes at once, Ann's orders 7 s after it."""


def hostile_crowd(slug: str) -> list[bytes]:
    spaced = [
        message(
            f"REPLACE {slug}{' ' * SPACES}x\nEXTEND {slug}{' ' * SPACES}x\n",
            sender=f"spaces{n}@evil.test",
            name="",
            subject="hi",
            message_id=f"<spaces{n}@evil.test>",
        )
        for n in range(10)
    ]
    nested = [
        slow_to_read(100, 199_000, sender=f"nested{n}@evil.test", message_id=f"<nested{n}@evil.test>")
        for n in range(10)
    ]
    return [mail for pair in zip(spaced, nested, strict=True) for mail in pair]


async def test_twenty_costly_mails_from_new_addresses_cost_no_in_time_order(dovecot, imap_user, smtp, store, capsys):
    path, sessions = store
    make_game(sessions, "crowd", None, setup=("Ben", "Cat", "Dan", "Eve", "Fay"))
    deadline = datetime.now(UTC) + timedelta(seconds=LEAD)
    with unit_of_work(sessions) as session:
        session.execute(update(Game).where(Game.slug == "crowd").values(deadline_at=deadline))
    appender = Appender(dovecot, imap_user)
    ann_id, ann_raw = orders_mail("Ann", "crowd", "cards 10 8 6 4 2")
    try:
        async with serving(settings_for(path, dovecot, imap_user, smtp), sessions):
            for raw in hostile_crowd("crowd"):
                await asyncio.to_thread(appender.append, raw)
            await asyncio.sleep(7.0)
            ann_sent = await asyncio.to_thread(appender.append, ann_raw)
            await eventually(lambda: bool(replies_to(smtp, ann_id)), timeout=60)
            answered = time.monotonic()
            await eventually(lambda: "crowd" in turn_records(sessions), timeout=90)
            await eventually(lambda: _stored(sessions) == 21, timeout=60)
    finally:
        appender.close()
    record = turn_records(sessions)["crowd"]
    late = (record.resolved_at - deadline).total_seconds()
    (reply,) = replies_to(smtp, ann_id)
    reply_after = answered - ann_sent  # an upper bound: polled
    with capsys.disabled():
        print(f"\n20 costly mails from new addresses 12 s before a deadline, Ann's orders 7 s later: the turn "
              f"resolved {late:.1f} s after its deadline, with her orders; her reply within {reply_after:.1f} s")  # fmt: skip
    assert record.orders["Ann"] == "cards 10 8 6 4 2", "Ann's in-time orders were used"
    assert "ORDERS ACCEPTED" in reply and "before turn" not in reply
    assert late <= 10.0, f"the turn resolved {late:.1f} s late"
    assert reply_after <= 5.0, f"Ann's reply took {reply_after:.1f} s"
    with unit_of_work(sessions) as session:
        statuses = dict(session.execute(select(InboundMessage.message_id, InboundMessage.status)).all())
    assert all(statuses[f"<{kind}{n}@evil.test>"] in (DONE, PARKED) for kind in ("spaces", "nested") for n in range(10))


def _stored(sessions) -> int:  # type: ignore[no-untyped-def]
    with unit_of_work(sessions) as session:
        return len(session.scalars(select(InboundMessage.id)).all())
