"""Reading fetched mail in a process of its own (bot/email/mail_reader.py).

The reader process must give exactly what reading inline gives, for every
mail of the corpus; a reader process that dies leaves its batch to be read
inline (nothing lost, nothing read twice into the database); and it must
not outlive the intake's process, even one killed with SIGKILL.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bot.email.mail_reader as reader_module
from bot.core.intake.sender_budgets import SenderBudgetLimits, SenderBudgets
from bot.email.mail_reader import ANSWERS_PIPE_BYTES, MailReader, ReadingFailed, ToRead, read_mails, widen_pipe
from tests.email.pipeline import POLICY
from tests.email.test_corpus import CASES, raw_of
from tests.email.world import START

ROOT = Path(__file__).resolve().parents[2]


def corpus_batch() -> list[ToRead]:
    small = [case for case in CASES if "generate" not in case]  # the generated ones are megabytes
    return [ToRead(f"corpus:{n}", raw_of(case), START) for n, case in enumerate(small)]


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")  # a zombie has ended; whoever adopted it reaps it


def test_the_reader_process_reads_every_corpus_mail_as_reading_inline_does():
    batch = corpus_batch()
    assert len(batch) >= 40
    reader = MailReader(POLICY, processes=1)
    try:
        in_process = reader.read(batch)
        again = reader.read(batch[:5])  # the same process takes a second batch
    finally:
        reader.close()
    assert reader.batches_in_process == 2
    assert in_process == read_mails(batch, POLICY)
    assert again == in_process[:5]
    assert any(mail.reading.envelope is not None for mail in in_process if not isinstance(mail.reading, Exception))


def test_a_mail_that_makes_reading_raise_fails_alone(monkeypatch):
    batch = corpus_batch()[:3]

    def broken(raw, source_id, *args, **kwargs):
        if source_id == "corpus:1":
            raise LookupError("a bug in the reader")
        return original(raw, source_id, *args, **kwargs)

    original = reader_module.understand
    monkeypatch.setattr(reader_module, "understand", broken)
    read = read_mails(batch, POLICY)
    assert isinstance(read[1].reading, ReadingFailed) and "LookupError: a bug in the reader" in str(read[1].reading)
    assert not isinstance(read[0].reading, Exception) and not isinstance(read[2].reading, Exception)
    assert read[1].digest and read[1].message_id == read_mails(batch, POLICY)[1].message_id


def test_a_reader_process_killed_mid_batch_leaves_the_batch_to_be_read_inline(monkeypatch, caplog):
    batch = corpus_batch()
    reader = MailReader(POLICY, processes=1)
    try:
        reader.warm_up()
        process = reader._process
        assert process is not None and process.poll() is None
        reader.start(batch)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        with caplog.at_level(logging.WARNING, logger="bot.email.mail_reader"):
            read = reader.result()
        assert read == read_mails(batch, POLICY)
        assert "the mail reader process is gone" in caplog.text
        # Within RESTART_AFTER the next batch is read inline; after it, by a new process.
        assert reader.read(batch[:2]) == read[:2] and reader._process is None
        monkeypatch.setattr(reader_module, "RESTART_AFTER", 0.0)
        before = reader.batches_in_process
        assert reader.read(batch[:2]) == read[:2]
        assert reader.batches_in_process == before + 1 and reader._process.pid != process.pid
    finally:
        reader.close()


def test_the_reader_process_ends_when_the_intake_process_is_killed(tmp_path):
    script = tmp_path / "intake.py"
    script.write_text(
        "import sys, time\n"
        "from bot.email.mail_reader import MailReader\n"
        "from bot.email.understand import IntakePolicy\n"
        "if __name__ == '__main__':\n"
        "    reader = MailReader(IntakePolicy(), processes=1)\n"
        "    reader.warm_up()\n"
        "    print(reader._process.pid, flush=True)\n"
        "    time.sleep(60)\n"
    )
    intake = subprocess.Popen(
        [sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        assert intake.stdout is not None
        child = int(intake.stdout.readline())
        assert not gone(child)
        intake.send_signal(signal.SIGKILL)
        intake.wait(10)
        deadline = time.monotonic() + 10
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(child), "the reader process outlived the intake"
    finally:
        intake.kill()


def test_a_reader_process_is_one_or_none():
    with pytest.raises(ValueError, match="inline"):
        MailReader(POLICY, processes=2)


def test_a_mail_over_the_time_budget_is_parked_unread_and_the_rest_of_the_batch_is_read(caplog):
    """The screen's limits raised, so a multipart nested 500 deep with 500,000 empty lines (1 MB)
    reaches the parser (about 21 s of CPU, :func:`tests.email.test_prescreen.slow_to_read`): the
    reader process is killed after the budget of 2 s, that mail is NotRead with a reply to its
    plain From, and a new process reads the mails behind it."""
    from bot.email.mail_reader import ReadingBudget
    from bot.email.prescreen import MailLimits, NotRead
    from tests.email.test_prescreen import slow_to_read

    ordinary = corpus_batch()[:3]
    hostile = ToRead("hostile", slow_to_read(500, 500_000), START)
    batch = [ordinary[0], hostile, *ordinary[1:]]
    limits = MailLimits(header_bytes=10**8, header_fields=10**8, addresses=10**8, multiparts=10**8, nested_lines=10**12)
    reader = MailReader(POLICY, 1, limits, ReadingBudget(seconds=2))
    try:
        reader.warm_up()
        first = reader._process.pid
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="bot.email.mail_reader"):
            read = reader.read(batch)
        took = time.monotonic() - started
        assert reader.read(ordinary[:1]) == read_mails(ordinary[:1], POLICY), "the new process reads on"
        assert reader._process.pid != first
    finally:
        reader.close()
    assert took < 2 + 5, f"the batch took {took:.1f} s with a budget of 2 s"
    assert [r for n, r in enumerate(read) if n != 1] == read_mails(ordinary, POLICY)
    assert isinstance(read[1].reading, NotRead) and "budget of 2 s" in read[1].reading.reason
    assert read[1].reading.reply is not None and read[1].reading.reply.sender.address == "mallory@example.net"
    assert reader.over_budget == 1 and "took more than 2 s" in caplog.text
    print(f"\n[budget] a batch with a mail 500 multiparts deep read in {took:.2f} s (budget 2 s)")


def test_the_reader_process_runs_with_its_address_space_limited():
    from bot.email.mail_reader import ReadingBudget

    reader = MailReader(POLICY, 1, budget=ReadingBudget(memory_mb=300))
    try:
        reader.warm_up()
        limits = Path(f"/proc/{reader._process.pid}/limits").read_text()
    finally:
        reader.close()
    (line,) = [line for line in limits.splitlines() if line.startswith("Max address space")]
    assert line.split()[3] == str(300 * 1024 * 1024), line


def test_a_mail_s_reading_time_is_the_child_s_own_however_late_the_intake_collects_it():
    """The intake collects a batch's answers only after applying the batch before; a sender's budget
    is charged what reading its mails took in the child, not the time the answers waited to be taken
    (the strangers' budget would run out on mail that cost nothing, and good mail would be parked)."""
    batch = corpus_batch()[:20]
    senders = SenderBudgets(SenderBudgetLimits(), lambda: frozenset())
    reader = MailReader(POLICY, processes=1, senders=senders)
    try:
        reader.warm_up()
        reader.start(batch)
        time.sleep(1.0)  # the intake applies the batch before meanwhile
        read = reader.result()
    finally:
        reader.close()
    assert len(read) == len(batch) and reader.batches_in_process == 2
    spent = senders._strangers.since(0.0)
    assert 0.0 < spent < 0.5, f"{len(batch)} mails charged {spent:.3f} s of reading (the intake waited 1 s)"


def test_the_answers_pipe_has_room_for_a_whole_batch():
    """A batch's answers (about 1 KB a mail) fit in the pipe, so the child reads on while the intake
    applies the batch before (Linux; elsewhere the pipe keeps the system's size)."""
    ours, theirs = os.pipe()
    try:
        room = widen_pipe(ours)
        if sys.platform == "linux":
            assert room >= min(ANSWERS_PIPE_BYTES, int(Path("/proc/sys/fs/pipe-max-size").read_text()))
            assert room >= 256 * 1024
    finally:
        os.close(ours)
        os.close(theirs)
