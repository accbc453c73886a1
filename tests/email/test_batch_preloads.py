"""What an intake batch loads at once holds what the per-message questions held (bot/core/intake/reply_limit.py,
bot/core/people/guessing.py): many mails of one sender in ONE batch, optimistic (as the IMAP intake runs a
fetched batch first) and careful (a savepoint a message), on SQLite and PostgreSQL.

* the reply limit counts the replies its own batch queued (the batch loaded the sender's count before);
* the brake on guessing counts the wrong passwords its own batch gave (the batch loaded "no row" before),
  and a right password after them in the same batch is refused unchecked;
* a sender with wrong guesses on file before the batch (a row the batch loaded) is still locked.
"""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.people.guessing import LOCK_AFTER
from bot.email.mime import message_id_of
from bot.email.processor import MailProcessor, PassResult, ReplyLimit
from bot.store.db import unit_of_work
from bot.store.models import PasswordFailures
from tests.email.pipeline import TRUSTED_SERVER, message, processor_for
from tests.email.world import PASSWORDS, START, build_world, outbox_rows

MALLORY = "mallory@evil.example"
_KEYS = itertools.count(1)


def one_batch(processor: MailProcessor, raws: list[bytes], careful: bool) -> PassResult:
    """Store ``raws`` and process them all in one batch (``careful``: a savepoint a message)."""
    now = processor.clock.now()
    for raw in raws:
        processor.inbox.store("email", f"batch:{next(_KEYS)}", message_id_of(raw), raw, now)
    with processor.inbox.batch(careful) as batch:
        pending = processor.inbox.pending(now, "email", len(raws) + 1, batch=batch)
        assert len(pending) == len(raws)
        return processor.process_batch(batch, pending)


def replies_to(sessions: sessionmaker[Session], address: str) -> list[str]:
    return [" ".join(row.body.split()) for row in outbox_rows(sessions, "reply") if row.recipient == address]


@pytest.mark.parametrize("careful", [False, True], ids=["optimistic", "careful"])
def test_the_reply_limit_counts_the_replies_its_own_batch_queued(sessions: sessionmaker[Session], careful):
    build_world(sessions, ("demo",))
    clock = SimulatedClock(START + timedelta(hours=2))  # the world's own replies are older than the window
    processor = processor_for(sessions, clock, limit=ReplyLimit(replies=3, window=timedelta(hours=1)))
    raws = [message("STATUS demo\n", subject=f"again {n}", vouched_by=TRUSTED_SERVER) for n in range(6)]
    assert one_batch(processor, raws, careful).done == 6
    assert len(outbox_rows(sessions, "reply")) == 3, "the same text again and again in one batch: a loop"
    forged = [message(f"JOIN nosuchgame{n}\n", sender="victim@example.net", subject=f"j{n}",
                      return_path="mallory@evil.example") for n in range(30)]  # fmt: skip
    assert one_batch(processor, forged, careful).done == 30
    assert len(replies_to(sessions, "victim@example.net")) == 3, "30 forged mails in one batch: the limit's worth"


@pytest.mark.parametrize("careful", [False, True], ids=["optimistic", "careful"])
def test_wrong_passwords_in_one_batch_lock_the_address_within_it(sessions: sessionmaker[Session], careful):
    build_world(sessions, ("demo",))
    processor = processor_for(sessions)
    wrong = [
        message(f"ORDERS demo\ncards 10 8 6 4 2\nPASSWORD amber-raven-{n:04d}\n", sender=MALLORY, subject=f"t{n}")
        for n in range(LOCK_AFTER)
    ]
    right = message(f"ORDERS demo\ncards 10 8 6 4 2\nPASSWORD {PASSWORDS['Ann']}\n", sender=MALLORY, subject="r")
    assert one_batch(processor, [*wrong, right], careful).done == LOCK_AFTER + 1
    replies = replies_to(sessions, MALLORY)
    assert all("wrong password for game demo" in reply for reply in replies[:LOCK_AFTER]), replies
    assert "too many wrong passwords for demo" in replies[-1], replies[-1]


def test_a_sender_with_wrong_guesses_on_file_is_counted_on_from_them(sessions: sessionmaker[Session]):
    """Rows the batch loaded (not "no row") are asked as before: LOCK_AFTER - 1 wrong ones, then one more."""
    build_world(sessions, ("demo",))
    processor = processor_for(sessions)
    first = [
        message(f"ORDERS demo\ncards 10 8 6 4 2\nPASSWORD amber-raven-{n:04d}\n", sender=MALLORY, subject=f"t{n}")
        for n in range(LOCK_AFTER - 1)
    ]
    one_batch(processor, first, careful=False)
    with unit_of_work(sessions) as session:
        assert session.scalar(select(func.sum(PasswordFailures.failures))) == LOCK_AFTER - 1
    last = message("ORDERS demo\ncards 10 8 6 4 2\nPASSWORD amber-raven-9999\n", sender=MALLORY, subject="last")
    right = message(f"ORDERS demo\ncards 10 8 6 4 2\nPASSWORD {PASSWORDS['Ann']}\n", sender=MALLORY, subject="r")
    one_batch(processor, [last, right], careful=False)
    assert "too many wrong passwords for demo" in replies_to(sessions, MALLORY)[-1]
