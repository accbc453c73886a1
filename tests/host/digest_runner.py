"""``referee serve`` in a process that SIGKILLs itself at a point of the digest pass, as a power cut would
(tests/host/test_digest_kill9.py).

Usage: python -m tests.host.digest_runner POINT --config FILE serve

POINT ``mid-pass``: inside the pass's transaction, once the digests' outbox rows are written and their
items deleted, before the commit; ``after-commit``: as soon as the pass has committed a digest, before
the sender has sent it.  At ``after-commit`` this process's sender claims nothing: the commit rings the
sender's bell, and a claim taken in the instant before the kill would lease the row to a dead process
for the lease's two minutes (as it would after a real crash), which is the lease's test, not this one's.
"""

from __future__ import annotations

import os
import signal
import sys
from datetime import datetime
from typing import Any

from bot.core.messaging import outbox
from bot.core.runtime import service
from bot.host.cli import main


def die_if(written: int) -> int:
    if written:
        os.kill(os.getpid(), signal.SIGKILL)
    return written


def arm(point: str) -> None:
    if point == "mid-pass":
        writes = service.send_digests

        def mid_pass(*args: Any, **kwargs: Any) -> int:
            return die_if(writes(*args, **kwargs))

        service.send_digests = mid_pass
    elif point == "after-commit":
        passes = service.GameService.send_digests_due

        def after_commit(self: service.GameService, now: datetime) -> int:
            return die_if(passes(self, now))

        service.GameService.send_digests_due = after_commit  # type: ignore[method-assign]
        outbox.OutboxDrain.due = lambda self, *args, **kwargs: []  # type: ignore[method-assign]
    else:
        raise SystemExit(f"unknown point {point!r}")


if __name__ == "__main__":
    arm(sys.argv[1])
    sys.exit(main(sys.argv[2:]))
