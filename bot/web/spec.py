"""What ``referee serve`` hands the web pages' process: one line of JSON on its standard input.

The pages run in a process of their own (:mod:`bot.web.process`), started by
the web worker (:mod:`bot.web.runtime`) with what the serving process has
already read and checked: the database to read, the web section, the core's
configuration (the secret key the private calendars' addresses are derived
from, the mail domain), the channels' hints and the log level.  Nothing is
read again from the settings file, so the pages always match the settings
the rest of the referee runs with (a SIGHUP restarts them with the new ones),
and no secret is on a command line or in the environment.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import typing
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.channels.contract import Hints
from bot.core.model.config import ServiceConfig
from bot.web.channel import WebSettings

D = TypeVar("D")


@dataclass(frozen=True)
class PagesSpec:
    """Everything the pages' process needs."""

    database: str
    """The database's URL (or SQLite path), opened read-only."""
    settings: WebSettings
    config: ServiceConfig
    hints: Hints
    log_level: int

    def to_line(self) -> bytes:
        """This spec as one line of JSON (ending with a newline)."""
        data = {
            "database": self.database,
            "settings": _encoded(self.settings),
            "config": _encoded(self.config),
            "hints": _encoded(self.hints),
            "log_level": self.log_level,
        }
        return json.dumps(data).encode() + b"\n"

    @classmethod
    def from_line(cls, line: bytes) -> PagesSpec:
        """The spec :meth:`to_line` wrote; ValueError (or KeyError, TypeError) for anything else."""
        data = json.loads(line)
        return cls(
            database=str(data["database"]),
            settings=_decoded(WebSettings, data["settings"]),
            config=_decoded(ServiceConfig, data["config"]),
            hints=_decoded(Hints, data["hints"]),
            log_level=int(data["log_level"]),
        )


def _encoded(value: Any) -> Any:
    """A dataclass's fields as JSON values: tuples and frozensets as lists, bytes as base64."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encoded(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, frozenset):
        return sorted(_encoded(item) for item in value)
    if isinstance(value, tuple):
        return [_encoded(item) for item in value]
    return value


def _decoded(kind: type[D], data: dict[str, Any]) -> D:
    """The dataclass ``kind`` from :func:`_encoded`'s form, each field converted back by its type hint."""
    hints = typing.get_type_hints(kind)
    return kind(**{name: _as(hints[name], value) for name, value in data.items()})


def _as(hint: Any, value: Any) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is bytes:
        return base64.b64decode(value)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_as(args[0], item) for item in value)
        return tuple(_as(arg, item) for arg, item in zip(args, value, strict=True))
    if origin is frozenset:
        return frozenset(_as(args[0], item) for item in value)
    if hint in (int, float, str, bool):
        return hint(value)
    raise TypeError(f"no JSON form for {hint!r}")
