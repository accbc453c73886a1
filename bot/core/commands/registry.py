"""The handlers' table: one plain function per command type, and what it returns (:class:`Result`).

A handler is ``def handle(ctx: CommandContext, cmd: c.SetDeadline) -> Result``,
registered with ``@handles(c.SetDeadline)`` in its family's module (player,
orders, hosting, game_admin, overrides, presence, linking); the pipeline
imports them all and :func:`check_complete` refuses to start when a command of
the model has no handler (what mypy's exhaustive ``match`` used to guarantee).
``ctx.granted`` is what the pipeline's authorisation established (the game,
the seat, the actor).

The handler says what it did with a :class:`Result`; the pipeline writes the
audit entry, and tells a seat's player what their password did elsewhere,
from it (:mod:`bot.core.commands.pipeline`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from bot.core.model.declaration import Declared

if TYPE_CHECKING:
    from bot.core.commands.context import CommandContext


@dataclass(frozen=True)
class Result:
    """What a handler did.

    ``done``: carried out as asked; False when refused or only partly done (the
    reasons are problems in the reply).  A game master's command that is done
    is written to the audit log, including what a GM only looked at (``LOG``,
    ``PREVIEW``): the log says who looked.  ``changed``: it changed the game
    or its people (stored state), as opposed to showing something.
    """

    done: bool
    changed: bool = False


DONE = Result(True, True)
"""Carried out, and something changed."""
SHOWN = Result(True, False)
"""Carried out; only shown something."""
REFUSED = Result(False, False)
"""Refused; the reason is a problem in the reply, nothing changed."""

C = TypeVar("C", bound=Declared)
Handler = Callable[["CommandContext", Any], Result]
_HANDLERS: dict[type[Declared], Handler] = {}


def handles(kind: type[C]) -> Callable[[Callable[[CommandContext, C], Result]], Callable[[CommandContext, C], Result]]:
    """Register the decorated function as the one handler of ``kind`` (a second one is an error)."""

    def register(handler: Callable[[CommandContext, C], Result]) -> Callable[[CommandContext, C], Result]:
        if kind in _HANDLERS:
            raise TypeError(f"{kind.__name__} has a handler already: {_HANDLERS[kind].__qualname__}")
        _HANDLERS[kind] = handler
        return handler

    return register


def handler_for(kind: type[Declared]) -> Handler:
    """The handler of ``kind``; KeyError for a command nobody handles (:func:`check_complete` prevents it)."""
    return _HANDLERS[kind]


def handled() -> dict[type[Declared], Handler]:
    """A copy of the table: command type -> handler."""
    return dict(_HANDLERS)


def check_complete(kinds: Iterable[type[Declared]]) -> None:
    """Raise TypeError naming every command type of ``kinds`` that has no handler."""
    missing = [kind.__name__ for kind in kinds if kind not in _HANDLERS]
    if missing:
        raise TypeError(f"commands without a handler (register one with @handles): {', '.join(missing)}")
