"""Fuzzing the whole intake: generated mails through the real inbox, processor and service.

``understand`` alone is fuzzed in test_fuzz_understand.py with many more
inputs; here fewer mails (``REFEREE_FUZZ_EXAMPLES`` / 20, at least 15, on
each of SQLite and PostgreSQL) go the whole way, into the world of
tests/email/world.py, and each must:

* be stored (once per Message-ID) and marked done: never failed, never parked (nothing received is
  dropped; a bad message gets a clear reply, not a retry loop);
* get exactly one reply when it is human mail, and none when it is skipped;
* leave only outbox rows that can be composed into an RFC 5322 message and
  that show no seat password of the world.

Not checked here: that every body line fits in 78 columns.  The reply
template does not wrap (bot/core/commands/replies.py, templates/email/reply.txt.j2):
a quoted line of up to 160 characters, and the reason "not a command (send
HELP for the list); orders go on the lines after ORDERS <game>" (88 columns
as printed) are mailed as they are.  That belongs to the reply's owner.

The world is shared by the examples of a run (orders pile up, turns may
resolve), as a live referee's would be.
"""

from __future__ import annotations

import itertools
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.messaging.outbox import OutboxDrain
from bot.email.mime import message_id_of
from bot.email.processor import PassResult, ReplyLimit
from bot.email.render import MailIdentity, compose
from bot.email.understand import understand
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.email.fuzz.strategies import Mail, mails
from tests.email.fuzz.test_fuzz_understand import EXAMPLES
from tests.email.pipeline import POLICY, processor_for
from tests.email.world import PASSWORDS, REFEREE, START, build_world, outbox_rows

LATER = datetime(2100, 1, 1, tzinfo=START.tzinfo)
_KEYS = itertools.count(1)


@pytest.fixture
def world_on(sessions: sessionmaker[Session]) -> sessionmaker[Session]:
    """The world of tests/email/world.py on each database (SQLite, PostgreSQL), built once per test."""
    build_world(sessions)
    return sessions


@settings(
    max_examples=max(EXAMPLES // 20, 15),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(mail=mails())
def test_every_generated_mail_is_stored_done_and_answered_once(world_on: sessionmaker[Session], mail: Mail) -> None:
    world = world_on
    _settle(world)  # what earlier examples queued (also those that failed) counts as sent
    processor = processor_for(world, limit=ReplyLimit(replies=10**6))
    understood = understand(mail.raw, "fuzz:expected", START, POLICY)
    stored = processor.inbox.store("email", f"fuzz:{next(_KEYS)}", message_id_of(mail.raw), mail.raw, START)
    result = processor.process_pending()
    if not stored.new:  # a Message-ID seen before in this run: the same message, kept once
        assert result == PassResult() and outbox_rows(world) == []
        return
    assert (result.done, result.failed, result.parked) == (1, 0, 0), result
    rows = outbox_rows(world)
    replies = [row for row in rows if row.kind == "reply"]
    assert len(replies) == (0 if understood.envelope is None else 1), [r.body for r in replies]
    drain = OutboxDrain(world)
    pending = {p.id: p for p in drain.due("email", LATER)}
    for row in rows:
        composed = compose(pending[row.id], MailIdentity(REFEREE), START)
        body = composed.get_content()
        assert composed.as_bytes()  # it serialises
        for secret in PASSWORDS.values():
            assert secret not in body.lower() and secret not in str(composed["Subject"]).lower()


def _settle(world: sessionmaker[Session]) -> None:
    with unit_of_work(world) as session:
        session.execute(update(OutboxMessage).where(OutboxMessage.sent_at.is_(None)).values(sent_at=START))
