"""Two intakes on one database storing the same mail at once: a quiet no-op (bot/core/inbox.py).

Each intake looks a fetched batch's keys up first, then inserts what it did not find; two
``referee serve`` processes on one database can both find nothing and both insert.  The
insert skips a key the other stored meanwhile (``ON CONFLICT (source_key) DO NOTHING``), the
mail counts as a copy here, and nothing is logged as an error.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import func, select

from bot.core.inbox import Inbox, Incoming, Stored
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import InboundMessage
from tests.email.world import START

RAW = b"From: a@example.org\r\nMessage-ID: <one@example.org>\r\n\r\nHELP\r\n"
OTHER = b"From: b@example.org\r\nMessage-ID: <two@example.org>\r\n\r\nLIST\r\n"


def test_two_intakes_storing_the_same_mail_at_once_is_a_quiet_no_op(database_url: str, caplog):
    engines = [make_engine(database_url) for _ in range(2)]
    try:
        first, second = (Inbox(session_factory(engine)) for engine in engines)
        same = Incoming("imap:a:1:1", "<one@example.org>", RAW, START)
        other = Incoming("imap:a:1:2", "<two@example.org>", OTHER, START)
        theirs: list[Stored] = []
        errors: list[BaseException] = []

        def store_as_the_other_intake() -> None:
            try:
                with second.batch() as batch:
                    theirs.extend(second.store_many(batch, "email", [same, other]))
            except BaseException as exc:  # the test reports it below
                errors.append(exc)

        with caplog.at_level(logging.DEBUG):
            with first.batch() as batch:
                ours = first.store_many(batch, "email", [same])
                # The other intake stores the same mail while this batch has not committed: on
                # PostgreSQL its look-up finds nothing and its insert waits on the unique key.
                racer = threading.Thread(target=store_as_the_other_intake)
                racer.start()
                racer.join(timeout=1.0)
            racer.join(timeout=30)
        assert not errors, errors
        assert ours[0].new
        assert [(s.source_key, s.id, s.new) for s in theirs] == [
            ("imap:a:1:1", ours[0].id, False), ("imap:a:1:2", theirs[1].id, True),
        ]  # fmt: skip
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
        with unit_of_work(session_factory(engines[0])) as session:
            assert session.scalar(select(func.count()).select_from(InboundMessage)) == 2
    finally:
        for engine in engines:
            engine.dispose()
