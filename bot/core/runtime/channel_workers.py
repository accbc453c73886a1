"""A channel's intake and sender as supervised workers (:class:`bot.core.runtime.supervisor.Worker`).

Every channel's loops run the same way under ``referee serve``: the intake in
a thread (a source's client may block), its ``prepare`` one pass over what
arrived while the bot was down, so those orders are stored and applied before
the deadline worker resolves turns that fell due meanwhile; the sender as an
asyncio task.  The supervisor restarts one that fails without stopping the
rest.  A channel names its workers (``<channel>-intake``, ``<channel>-sender``)
and brings the loops: an :class:`IntakeLoop` around the core's intake runner
(how its source is watched between passes is its own), and the core's
:class:`bot.core.messaging.sender_loop.SenderLoop`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Protocol

from bot.core.messaging.sender_loop import SenderLoop
from bot.core.runtime.intake_runner import IntakeResult, IntakeRunner
from bot.core.runtime.supervisor import Stage

log = logging.getLogger(__name__)


class IntakeLoop(Protocol):
    """Passes of the core's intake runner over a channel's source, until stopped."""

    @property
    def intake(self) -> IntakeRunner: ...

    def run_once(self) -> IntakeResult: ...

    def run(self, stop: threading.Event) -> None: ...


class IntakeWorker:
    """Runs an :class:`IntakeLoop` in a thread until stopped; its understander is closed with it."""

    stage = Stage.INTAKE

    def __init__(self, name: str, intake: IntakeLoop, logger: logging.Logger = log) -> None:
        self.name = name
        self.intake = intake
        self.log = logger
        """Where its passes are logged (the channel's own logger, so a host finds them under its name)."""

    async def prepare(self) -> None:
        await self.run_once()

    async def run_once(self) -> bool:
        try:
            result = await asyncio.to_thread(self.intake.run_once)
        except Exception as exc:
            self.log.error("intake failed: %s: %s", type(exc).__name__, exc)
            return False
        self.log.info(
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
            self.intake.intake.understander.close()  # a reader process ends with the worker (a reload starts anew)


class SenderWorker:
    """Runs a :class:`~bot.core.messaging.sender_loop.SenderLoop` until stopped; ``server`` names the
    channel's server in the log."""

    stage = Stage.SENDING

    def __init__(self, name: str, loop: SenderLoop, server: str, logger: logging.Logger = log) -> None:
        self.name = name
        self.loop = loop
        self.server = server
        self.log = logger
        """Where its passes are logged (the channel's own logger)."""

    async def prepare(self) -> None:
        """Nothing to prepare."""

    async def run_once(self) -> bool:
        report = await self.loop.drain_all()
        if report.unavailable is not None:
            self.log.error("sender: %s unavailable: %s", self.server, report.unavailable)
            return False
        self.log.info("sender: %d sent, %d refused", report.sent, report.failed)
        return True

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop.run(stop, self.server)
