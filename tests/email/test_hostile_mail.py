"""No mail can hold up the others, against real servers (Dovecot, aiosmtpd, ``referee serve``'s workers).

A hostile mail is delivered just before a deadline, and Ann's orders right
after it: her orders must be used for the turn, the turn's report must come
within a minute of the deadline, and ordinary mail must keep being answered.
With the default settings a 3 MB mail with 90,000 Cc addresses is refused by
the screen before any parsing.  With the screen's limits raised out of the
way, a 5 MB multipart nested 500 deep reaches the parser (about 105 s
of CPU: :func:`tests.email.test_prescreen.slow_to_read`), and the reader's
time budget parks it (for a stranger, the strangers' 5 s).  A multipart nested 1,000 deep gets
a reply saying it could not be taken apart.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import InboundMessage
from tests.email.mailboxes import eventually
from tests.email.test_deadlines import (
    Appender,
    address,
    make_game,
    orders_mail,
    replies_to,
    serving,
    settings_for,
    turn_records,
)
from tests.email.test_prescreen import nested, slow_to_read
from tests.support.database import migrated_sqlite

pytestmark = pytest.mark.integration


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[str, sessionmaker[Session]]]:
    path = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(path)
    engine = make_engine(path)
    yield path, session_factory(engine)
    engine.dispose()


HAND = "cards 10 8 6 4 2"
HOSTILE_ID = "<siege@evil.example>"


def hostile_mail(addresses: int = 90_000) -> bytes:
    """About 3 MB: ``addresses`` Cc addresses, folded one a line, from one plain From."""
    cc = ",\r\n ".join(f"victim{n:05d}@players.example.net" for n in range(addresses))
    return (
        f"From: Mallory <mallory@evil.example>\r\nTo: referee@example.com\r\nCc: {cc}\r\n"
        f"Subject: STATUS siege\r\nMessage-ID: {HOSTILE_ID}\r\nDate: Thu, 1 Jan 2026 00:00:00 +0000\r\n"
        "\r\nSTATUS siege\r\n"
    ).encode()


def slow_mail() -> bytes:
    """About 5 MB, under the 10 MB a mail may have to be read: a multipart nested 500 deep whose
    text part is followed by 2,500,000 empty lines, from one plain From; over the screen's default
    limit of 100 multipart sections."""
    return slow_to_read(500, 2_500_000, "Mallory <mallory@evil.example>", HOSTILE_ID, "STATUS siege")


def deep_mail(message_id: str) -> bytes:
    return nested(1_000).replace(b"Subject: deep\r\n", f"Subject: deep\r\nMessage-ID: {message_id}\r\n".encode())


async def siege(
    dovecot, imap_user, smtp, store, capsys, raw: bytes, what: str, label: str, **settings: object
) -> InboundMessage:
    """The attack of the module docstring with the hostile mail ``raw`` (``what`` it is, for the
    printed figures); returns its inbox row."""
    path, sessions = store
    # The deadline is set before the referee starts, as a game's deadline is set when its turn
    # opens: the deadline worker sleeps until it (one set behind its back waits up to its interval).
    deadline = datetime.now(UTC) + timedelta(seconds=6)
    make_game(sessions, "siege", deadline, setup=("Ben", "Cat", "Dan", "Eve"))  # Fay never orders
    appender = Appender(dovecot, imap_user)
    ann_id, ann_raw = orders_mail("Ann", "siege", HAND)
    ben_id, ben_raw = orders_mail("Ben", "siege", HAND)
    ben_raw = ben_raw.replace(b"ORDERS siege\r\n" + HAND.encode(), b"STATUS siege")  # an ordinary question
    ben_raw = ben_raw.replace(b"ORDERS siege\n" + HAND.encode(), b"STATUS siege")
    deep_id = "<deep@example.org>"
    try:
        async with serving(settings_for(path, dovecot, imap_user, smtp, **settings), sessions):
            await asyncio.sleep(max(0.0, (deadline - datetime.now(UTC)).total_seconds() - 2.5))
            sent_hostile = await asyncio.to_thread(appender.append, raw)
            await asyncio.sleep(0.3)
            await asyncio.to_thread(appender.append, ann_raw)
            await asyncio.to_thread(appender.append, ben_raw)
            await asyncio.to_thread(appender.append, deep_mail(deep_id))
            assert datetime.now(UTC) < deadline - timedelta(seconds=1), "the mails were delivered too late"
            await eventually(lambda: "siege" in turn_records(sessions), timeout=120)
            await eventually(lambda: any(address("Cat") in r.recipients for r in smtp.messages()), timeout=60)
            report_at = datetime.now(UTC)
            await eventually(lambda: all(replies_to(smtp, m) for m in (ann_id, ben_id, deep_id, HOSTILE_ID)), 60)
    finally:
        appender.close()
    record = turn_records(sessions)["siege"]
    assert record.orders["Ann"] == HAND and record.defaulted == ["Fay"], "Ann's in-time orders were not used"
    (ann_reply,) = replies_to(smtp, ann_id)
    assert "ORDERS ACCEPTED for siege" in ann_reply and "before turn" not in ann_reply, ann_reply
    (ben_reply,) = replies_to(smtp, ben_id)
    assert "siege" in ben_reply and "not understood" not in ben_reply.lower(), ben_reply
    (deep_reply,) = replies_to(smtp, deep_id)
    assert "could not be taken apart" in " ".join(deep_reply.split()), deep_reply
    assert all(len(line) <= 78 for reply in (deep_reply, *replies_to(smtp, HOSTILE_ID)) for line in reply.splitlines())
    with unit_of_work(sessions) as session:
        row = session.scalars(select(InboundMessage).where(InboundMessage.message_id == HOSTILE_ID)).one()
        session.expunge(row)
    assert row.processed_at is not None
    resolved_late = (record.resolved_at - deadline).total_seconds()
    report_late = (report_at - deadline).total_seconds()
    handled = time.monotonic() - sent_hostile
    with capsys.disabled():
        print(
            f"\n[{label}] hostile mail ({len(raw) / 1e6:.1f} MB, {what}) {row.status} "
            f"{(row.processed_at - row.received_at).total_seconds():.1f} s after it arrived; the turn resolved "
            f"{resolved_late:.1f} s and its report came {report_late:.1f} s after the deadline, with Ann's orders "
            f"(all replies within {handled:.0f} s of the hostile mail)"
        )
    assert report_late < 60, f"the report came {report_late:.0f} s after the deadline"
    return row


async def test_with_the_default_settings_the_hostile_mail_is_refused_before_parsing(
    dovecot,
    imap_user,
    smtp,
    store,
    capsys,
):
    raw = hostile_mail()
    assert len(raw) > 3_000_000
    row = await siege(dovecot, imap_user, smtp, store, capsys, raw, "90,000 Cc", "screen")
    assert row.status == "done" and "1 line not understood" in (row.outcome or ""), row.outcome
    (reply,) = replies_to(smtp, HOSTILE_ID)
    assert "too many recipients or headers" in " ".join(reply.split()), reply
    assert (row.processed_at - row.received_at) < timedelta(seconds=10)


async def test_past_the_screen_the_reading_budget_parks_the_hostile_mail(
    dovecot,
    imap_user,
    smtp,
    store,
    capsys,
):
    """The screen's limits raised out of the way, a mail that takes about 105 s of CPU to
    read (over five times the budget): the default reading budget must hold; its sender is
    a stranger (no seat, no game run), so that is the strangers' budget, 5 s, not the
    per-mail one (20 s; bot.core.intake.sender_budgets)."""
    raw = slow_mail()
    assert 4_000_000 < len(raw) < 10 * 1024 * 1024, len(raw)
    row = await siege(
        dovecot, imap_user, smtp, store, capsys, raw, "multiparts 500 deep", "budget",
        email_max_addresses=10**7, email_max_header_kb=10**6, email_max_header_fields=10**7,
        email_max_multiparts=10**7, email_max_nested_lines=10**12,
    )  # fmt: skip
    assert row.status == "parked" and "budget of 5 s" in (row.last_error or ""), (row.status, row.last_error)
    (reply,) = replies_to(smtp, HOSTILE_ID)
    assert "could not be read" in " ".join(reply.split()), reply
