"""The web pages' own process: what ``referee serve`` runs apart from the heart of the referee.

``referee serve``'s web worker (:mod:`bot.web.runtime`) starts it
(``python -m bot.host.cli web-pages``), writes its :class:`~bot.web.spec.PagesSpec`
on its standard input as one line and keeps that pipe open: when the pipe
closes (the worker stops it, or the serving process died), or on SIGTERM or
SIGINT, the process finishes the requests it is answering and exits 0.  It
ignores SIGHUP (the serving process restarts it with its new settings).

Exhausting it costs the referee nothing: it has its own file descriptors,
threads, memory and database connections (read-only: :func:`main` is given
the opener), and runs at a lower CPU priority.  At the start it raises its
own limit on open files to the hard limit (the cap on connections stays
below it, so an accept never fails for want of one), and every repeated
warning or error is logged once a minute with a count (asyncio's own, such
as an accept that failed, included): :class:`bot.core.runtime.logging_setup.RepeatFilter`.
Its log lines are JSON on standard error; the serving process logs them as
its own, in its format, under the worker name ``web``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, BinaryIO, TextIO

from sqlalchemy.orm import Session, sessionmaker

from bot.core.runtime.logging_setup import REPEAT_INTERVAL, JsonFormatter, RepeatFilter
from bot.web.channel import WebSettings
from bot.web.limits import Limits
from bot.web.server import bound_port, site_for, start
from bot.web.spec import PagesSpec

log = logging.getLogger(__name__)

SPEC_BYTES = 1 << 20
"""The longest spec line read (it is a few kilobytes)."""
FILE_RESERVE = 64
"""Open files kept beside the connections: the database, its journal, pipes, the listening socket."""
STAMP_READERS = 4
"""Threads (and database connections) beside one per build: the stamps every request reads."""
NICENESS = 10
"""How much lower the process's CPU priority is than the serving process's (best effort)."""
EXIT_BAD_SPEC = 2
EXIT_CANNOT_LISTEN = EXIT_FAILED = 1

Opener = Callable[[str, int], AbstractContextManager[sessionmaker[Session]]]
"""(database, connections) -> read-only sessions on it, closed when the block ends (the composition
root's: an adapter opens no store)."""


@dataclass(frozen=True)
class Process:
    """What the process found about itself at the start (logged once)."""

    file_limit: int
    niceness: int


def main(open_reader: Opener, stdin: BinaryIO | None = None, stderr: TextIO | None = None) -> int:
    """Read the spec, serve the pages until told to stop; the exit code."""
    stdin = stdin or sys.stdin.buffer
    repeats = _log_to(stderr or sys.stderr)
    try:
        spec = PagesSpec.from_line(stdin.readline(SPEC_BYTES))
    except (ValueError, KeyError, TypeError) as exc:
        log.error("the web pages' process needs its settings as one line on standard input: %s", exc)
        return EXIT_BAD_SPEC
    logging.getLogger().setLevel(spec.log_level)
    itself = Process(raise_file_limit(), lower_priority())
    limits = limits_of(spec.settings, itself.file_limit)
    try:
        with open_reader(spec.database, threads_for(limits)) as sessions:
            return asyncio.run(serve(spec, sessions, limits, itself, stdin, repeats))
    except Exception:
        log.exception("the web pages' process failed")
        return EXIT_FAILED


async def serve(
    spec: PagesSpec, sessions: sessionmaker[Session], limits: Limits, itself: Process, stdin: BinaryIO,
    repeats: RepeatFilter,
) -> int:  # fmt: skip
    """Serve until the spec's pipe closes or a signal says stop; 0, or :data:`EXIT_CANNOT_LISTEN`."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(loop_errors)
    loop.set_default_executor(ThreadPoolExecutor(threads_for(limits), thread_name_prefix="web"))
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    _watch_for_eof(stdin, lambda: loop.call_soon_threadsafe(stop.set))
    settings = spec.settings
    site = site_for(sessions, spec.config, spec.hints, settings.base_url)
    try:
        runner = await start(site, settings.host, settings.port, limits)
    except OSError as exc:
        log.error("web: cannot listen on %s:%d: %s", settings.host, settings.port, exc)
        return EXIT_CANNOT_LISTEN
    flushing = asyncio.create_task(_flush_every(repeats, REPEAT_INTERVAL))
    try:
        log.info(
            "web pages served on http://%s:%d/ by process %d (at most %d connections of %d open files, "
            "a head within %g s, idle %g s, %d builds at once, %d MB kept; niceness %d)",
            settings.host, bound_port(runner), os.getpid(), limits.max_connections, itself.file_limit,
            limits.header_timeout, limits.keepalive_timeout, limits.max_builds, limits.cache_bytes >> 20,
            itself.niceness,
        )  # fmt: skip
        await stop.wait()
    finally:
        flushing.cancel()
        await runner.cleanup()
        repeats.flush()
    log.info("web pages stopped")
    return 0


def limits_of(settings: WebSettings, file_limit: int) -> Limits:
    """The bounds the settings ask for, the connections kept below the open-file limit."""
    room = max(1, file_limit - FILE_RESERVE)
    if settings.max_connections > room:
        log.warning(
            "web: max_connections %d is more than %d open files allow: at most %d connections",
            settings.max_connections, file_limit, room,
        )  # fmt: skip
    return Limits(
        max_connections=min(settings.max_connections, room),
        header_timeout=settings.header_timeout_seconds,
        keepalive_timeout=settings.keepalive_seconds,
        max_builds=settings.max_builds,
        cache_bytes=settings.cache_megabytes << 20,
    )


def threads_for(limits: Limits) -> int:
    """The process's threads that read the database, and so its database connections: every build's
    and :data:`STAMP_READERS` for the stamps (a thread never waits for a connection)."""
    return limits.max_builds + STAMP_READERS


def raise_file_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit; the soft limit now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (OSError, ValueError) as exc:  # a sandbox may refuse it (then the cap follows the soft limit)
            log.warning("web: cannot raise the open-file limit from %d to %d: %s", soft, wanted, exc)
    return int(soft)


def lower_priority() -> int:
    """Lower this process's CPU priority by :data:`NICENESS` (where allowed); the niceness now."""
    try:
        return os.nice(NICENESS)
    except OSError:
        return os.nice(0)


def loop_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """asyncio's errors (an accept that failed, a callback that raised), logged by kind: a failed accept
    is one line without a traceback, and the :class:`RepeatFilter` lets one of a kind through a minute."""
    message = str(context.get("message") or "asyncio error")
    error = context.get("exception")
    if isinstance(error, OSError):
        log.error(f"asyncio: {message}: {type(error).__name__} (errno %s): %s", error.errno, error.strerror)
    else:
        log.error(f"asyncio: {message}", exc_info=error if isinstance(error, BaseException) else None)


def _log_to(stream: TextIO) -> RepeatFilter:
    """JSON lines on ``stream`` (the serving process reads them), repeated warnings and errors held back."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    repeats = RepeatFilter()
    handler.addFilter(repeats)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return repeats


def _watch_for_eof(stdin: BinaryIO, then: Callable[[], Any]) -> None:
    """Call ``then`` (from a thread of its own) when ``stdin`` ends: the serving process closed it, or died."""

    def watch() -> None:
        with contextlib.suppress(OSError, ValueError):
            while stdin.read(4096):
                pass
        with contextlib.suppress(RuntimeError):  # the loop has ended already
            then()

    threading.Thread(target=watch, name="stdin-watch", daemon=True).start()


async def _flush_every(repeats: RepeatFilter, seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds)
        repeats.flush()
