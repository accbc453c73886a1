"""The web channel's worker: starts the pages' own process and watches it, under ``referee serve``'s supervisor.

The pages are not served in the serving process: readers of the web, however
many and however slow, must cost the intake, the sender and the deadline
worker nothing (no file descriptor, thread, database connection or CPU slot
of theirs).  So the worker starts ``python -m bot.host.cli web-pages``
(:mod:`bot.web.process`), hands it its settings on standard input
(:class:`~bot.web.spec.PagesSpec`) and keeps that pipe open:

* the process's log lines (JSON on its standard error) are logged here, as
  this process's own records, under the worker name ``web``;
* when the process exits by itself, ``run`` returns and the supervisor starts
  it again with back-off (:mod:`bot.core.runtime.supervisor`);
* on stop (SIGTERM, or SIGHUP's restart with new settings) the pipe is
  closed: the process finishes the requests it is answering and exits; after
  :data:`STOP_SECONDS` it is terminated, then killed.  If this process dies
  without stopping it, the pipe closes all the same and it exits.

``referee serve --once`` serves no pages (``run_once`` does nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.channels.contract import Hints
from bot.core.runtime.supervisor import Stage
from bot.web.spec import PagesSpec

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from bot.core.model.config import ServiceConfig
    from bot.web.channel import WebSettings

log = logging.getLogger(__name__)

PAGES_COMMAND = (sys.executable, "-m", "bot.host.cli", "web-pages")
"""The pages' process: the composition root's hidden subcommand, which opens the database read-only
and runs :func:`bot.web.process.main`."""
STOP_SECONDS = 10.0
"""How long a stopping pages' process may take to finish its requests before it is terminated."""
LOG_LINE_BYTES = 1 << 20
"""The longest log line read from the pages' process (a longer one is cut)."""
WORKER = "web"


class WebWorker:
    """Runs the pages' process for ``settings`` on the database ``sessions`` reads; writes nothing."""

    name = WORKER
    stage = Stage.SENDING

    def __init__(
        self,
        settings: WebSettings,
        sessions: sessionmaker[Session],
        config: ServiceConfig,
        hints: Hints | None = None,
    ) -> None:
        self.settings = settings
        self.database = database_of(sessions)
        self.config = config
        self.hints = hints or Hints()
        self.process: asyncio.subprocess.Process | None = None
        """The pages' process while it runs (for tests)."""

    def spec(self) -> PagesSpec:
        level = logging.getLogger().getEffectiveLevel()
        return PagesSpec(self.database, self.settings, self.config, self.hints, level)

    async def prepare(self) -> None:
        return None

    async def run(self, stop: asyncio.Event) -> None:
        process = await asyncio.create_subprocess_exec(
            *PAGES_COMMAND, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE, limit=LOG_LINE_BYTES,
        )  # fmt: skip
        self.process = process
        assert process.stdin is not None and process.stderr is not None
        relay = asyncio.create_task(relay_log(process.stderr))
        try:
            process.stdin.write(self.spec().to_line())
            with contextlib.suppress(ConnectionError):
                await process.stdin.drain()
            exited = asyncio.create_task(process.wait())
            stopping = asyncio.create_task(stop.wait())
            await asyncio.wait({exited, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not exited.done():
                await _stop(process)
            elif not stop.is_set():
                log.error("the web pages' process (pid %d) exited with code %s", process.pid, process.returncode)
        finally:
            if process.returncode is None:  # cancelled: never leave it behind
                process.kill()
                await process.wait()
            await relay
            self.process = None

    async def run_once(self) -> bool:
        return True  # pages are served while the bot runs; one pass has nothing to do


async def _stop(process: asyncio.subprocess.Process) -> None:
    """Close its pipe (it stops), then terminate, then kill: it is gone when this returns."""
    assert process.stdin is not None
    process.stdin.close()
    for then in (process.terminate, process.kill):
        try:
            await asyncio.wait_for(process.wait(), STOP_SECONDS)
            return
        except TimeoutError:
            log.warning("the web pages' process (pid %d) did not stop; %s", process.pid, then.__name__)
            with contextlib.suppress(ProcessLookupError):
                then()
    await process.wait()


def database_of(sessions: sessionmaker[Session]) -> str:
    """The URL of the database ``sessions`` is bound to (with its password: the pages' process opens it)."""
    engine: Any = sessions.kw.get("bind")
    if engine is None:
        raise ValueError("the web pages need sessions bound to an engine")
    return str(engine.url.render_as_string(hide_password=False))


async def relay_log(stream: asyncio.StreamReader) -> None:
    """Log each line the pages' process writes (until it closes its end) as a record of this process."""
    while True:
        try:
            line = await stream.readline()
        except ValueError:  # longer than the limit: what was read is dropped, the rest read on
            continue
        if not line:
            return
        record = record_of(line)
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


def record_of(line: bytes) -> logging.LogRecord:
    """A log record from one line of the pages' process: its JSON (:class:`bot.core.runtime.logging_setup.JsonFormatter`),
    or, for anything else it wrote (a crash before its log was set up), that text as a warning."""
    text = line.decode("utf-8", "replace").rstrip("\n")
    try:
        entry = json.loads(text)
        level = logging.getLevelName(str(entry["level"]))
        fields: dict[str, Any] = {
            "name": str(entry["logger"]),
            "levelno": level if isinstance(level, int) else logging.WARNING,
            "levelname": str(entry["level"]),
            "msg": str(entry["message"]),
            "created": datetime.fromisoformat(str(entry["time"])).timestamp(),
            "exc_text": entry.get("exception"),
        }
    except (ValueError, KeyError, TypeError, AttributeError):
        fields = {"name": __name__, "levelno": logging.WARNING, "levelname": "WARNING",
                  "msg": f"the web pages' process wrote: {text[:2000]}"}  # fmt: skip
    fields.update(args=None, worker=WORKER)
    return logging.makeLogRecord(fields)
