"""``referee serve``: the email intake, the sender and the deadline worker, side by side.

The intake (IMAP or Maildir) runs in a thread (imapclient is blocking); the
sender and the deadline worker are asyncio tasks.  At start-up one intake pass
runs before anything else, so orders that arrived while the bot was down are
in before the deadline worker resolves the turns that fell due meanwhile.
``stop`` ends everything within about a second.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from typing import Protocol

from bot.core.deadlines import DeadlineWorker
from bot.email.intake import IntakeResult
from bot.email.sender import MailSender
from bot.email.smtp import TransportUnavailable

log = logging.getLogger(__name__)


class IntakeLoop(Protocol):
    def run_once(self) -> IntakeResult: ...

    def run(self, stop: threading.Event) -> None: ...


@dataclass
class EmailRuntime:
    """What ``referee serve`` runs; any part may be absent (no mailbox, no outgoing mail)."""

    intake: IntakeLoop | None
    sender: MailSender | None
    deadlines: DeadlineWorker | None

    async def run_once(self) -> bool:
        """One pass of each part (``referee serve --once``); False if a part could not do its work."""
        ok = True
        if self.intake is not None:
            try:
                result = await asyncio.to_thread(self.intake.run_once)
                log.info(
                    "intake: %d stored, %d processed, %d failed, %d parked, %d acknowledged",
                    result.stored, result.processed.done, result.processed.failed, result.processed.parked,
                    result.acknowledged,
                )  # fmt: skip
            except Exception as exc:
                log.error("intake failed: %s: %s", type(exc).__name__, exc)
                ok = False
        if self.deadlines is not None:
            await asyncio.to_thread(self.deadlines.run_once)
        if self.sender is not None:
            try:
                sent = await self.sender.drain_all()
                log.info("sender: %d sent, %d refused", sent.sent, sent.failed)
            except TransportUnavailable as exc:
                log.error("sender: mail server unavailable: %s", exc)
                ok = False
        return ok

    async def serve(self, stop: asyncio.Event) -> None:
        """Run until ``stop`` is set."""
        if self.intake is not None:
            try:
                await asyncio.to_thread(self.intake.run_once)
            except Exception as exc:
                log.warning("first intake pass failed (%s: %s); the intake loop will retry", type(exc).__name__, exc)
        thread_stop = threading.Event()
        tasks: list[asyncio.Task[None]] = []
        if self.intake is not None:
            tasks.append(asyncio.create_task(asyncio.to_thread(self.intake.run, thread_stop), name="intake"))
        if self.sender is not None:
            tasks.append(asyncio.create_task(self.sender.run(stop), name="sender"))
        if self.deadlines is not None:
            tasks.append(asyncio.create_task(self.deadlines.run(stop), name="deadlines"))
        try:
            await stop.wait()
        finally:
            stop.set()
            thread_stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
