"""A bot process for the fault tests: IMAP intake, the deadline worker and the mail sender, which
SIGKILLs itself at a chosen point, as a power cut would.

Usage: python -m tests.faults.bot_runner DATABASE IMAP_PORT USER SMTP_PORT PHASE POINT N RUN

PHASE ``ingest`` reads the mailbox at START + 1 h (orders in time) and sends the replies;
``crunch`` runs at START + 49 h x (RUN + 1): every game is due, resolved, and its reports sent.
POINT is where the N-th call dies (``none``: run until nothing is left, exit 0); see
:data:`POINTS`.  RUN (0, 1, ...) moves the clock 3 minutes on per run, so that
rows a killed run had claimed (a 2-minute lease) are free again (ingest), or
49 hours on, so that every game is due again, a turn later (crunch).  The one window not killed in is the server's 250 and the commit that
marks the row sent: a kill there sends that row again, with the same Message-ID.  A kill point reached in
that window from elsewhere (the next pass's rows are claimed while a pass sends: the sender loop's claim
ahead) waits for the window to close, then kills (:class:`SendWindow`).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import signal
import sys
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from bench import world
from bot.core.basics.clock import SimulatedClock
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.messaging.outbox import OutboxDrain, SentMarker
from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.core.runtime.service import GameService, _is_due
from bot.email import smtp
from bot.email.imap import ImapConfig, ImapIntakeLoop, ImapMailbox
from bot.email.intake import Intake
from bot.email.mail_reader import MailReader
from bot.email.processor import MailProcessor, ReplyLimit
from bot.email.render import MailIdentity
from bot.email.transport import MailSender
from bot.email.understand import IntakePolicy
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game
from tests.support.dovecot import PASSWORD

POINTS: dict[str, tuple[Any, str, bool]] = {
    "after-store": (Inbox, "store_many", False),  # a fetched batch, in its one transaction (bot.core.basics.batch)
    "after-apply": (GameService, "apply", False),
    "after-done": (Inbox, "mark_done", False),
    "before-ack": (ImapMailbox, "acknowledge", True),
    "after-claim": (OutboxDrain, "due", False),
    "before-send": (smtp._SmtpConnection, "send", True),
    "after-mark-sent": (SentMarker, "mark_sent", False),
    "after-resolve": (GameService, "_resolve_one", False),
    "before-resolve": (GameService, "_resolve_one", True),
}
INGEST = ("after-store", "after-apply", "after-done", "before-ack", "after-claim", "before-send", "after-mark-sent")
CRUNCH = ("after-resolve", "before-resolve", "after-claim", "before-send", "after-mark-sent")


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class SendWindow:
    """The rows between their content going to the server and the commit marking them sent (the window
    no design closes: SMTP has no two-phase commit; the server may store the mail before its 250 reaches
    us).  :meth:`kill` dies now, outside it, or as it closes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = 0
        self._kill = False

    def watch(self) -> None:
        """Count a row in from ``_SmtpConnection.send`` to its mark's commit (out again if it raised)."""
        window = self
        send, mark_sent = smtp._SmtpConnection.send, SentMarker.mark_sent

        async def sent(*args: Any, **kwargs: Any) -> Any:
            with window._lock:
                window._open += 1
            try:
                return await send(*args, **kwargs)
            except BaseException:
                window._close()
                raise

        def marked(*args: Any, **kwargs: Any) -> Any:
            result = mark_sent(*args, **kwargs)
            window._close()
            return result

        smtp._SmtpConnection.send = sent  # type: ignore[method-assign]
        SentMarker.mark_sent = marked  # type: ignore[method-assign]

    def _close(self) -> None:
        with self._lock:
            self._open = max(0, self._open - 1)
            if self._open == 0 and self._kill:
                die()

    def kill(self) -> None:
        with self._lock:
            if self._open == 0:
                die()
            self._kill = True


WINDOW = SendWindow()


def kill_at(owner: Any, name: str, calls: int, before: bool) -> None:
    original: Callable[..., Any] = getattr(owner, name)
    seen = 0

    def count(stage_before: bool) -> None:
        if seen == calls and stage_before == before:
            WINDOW.kill()

    if inspect.iscoroutinefunction(original):

        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            nonlocal seen
            seen += 1
            count(True)
            result = await original(*args, **kwargs)
            count(False)
            return result

        setattr(owner, name, async_wrapper)
        return

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        seen += 1
        count(True)
        result = original(*args, **kwargs)
        count(False)
        return result

    setattr(owner, name, wrapper)


def main(argv: list[str]) -> int:
    database, imap_port, user, smtp_port, phase, point, calls, run = argv
    WINDOW.watch()  # first: a kill point's wrapper is outside it (after-mark-sent kills after the window closed)
    if point != "none":
        owner, name, before = POINTS[point]
        kill_at(owner, name, int(calls), before)
    engine = make_engine(database)
    sessions = session_factory(engine)
    if phase == "ingest":
        now = world.START + timedelta(hours=1, minutes=3 * int(run))
    else:  # every run a turn later: the games resolved by the run before are due again
        now = world.START + timedelta(hours=49 * (int(run) + 1))
    clock = SimulatedClock(now)
    service = world.service_for(sessions)
    policy = IntakePolicy(own_addresses=frozenset({world.REFEREE}))
    processor = MailProcessor(Inbox(sessions), service, clock, policy, ReplyBudget(sessions), ReplyLimit())
    imap = ImapConfig(host="127.0.0.1", port=int(imap_port), security="none", user=user, password=PASSWORD, timeout=10)
    intake = ImapIntakeLoop(imap, Intake(processor, reader=MailReader(policy, processes=1)))  # as serve runs it
    drain = OutboxDrain(sessions)
    transport = smtp.SmtpTransport(smtp.SmtpConfig(host="127.0.0.1", port=int(smtp_port), security="none"))
    sender = MailSender(drain, transport, clock, MailIdentity(world.REFEREE), batch=10)
    deadlines = DeadlineWorker(service, clock)
    for _ in range(200):
        busy = False
        if phase == "ingest":
            result = intake.run_once()
            busy = bool(result.stored or result.acknowledged)
        else:
            busy = bool(deadlines.run_once_sync())
        busy = bool(asyncio.run(sender.drain_all()).sent) or busy
        with unit_of_work(sessions) as session:
            due = session.scalar(select(func.count()).select_from(Game).where(_is_due(clock.now())))
        if not busy and drain.unsent_count("email") == 0 and (phase == "ingest" or not due):
            break
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
