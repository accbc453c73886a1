"""Two intakes on one database storing the same mail at once: a quiet no-op (bot/core/intake/inbox.py).

Each intake looks a fetched batch's keys up first, then inserts what it did not find; two
``referee serve`` processes on one database can both find nothing and both insert.  The
insert skips a key the other stored meanwhile (``ON CONFLICT (source_key) DO NOTHING``), the
mail counts as a copy here, and nothing is logged as an error.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import func, select

from bot.core.intake.inbox import Inbox, Incoming, Stored
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


def test_two_intakes_reading_one_maildir_at_once_apply_and_answer_a_mail_once(database_url: str, tmp_path, caplog):
    """Two intakes (two ``referee serve`` processes) list the same new mail before either has
    stored it; the second stores it while the first applies it: one row, one reply, no error."""
    from bot.email.intake import Intake
    from bot.email.maildir import MaildirMailbox
    from tests.email.pipeline import message, processor_for
    from tests.email.world import build_world, outbox_rows

    root = tmp_path / "Maildir"
    first_box, second_box = MaildirMailbox(root), MaildirMailbox(root)
    (root / "new" / "1767225600.M1P1.mail").write_bytes(message("STATUS demo\n", message_id="<race@example.org>"))
    engines = [make_engine(database_url) for _ in range(2)]
    try:
        first_sessions, second_sessions = (session_factory(engine) for engine in engines)
        build_world(first_sessions, ("demo",))
        first, second = Intake(processor_for(first_sessions)), Intake(processor_for(second_sessions))
        store_many = first.inbox.store_many
        results: dict[str, object] = {}

        def second_intake() -> None:
            try:
                results["second"] = second.run_once(second_box)
            except BaseException as exc:  # the test reports it below
                results["error"] = exc

        racer = threading.Thread(target=second_intake)

        def store_then_let_the_other_in(batch, channel, items):  # type: ignore[no-untyped-def]
            stored = store_many(batch, channel, items)
            racer.start()  # it lists the mail (not acknowledged yet) and stores it before this batch commits
            racer.join(timeout=1.0)
            return stored

        first.inbox.store_many = store_then_let_the_other_in  # type: ignore[method-assign]
        with caplog.at_level(logging.DEBUG):
            ours = first.run_once(first_box)
            racer.join(timeout=30)
        assert "error" not in results, results.get("error")
        theirs = results["second"]
        assert (ours.stored, ours.processed.done) == (1, 1)
        assert (theirs.stored, theirs.duplicates, theirs.processed.done) == (0, 1, 0)  # type: ignore[attr-defined]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
        assert len(outbox_rows(first_sessions)) == 1, "one reply"
        assert not list((root / "new").iterdir()), "acknowledged"
        with unit_of_work(first_sessions) as session:
            assert session.scalar(select(func.count()).select_from(InboundMessage)) == 1
    finally:
        for engine in engines:
            engine.dispose()
