"""The email channel's supervised workers: the intake (IMAP or Maildir) and the sender (SMTP or Maildir).

The intake runs in a thread (imapclient is blocking); its ``prepare`` is one
pass over what arrived while the bot was down, so those orders are stored and
applied before the deadline worker resolves turns that fell due meanwhile.
The sender is an asyncio task.  Both are :class:`bot.core.runtime.supervisor.Worker`
values: ``referee serve`` runs them beside the deadline worker and any other
channel's workers, and restarts one that fails without stopping the rest.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Protocol

from bot.core.runtime.supervisor import Stage
from bot.email.intake import Intake, IntakeResult
from bot.email.smtp import TransportUnavailable
from bot.email.transport import MailSender

log = logging.getLogger(__name__)


class IntakeLoop(Protocol):
    intake: Intake

    def run_once(self) -> IntakeResult: ...

    def run(self, stop: threading.Event) -> None: ...


class EmailIntakeWorker:
    """Reads the mailbox until stopped."""

    name = "email-intake"
    stage = Stage.INTAKE

    def __init__(self, intake: IntakeLoop) -> None:
        self.intake = intake

    async def prepare(self) -> None:
        await self.run_once()

    async def run_once(self) -> bool:
        try:
            result = await asyncio.to_thread(self.intake.run_once)
        except Exception as exc:
            log.error("intake failed: %s: %s", type(exc).__name__, exc)
            return False
        log.info(
            "intake: %d stored, %d processed, %d failed, %d parked, %d acknowledged",
            result.stored, result.processed.done, result.processed.failed, result.processed.parked,
            result.acknowledged,
        )  # fmt: skip
        return True

    async def run(self, stop: asyncio.Event) -> None:
        thread_stop = threading.Event()
        task = asyncio.create_task(asyncio.to_thread(self.intake.run, thread_stop))
        try:
            await asyncio.wait({task, asyncio.create_task(stop.wait())}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            thread_stop.set()
        try:
            await task
        finally:
            self.intake.intake.reader.close()  # its reader process ends with the worker (a reload starts anew)


class EmailSenderWorker:
    """Drains the outbox's email rows until stopped."""

    name = "email-sender"
    stage = Stage.SENDING

    def __init__(self, sender: MailSender) -> None:
        self.sender = sender

    async def prepare(self) -> None:
        """Nothing to prepare."""

    async def run_once(self) -> bool:
        try:
            sent = await self.sender.drain_all()
        except TransportUnavailable as exc:
            log.error("sender: mail server unavailable: %s", exc)
            return False
        log.info("sender: %d sent, %d refused", sent.sent, sent.failed)
        return True

    async def run(self, stop: asyncio.Event) -> None:
        await self.sender.run(stop)
