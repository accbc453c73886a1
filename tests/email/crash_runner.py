"""A bot process for the crash test: IMAP intake passes that SIGKILL themselves at a chosen point.

Usage: python -m tests.email.crash_runner DATABASE HOST PORT USER POINT N

POINT names the step after (or before) whose N-th call the process kills
itself with SIGKILL, as a power cut would:

* ``after-store``: a fetched batch was stored in its transaction (``Inbox.store_many``), not committed;
* ``after-apply``: an envelope was applied in the batch (orders and reply written, not committed);
* ``after-done``: an inbox row was marked done in the batch, not committed;
* ``before-ack``: the batches are committed, about to move the processed messages;

(one transaction a fetched batch, :mod:`bot.core.basics.batch`: a kill before its commit leaves the
whole batch unstored and unacknowledged, and the next run reads it again);
* ``none``: run passes until the mailbox is empty, then exit 0.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from bot.core.basics.clock import SimulatedClock
from bot.core.intake.inbox import Inbox
from bot.core.runtime.service import GameService
from bot.email.imap import ImapConfig, ImapIntakeLoop, ImapMailbox
from bot.email.intake import Intake
from bot.store.db import make_engine, session_factory
from tests.email.pipeline import processor_for
from tests.email.world import START
from tests.support.dovecot import PASSWORD


def kill_after(owner: type, name: str, calls: int, before: bool = False) -> None:
    original: Callable[..., Any] = getattr(owner, name)
    seen = 0

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        seen += 1
        if before and seen == calls:
            os.kill(os.getpid(), signal.SIGKILL)
        result = original(*args, **kwargs)
        if not before and seen == calls:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    setattr(owner, name, wrapper)


def main(argv: list[str]) -> int:
    database, host, port, user, point, count = argv
    calls = int(count)
    if point == "after-store":
        kill_after(Inbox, "store_many", calls)
    elif point == "after-apply":
        kill_after(GameService, "apply", calls)
    elif point == "after-done":
        kill_after(Inbox, "mark_done", calls)
    elif point == "before-ack":
        kill_after(ImapMailbox, "acknowledge", calls, before=True)
    elif point != "none":
        raise SystemExit(f"unknown kill point {point}")
    engine = make_engine(database)
    sessions = session_factory(engine)
    processor = processor_for(sessions, SimulatedClock(START + timedelta(hours=1)))
    intake = Intake(processor)
    config = ImapConfig(host=host, port=int(port), security="none", user=user, password=PASSWORD, timeout=10)
    loop = ImapIntakeLoop(config, intake)
    for _ in range(10):
        result = loop.run_once()
        if result.stored == 0 and result.acknowledged == 0:
            break
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
