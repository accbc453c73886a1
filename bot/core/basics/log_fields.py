"""Ids that every log line of the current piece of work carries (game, turn, message, interaction).

``with log_fields(game="gs1", turn=3): ...`` adds the fields to every record
logged inside the block, in this task and in the threads it starts with
``asyncio.to_thread`` (which copies the context), whichever module logs;
:mod:`bot.core.runtime.logging_setup` writes them as JSON keys or ``[game=gs1 turn=3]``.
Nested blocks add to (and may override) the outer fields; leaving a block
restores them.  A field passed with ``extra=`` on the call itself wins.

Names are :data:`FIELDS`; values are shown with ``str``; ``None`` is left out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from types import MappingProxyType

FIELDS = ("game", "turn", "message_id", "interaction")
"""What a block may set (the worker's name is :data:`bot.core.runtime.health.current_worker`)."""

_NONE: Mapping[str, str] = MappingProxyType({})
_current: ContextVar[Mapping[str, str]] = ContextVar("log_fields", default=_NONE)


@contextlib.contextmanager
def log_fields(**fields: object) -> Iterator[None]:
    """Every record logged inside the block carries ``fields`` (unknown names are a bug: ValueError)."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown log fields {sorted(unknown)}; known: {FIELDS}")
    merged = {**_current.get(), **{name: str(value) for name, value in fields.items() if value is not None}}
    token = _current.set(MappingProxyType(merged))
    try:
        yield
    finally:
        _current.reset(token)


def current_fields() -> Mapping[str, str]:
    """The fields of the block now running (empty outside any)."""
    return _current.get()


def game_named(commands: Iterable[object]) -> str | None:
    """The game the first of ``commands`` that names one names (for the ``game`` field), or None."""
    for command in commands:
        game = getattr(command, "game", None)
        if isinstance(game, str) and game:
            return game
    return None
