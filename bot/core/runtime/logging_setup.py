"""The logs of ``referee serve``: one line per event, JSON or text, with secrets masked.

* ``json``: one object per line: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
  ``message``, and ``game``, ``turn``, ``message_id``, ``interaction``, ``worker``
  when the call passed them with ``extra=``, or when it was logged inside a
  :func:`bot.core.basics.log_fields.log_fields` block (for ``worker``: by a
  supervised worker, :data:`bot.core.runtime.health.current_worker`), plus ``exception``.
* ``text``: ``2026-12-01T10:00:00Z INFO bot.core.runtime.deadline_worker: message [game=gs1 turn=3]``.

:class:`SecretFilter` sits on the handler, so every record passes it,
whichever logger wrote it: the configured secrets (passwords, tokens) and
anything shaped like a seat password (``amber-raven-4821``, or the value
after ``PASSWORD``) become ``***`` in the message and in a traceback.

:class:`RepeatFilter` logs a repeated warning or error once per interval,
with a count of those it held back, never a line per event: a flood that
raises the same error on every request or every accept writes a few lines a
minute, not hundreds of megabytes (the web pages' process uses it).

The lines are written by a thread of their own (:class:`BackgroundHandler`): a call that logs masks
and stamps its record and puts it on a queue, so a slow or blocked stream (serve's stdout, a pipe
nobody reads quickly, a full disk behind journald) does not hold up a pass.  One queue and one writer
keep the order; :meth:`BackgroundHandler.flush` waits until every line put before it is written, and
closing the handler (serve's stop, and :func:`logging.shutdown` at the interpreter's exit) writes every
line still queued first.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import re
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from logging.handlers import QueueHandler
from typing import Any, TextIO

from bot.core.basics import linear
from bot.core.basics.log_fields import current_fields
from bot.core.runtime.health import current_worker

CONTEXT_FIELDS = ("game", "turn", "message_id", "interaction", "worker")
"""The ids a record may carry (``log.info(..., extra={"game": slug, "turn": 3})``)."""
MASK = "***"
MIN_SECRET = 4
SEAT_PASSWORD = linear.compile(r"\b[a-z]+-[a-z]+-\d{4}\b", re.IGNORECASE | re.ASCII)
"""The shape of a seat password (bot/core/people/seat_secrets.py: two words and four digits).  Word edges
are ASCII ones here (RE2 knows no other): a letter such as é next to a password is no letter, so more is
masked, never less."""
PASSWORD_VALUES = (
    linear.compile(r"(?im)(^[ \t>]*password\b[ \t:=]*)(\S+)", re.ASCII),
    linear.compile(r"(\bPASSWORD\b[ \t:=]*)(\S+)", re.ASCII),
)
"""The value after a mail's PASSWORD command: at the start of a line (any case), or PASSWORD in capitals."""
_OURS = "_referee_handler"


class SecretFilter(logging.Filter):
    """Masks ``secrets`` and seat passwords in each record's message and traceback (never drops a record).

    It also stamps the record with the ids of the :func:`bot.core.basics.log_fields.log_fields` block it was
    logged in (a field the call passed with ``extra=`` wins), before any formatter or queue sees it.

    A secret shorter than :data:`MIN_SECRET` characters is not masked as a substring (masking every
    ``x`` would make the logs unreadable, and such a password protects nothing); the PASSWORD rule
    still masks it after the mail command.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len, reverse=True)

    def mask(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        # Each pattern is run only when the text holds what any match must hold (most lines hold neither):
        # the word "password" in some case (RE2 folds its letters only to their other case and ``s`` to the
        # long s, which casefold() maps back), and two hyphens for a seat password.
        if "password" in text.casefold():
            for pattern in PASSWORD_VALUES:
                text = pattern.sub(lambda m: m.group(1) + MASK, text)
        return SEAT_PASSWORD.sub(MASK, text) if text.count("-") >= 2 else text

    def filter(self, record: logging.LogRecord) -> bool:
        for name, field in current_fields().items():  # the ids of the block being run (bot.core.basics.log_fields)
            if getattr(record, name, None) is None:
                setattr(record, name, field)
        record.msg = self.mask(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.mask(record.exc_text)
        for name in CONTEXT_FIELDS:
            value = getattr(record, name, None)
            if isinstance(value, str):
                setattr(record, name, self.mask(value))
        return True


REPEAT_INTERVAL = 60.0
"""Seconds in which a repeated warning or error is logged once (:class:`RepeatFilter`)."""
REPEAT_KINDS = 1000
"""The kinds of record :class:`RepeatFilter` remembers (the oldest forgotten first): bounded memory."""


@dataclass
class _Seen:
    since: float
    held: int = 0


class RepeatFilter(logging.Filter):
    """Lets through the first warning or error of each kind in an interval and holds back the others,
    counting them; the first of the kind let through after the interval says how many were held back.

    A kind is the logger, the level, the message before its arguments are put in (``"%s failed"``, not
    each failure's text) and the exception's type: the same fault on every request or every accept is
    one kind.  :meth:`flush` writes the counts still held (call it now and then, and at the end), so a
    flood that stops is still counted.  Records below WARNING pass untouched.
    """

    def __init__(self, interval: float = REPEAT_INTERVAL, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self._seen: OrderedDict[tuple[str, int, str, str], _Seen] = OrderedDict()
        self._examples: dict[tuple[str, int, str, str], str] = {}

    @staticmethod
    def kind(record: logging.LogRecord) -> tuple[str, int, str, str]:
        error = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
        return record.name, record.levelno, str(record.msg)[:200], error

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or getattr(record, "repeat_count", None) is not None:
            return True
        key, now = self.kind(record), self.clock()
        seen = self._seen.get(key)
        if seen is not None and now - seen.since < self.interval:
            seen.held += 1
            self._examples[key] = record.getMessage()[:500]
            return False
        if seen is not None and seen.held:
            record.msg = f"{record.getMessage()} ({self._counted(seen.held, now - seen.since)})"
            record.args = None
        self._seen[key] = _Seen(now)
        self._seen.move_to_end(key)
        self._examples.pop(key, None)
        while len(self._seen) > REPEAT_KINDS:
            forgotten, _ = self._seen.popitem(last=False)
            self._examples.pop(forgotten, None)
        return True

    def flush(self) -> None:
        """Log the count of every kind held back for a whole interval (and start its interval anew)."""
        now = self.clock()
        for key, seen in list(self._seen.items()):
            if seen.held and now - seen.since >= self.interval:
                name, level, _, _ = key
                example = self._examples.pop(key, "")
                logging.getLogger(name).log(
                    level, "%s (%s)", example, self._counted(seen.held, now - seen.since),
                    extra={"repeat_count": seen.held},
                )  # fmt: skip
                self._seen[key] = _Seen(now)

    @staticmethod
    def _counted(held: int, seconds: float) -> str:
        return f"{held} more like it in the last {seconds:.0f} s, not logged one by one"


def _context(record: logging.LogRecord) -> dict[str, Any]:
    found = {name: getattr(record, name) for name in CONTEXT_FIELDS if getattr(record, name, None) is not None}
    if "worker" not in found and current_worker.get() is not None:
        found["worker"] = current_worker.get()
    return found


def _time(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per line (a newline in a message is escaped, so one event is one line)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _time(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **_context(record),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """``time level logger: message [id=value ...]``, then the traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        context = " ".join(f"{name}={value}" for name, value in _context(record).items())
        line = f"{_time(record)} {record.levelname} {record.name}: {record.getMessage()}"
        if context:
            line += f" [{context}]"
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line += "\n" + record.exc_text
        return line


QUEUE_LINES = 10_000
"""Lines that may wait for a slow stream (:class:`BackgroundHandler`); past them a call that logs waits for
the writer, so memory stays bounded and no line is dropped."""
WRITE_SECONDS = 0.02
"""While lines keep coming, the writer writes what has gathered this often (:class:`BackgroundHandler`)."""
WAKE_SECONDS = 0.5
"""The writer looks at its queue at least this often, woken or not."""
CLOSE_SECONDS = 10.0
"""How long closing a :class:`BackgroundHandler` waits for its writer to write what is queued (a stream
blocked for longer loses the rest rather than keep the process from ending)."""


class BackgroundHandler(QueueHandler):
    """Hands each record to ``target`` (a stream handler) in a writer thread of its own.

    The handler's filters run in the caller, as with any handler (:class:`RepeatFilter`,
    :class:`SecretFilter`: the record is masked, and stamped with the block's ids, before it is
    queued); :meth:`prepare` also stamps the worker (:data:`bot.core.runtime.health.current_worker`,
    a context variable the writer thread cannot read) and drops the traceback object, keeping its
    text.  ``target`` formats and writes in the writer thread, one record after another, in the order
    they were logged.  When :data:`QUEUE_LINES` records wait, a call that logs waits for room.

    The queue is a deque (an append takes no lock and wakes nobody): the writer is woken by the first
    line after it has written everything, by :meth:`flush` and by :meth:`close`, and then writes what has
    gathered every :data:`WRITE_SECONDS` while lines keep coming (at most :data:`WAKE_SECONDS` late if a
    wake-up crossed its last look at the deque); a handoff to the writer for every line cost a thread
    switch a line in the thread that logs.
    """

    def __init__(self, target: logging.Handler, capacity: int = QUEUE_LINES) -> None:
        self.lines: deque[logging.LogRecord | threading.Event | None] = deque()
        super().__init__(self.lines)  # type: ignore[arg-type]  # only enqueue, below, uses it
        self.target = target
        self.capacity = capacity
        self._wake = threading.Event()
        self._writer: threading.Thread | None = threading.Thread(
            target=self._write, name="referee-log-writer", daemon=True
        )
        self._writer.start()

    def _write(self) -> None:
        while True:
            self._wake.wait(WAKE_SECONDS)
            self._wake.clear()
            while self.lines:
                record = self.lines.popleft()
                if record is None:
                    return
                if isinstance(record, threading.Event):  # a flush waits for it
                    record.set()
                    continue
                with contextlib.suppress(Exception):  # the target reports its own errors; nothing stops the writer
                    self.target.handle(record)
            time.sleep(WRITE_SECONDS)  # let the next lines gather: one wake-up for many

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        prepared = copy.copy(record)
        prepared.msg, prepared.args = record.getMessage(), None
        if getattr(prepared, "worker", None) is None and current_worker.get() is not None:
            setattr(prepared, "worker", current_worker.get())  # noqa: B010 (an attribute LogRecord does not declare)
        if prepared.exc_info and not prepared.exc_text:
            prepared.exc_text = logging.Formatter().formatException(prepared.exc_info)
        prepared.exc_info = None  # its text is kept; the frames it holds are not
        return prepared

    def enqueue(self, record: logging.LogRecord) -> None:
        writer = self._writer
        if writer is None:  # closed: written here, as a plain handler would
            self.target.handle(record)
            return
        while len(self.lines) >= self.capacity and writer.is_alive():
            self._wake.set()
            time.sleep(WRITE_SECONDS)  # QUEUE_LINES records wait: wait for room
        idle = not self.lines
        self.lines.append(record)
        if idle:  # the writer had written everything: this line is written at once (woken after the append,
            self._wake.set()  # so a writer that clears the wake-up before looking at the deque still sees it)

    def flush(self) -> None:
        """Return once every record logged before the call is written (and the target flushed)."""
        writer = self._writer
        if writer is not None and writer.is_alive():
            written = threading.Event()
            self.lines.append(written)
            self._wake.set()
            while not written.wait(WAKE_SECONDS) and writer.is_alive():
                pass
        self.target.flush()

    def close(self, timeout: float = CLOSE_SECONDS) -> None:
        """Write what is queued (for at most ``timeout`` seconds), stop the writer; later records are
        written by the caller.  Closing twice does nothing more."""
        writer, self._writer = self._writer, None
        if writer is not None and writer.is_alive():
            self.lines.append(None)
            self._wake.set()
            writer.join(timeout)
        self.target.flush()
        super().close()


def configure(
    log_format: str = "text", level: str = "INFO", secrets: Iterable[str] = (), stream: TextIO | None = None
) -> BackgroundHandler:
    """Install (or replace) the referee's handler on the root logger; returns it.

    The handler writes to ``stream`` (stderr by default) in a thread of its own (:class:`BackgroundHandler`):
    call its ``flush`` to wait until what was logged is written, its ``close`` when done with it (a handler
    this replaces is closed here, after what it had queued is written).
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, _OURS, False):
            root.removeHandler(handler)
            handler.close()
    target = logging.StreamHandler(stream or sys.stderr)
    target.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    handler = BackgroundHandler(target)
    setattr(handler, _OURS, True)
    handler.addFilter(RepeatFilter())  # a fault that repeats (a server away, a flood) is one line a minute
    handler.addFilter(SecretFilter(secrets))  # after it: masking puts the arguments into the message
    root.addHandler(handler)
    root.setLevel(level)
    return handler
