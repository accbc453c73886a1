"""A mail over the reader's budget, through the intake, on SQLite and PostgreSQL.

It is stored with its arrival time, answered from its plain From, parked with
its reason (``referee inbox list``), acknowledged, and does not hold the
watermark back; the mails behind it in the batch are read and answered.  A
parked mail the host requeues is read again by the reader process (within
the budget), never inline in the intake's process.

The mail is a multipart nested 500 deep with 500,000 empty lines (1 MB), the
screen's limits raised out of its way: reading it takes about 21 s of CPU
(:func:`tests.email.test_prescreen.slow_to_read`), the budget is 2 s.
"""

from __future__ import annotations

import time
from datetime import timedelta

from bot.core.intake.inbox import DONE, PARKED
from bot.core.intake.watermarks import Watermarks
from bot.email.intake import Intake
from bot.email.mail_reader import MailReader, ReadingBudget
from bot.email.prescreen import MailLimits
from bot.email.processor import PassResult
from tests.email.pipeline import POLICY, message, processor_for
from tests.email.test_inbox import _ListMailbox
from tests.email.test_prescreen import slow_to_read
from tests.email.world import build_world, outbox_rows
from tests.support.rendering import rendered

BUDGET = 2.0
LIMITS_OUT_OF_THE_WAY = MailLimits(
    header_bytes=10**8, header_fields=10**8, addresses=10**8, multiparts=10**8, nested_lines=10**12
)


def test_a_mail_over_the_budget_is_parked_answered_and_does_not_hold_up_the_others(sessions):
    build_world(sessions, ("demo",))
    processor = processor_for(sessions)
    reader = MailReader(POLICY, 1, LIMITS_OUT_OF_THE_WAY, ReadingBudget(seconds=BUDGET))
    marks = Watermarks(sessions)
    intake = Intake(processor, marks, reader=reader)
    mailbox = _ListMailbox(
        [
            message("STATUS demo\n", subject="before"),
            slow_to_read(500, 500_000),
            message("STATUS demo\n", subject="after"),
        ]
    )
    try:
        started = time.monotonic()
        result = intake.run_once(mailbox)
        took = time.monotonic() - started
        assert result.processed == PassResult(done=2, parked=1) and result.stored == 3
        assert mailbox.acknowledged == ["list:0", "list:1", "list:2"]
        assert took < BUDGET + 6, f"the pass took {took:.1f} s with a budget of {BUDGET} s"
        statuses = {row.source_key: (row.status, row.last_error) for row in processor.inbox.summaries()}
        assert statuses["list:0"][0] == statuses["list:2"][0] == DONE
        assert statuses["list:1"] == (PARKED, f"reading it took longer than the mail reader's budget of {BUDGET:.0f} s")
        replies = {rendered(row).recipient: rendered(row).body for row in outbox_rows(sessions)}
        assert "could not be read" in " ".join(replies["mallory@example.net"].split())
        assert all(len(line) <= 78 for line in replies["mallory@example.net"].splitlines())
        (mark,) = marks.all()
        assert mark.read_until is not None, "the parked mail does not hold the watermark back"

        # The host requeues it: the next pass reads it in the reader process again (parked again
        # within the budget), not inline in the intake's process (21 s of CPU).
        row_id = next(row.id for row in processor.inbox.summaries() if row.source_key == "list:1")
        assert processor.inbox.requeue(row_id)
        processor.clock.advance(timedelta(minutes=1))
        started = time.monotonic()
        again = intake.run_once(mailbox)
        took = time.monotonic() - started
        assert again.processed == PassResult(parked=1)
        assert took < BUDGET + 6, f"the requeued mail took {took:.1f} s"
        assert reader.over_budget == 2
    finally:
        reader.close()
