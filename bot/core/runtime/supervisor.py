"""The runtime of ``referee serve``: independent workers, supervised; none belongs to a channel.

A :class:`Worker` is anything with a name, a stage and ``run(stop)`` (plus
``run_once()`` for ``referee serve --once``): the deadline worker, each
channel's intake and sender.  :func:`serve` first runs every intake's
``prepare`` (one pass over what arrived while the bot was down, so those
orders are in before overdue turns resolve), then runs every worker as its own
task until ``stop`` is set.  The senders (``Stage.SENDING``) start before that
first pass, so the replies it writes go out as each of its batches commits,
not once the whole backlog is read (they resolve nothing).  A worker that raises, or returns early, is
logged and restarted with back-off (reset once a run has lasted the longest
wait); the others go on, so one channel's server being away stops nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import Sequence
from typing import Protocol

from bot.core.runtime.health import current_worker

log = logging.getLogger(__name__)


class Stage(enum.IntEnum):
    """The order of one pass (``--once``): read what arrived, resolve what is due, send what was written."""

    INTAKE = 0
    DEADLINES = 1
    SENDING = 2


class Worker(Protocol):
    """One supervised task."""

    name: str
    stage: Stage

    async def prepare(self) -> None:
        """Work to finish before any other worker starts (an intake's first pass); may do nothing."""

    async def run(self, stop: asyncio.Event) -> None:
        """Work until ``stop`` is set."""

    async def run_once(self) -> bool:
        """One pass; False when the worker could not do its work (its server is away)."""


async def serve(
    workers: Sequence[Worker], stop: asyncio.Event, restart_min: float = 1.0, restart_max: float = 60.0
) -> None:
    """Run ``workers`` until ``stop`` is set; see the module docstring."""
    sending = [w for w in workers if w.stage is Stage.SENDING]
    tasks = [asyncio.create_task(_supervised(w, stop, restart_min, restart_max), name=w.name) for w in sending]
    for worker in sorted(workers, key=lambda w: w.stage):
        if worker.stage is Stage.INTAKE:
            token = current_worker.set(worker.name)
            try:
                await worker.prepare()
            except Exception as exc:
                log.warning("%s: first pass failed (%s: %s); it will retry", worker.name, type(exc).__name__, exc)
            finally:
                current_worker.reset(token)
    rest = [w for w in workers if w.stage is not Stage.SENDING]
    tasks += [asyncio.create_task(_supervised(w, stop, restart_min, restart_max), name=w.name) for w in rest]
    try:
        await stop.wait()
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _supervised(worker: Worker, stop: asyncio.Event, restart_min: float, restart_max: float) -> None:
    """Run ``worker`` until ``stop``, restarting it after a failure: first after ``restart_min`` seconds,
    doubling up to ``restart_max`` while it keeps failing; a run that lasted ``restart_max`` or longer was
    working, so its failure starts the back-off again (a worker that fails once a day is back at once)."""
    current_worker.set(worker.name)  # this task's own context: its log lines name the worker (bot.core.runtime.health)
    loop = asyncio.get_running_loop()
    delay = restart_min
    while not stop.is_set():
        started = loop.time()
        try:
            await worker.run(stop)
            if stop.is_set():
                return
            delay = _after(delay, loop.time() - started, restart_min, restart_max)
            log.error("%s stopped by itself; restarting in %.1f s", worker.name, delay)
        except Exception:
            delay = _after(delay, loop.time() - started, restart_min, restart_max)
            log.exception("%s failed; restarting in %.1f s", worker.name, delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=delay)
        delay = min(delay * 2, restart_max)


def _after(delay: float, ran: float, restart_min: float, restart_max: float) -> float:
    """The wait before a restart: back to ``restart_min`` after a run of ``restart_max`` or longer."""
    return restart_min if ran >= restart_max else delay


async def run_once(workers: Sequence[Worker]) -> bool:
    """One pass of every worker in stage order (``referee serve --once``); False if one could not work."""
    ok = True
    for worker in sorted(workers, key=lambda w: w.stage):
        token = current_worker.set(worker.name)
        try:
            ok = await worker.run_once() and ok
        except Exception as exc:
            log.error("%s failed: %s: %s", worker.name, type(exc).__name__, exc)
            ok = False
        finally:
            current_worker.reset(token)
    return ok
