"""The deadline worker: resolves every running game whose deadline has passed.

Deadlines are a column on the game, not a timer in memory, so the worker only
has to look: after a restart, or after the bot was down across a deadline, the
first pass resolves whatever is due.  It sleeps until the earliest deadline
(or ``interval``, whichever is sooner), so a deadline set while it sleeps is
picked up at the latest one interval late.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

from bot.core.basics.clock import Clock
from bot.core.runtime.housekeeping import Housekeeping
from bot.core.runtime.service import GameService
from bot.core.runtime.supervisor import Stage

log = logging.getLogger(__name__)


class DeadlineWorker:
    """Runs :meth:`GameService.resolve_due` whenever something may be due (a supervised worker)."""

    name = "deadlines"
    stage = Stage.DEADLINES

    def __init__(
        self,
        service: GameService,
        clock: Clock,
        interval: timedelta = timedelta(seconds=30),
        housekeeping: Housekeeping | None = None,
    ) -> None:
        self._service = service
        self._clock = clock
        self.interval = interval
        self.housekeeping = housekeeping
        """Run once an hour or so after the pass (:mod:`bot.core.runtime.housekeeping`); None: never."""

    async def prepare(self) -> None:
        """Nothing to prepare."""

    async def run_once(self) -> bool:
        await asyncio.to_thread(self.run_once_sync)
        return True

    def run_once_sync(self) -> list[tuple[str, int]]:
        """Resume paused games whose pause ended, free the seats of ended ready checks, resolve what is
        due, send due reminders and digests, keep house (when due); returns what resolved."""
        now = self._clock.now()
        for game in self._service.resume_due(now):
            log.info("resumed game %s: its pause ended", game, extra={"game": game})
        for game, freed in self._service.expire_ready_checks(now):
            log.info("the ready check of %s ended; freed: %s", game, ", ".join(freed) or "nobody",
                     extra={"game": game})  # fmt: skip
        resolved = self._service.resolve_due(now)
        reminded = self._service.remind_due(now)
        if reminded:
            log.info("sent %d reminder(s)", reminded)
        digests = self._service.send_digests_due(now)
        if digests:
            log.info("wrote %d digest(s)", digests)
        for game, turn in resolved:
            log.info("resolved game %s turn %d at its deadline", game, turn, extra={"game": game, "turn": turn})
        if self.housekeeping is not None:
            self.housekeeping.run_if_due(now)
        return resolved

    def seconds_to_wait(self) -> float:
        """Until the earliest deadline, at most ``interval``."""
        wait = self.interval.total_seconds()
        deadline = self._service.next_deadline()
        if deadline is not None:
            wait = min(wait, max(0.0, (deadline - self._clock.now()).total_seconds()))
        return wait

    async def run(self, stop: asyncio.Event) -> None:
        """Resolve due games until ``stop`` is set; errors are logged and retried after one interval."""
        while not stop.is_set():
            try:
                await asyncio.to_thread(self.run_once_sync)
                wait = await asyncio.to_thread(self.seconds_to_wait)
            except Exception:
                log.exception("the deadline worker failed; trying again in %s", self.interval)
                wait = self.interval.total_seconds()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=max(wait, 0.05))
