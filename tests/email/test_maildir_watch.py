"""The Maildir intake reads a delivered message within seconds, whatever its longest wait between passes.

The intake here only counts its passes (what it reads is tested with the real intake elsewhere:
test_cli_email, test_end_to_end); the Maildir and the delivery into it are real.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from bot.email.intake import IntakeResult
from bot.email.maildir import MaildirIntakeLoop, MaildirMailbox, deliver


class CountingIntake:
    """Counts passes and how many messages each saw in ``new/``; asks for the long wait every time."""

    def __init__(self) -> None:
        self.passes: list[tuple[float, int]] = []

    def run_once(self, mailbox: MaildirMailbox) -> IntakeResult:
        self.passes.append((time.monotonic(), len(mailbox.unacknowledged())))
        return IntakeResult()

    def seconds_to_wait(self, poll_seconds: float, _name: str) -> float:
        return poll_seconds


def test_a_message_delivered_during_a_long_wait_is_read_within_seconds(tmp_path: Path) -> None:
    mailbox = MaildirMailbox(tmp_path / "in")
    intake = CountingIntake()
    loop = MaildirIntakeLoop(mailbox, intake, poll_seconds=600, watch_seconds=0.2)  # type: ignore[arg-type]
    stop = threading.Event()
    worker = threading.Thread(target=loop.run, args=(stop,), daemon=True)
    worker.start()
    try:
        while not intake.passes:
            time.sleep(0.01)
        time.sleep(0.5)
        assert len(intake.passes) == 1  # nothing new: it waits (no pass every watch)
        delivered = time.monotonic()
        deliver(mailbox.root, b"From: a@example.org\r\nSubject: hi\r\n\r\nHELP\r\n")
        while len(intake.passes) < 2 and time.monotonic() - delivered < 5:
            time.sleep(0.01)
        assert len(intake.passes) == 2, "the delivery did not wake the intake"
        at, seen = intake.passes[1]
        assert seen == 1 and at - delivered < 1.0
    finally:
        stop.set()
        worker.join(5)
    assert not worker.is_alive()
