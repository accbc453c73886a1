"""``referee serve`` on a clock the test moves: ``python -m tests.support.clocked_serve CLOCK_FILE ARGS...``.

The same ``referee`` command (:func:`bot.host.cli.main` with ``ARGS``), with one change: the clock its workers
are given (:func:`bot.host.wiring.workers`) reads the moment from ``CLOCK_FILE`` (an ISO time, aware) and runs
on from there at the machine's pace; the test writes a new moment to the file to jump.  Mail APPENDed with an
INTERNALDATE at that moment is received then (the intake takes the server's date, never later than now).
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import bot.host.wiring as wiring
from bot.host.cli import main


class FileClock:
    """Now is the moment written in ``path`` plus the time since this clock first read it (see the module)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = ""
        self.base = datetime.now().astimezone()
        self.since = time.monotonic()

    def now(self) -> datetime:
        text = self.path.read_text().strip()
        if text != self.written:
            self.written, self.base, self.since = text, datetime.fromisoformat(text), time.monotonic()
        return (self.base + timedelta(seconds=time.monotonic() - self.since)).astimezone(UTC)


def run(clock_file: str, argv: list[str]) -> int:
    clock = FileClock(Path(clock_file))
    original = wiring.workers

    def clocked(settings, sessions, _clock=None):  # type: ignore[no-untyped-def]
        return original(settings, sessions, clock)

    wiring.workers = clocked  # type: ignore[assignment]
    return main(argv)


if __name__ == "__main__":
    sys.exit(run(sys.argv[1], sys.argv[2:]))
