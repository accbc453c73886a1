"""The supervisor's back-off (bot/core/runtime/supervisor.py): the wait before a restart doubles while a
worker keeps failing, and goes back to the shortest once a run lasted the longest wait (a worker that had
been working for hours is not left down for the longest wait by its first failure)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.core.runtime import supervisor
from bot.core.runtime.supervisor import Stage


class Scripted:
    """Fails after each of ``lasting`` (seconds), then runs until stopped."""

    name = "scripted"
    stage = Stage.DEADLINES

    def __init__(self, lasting: list[float]) -> None:
        self.lasting = lasting

    async def run(self, stop: asyncio.Event) -> None:
        if not self.lasting:
            await stop.wait()
            return
        await asyncio.sleep(self.lasting.pop(0))
        raise RuntimeError("the server went away")

    async def run_once(self) -> bool:
        return True


async def test_the_wait_doubles_while_failing_and_starts_again_after_a_run_that_lasted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker = Scripted([0, 0, 0, 0.6, 0])  # the fourth run lasts longer than the longest wait (0.4 s)
    stop = asyncio.Event()
    with caplog.at_level(logging.ERROR, logger=supervisor.__name__):
        task = asyncio.create_task(supervisor.serve([worker], stop, restart_min=0.02, restart_max=0.4))
        while worker.lasting:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # the last failure's wait, then the run that lasts
        stop.set()
        await task
    waits = [record.args[1] for record in caplog.records if record.getMessage().startswith("scripted failed")]
    assert waits == pytest.approx([0.02, 0.04, 0.08, 0.02, 0.04])  # without the reset: ..., 0.16, 0.32
