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
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
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
        for pattern in PASSWORD_VALUES:
            text = pattern.sub(lambda m: m.group(1) + MASK, text)
        return SEAT_PASSWORD.sub(MASK, text)

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


def configure(
    log_format: str = "text", level: str = "INFO", secrets: Iterable[str] = (), stream: TextIO | None = None
) -> logging.Handler:
    """Install (or replace) the referee's handler on the root logger; returns it."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, _OURS, False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    setattr(handler, _OURS, True)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    handler.addFilter(SecretFilter(secrets))
    root.addHandler(handler)
    root.setLevel(level)
    return handler
