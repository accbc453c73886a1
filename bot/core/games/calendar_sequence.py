"""The calendar sequence of a game: it rises whenever the game's next deadline changes.

Calendars keep a deadline entry by its UID and take a copy with a higher
``SEQUENCE`` as its update (RFC 5545 3.8.7.4, RFC 5546 2.1.4).  Rather than a
line in every handler that moves a deadline (SET DEADLINE, EXTEND, PAUSE,
RESUME, PROCESS, a turn resolving to the next, START, END, ROLLBACK, an absence
moving the deadline, grace), one mechanism watches the columns that say when the
next deadline is and whether it holds: an ORM ``set`` event on each of
:data:`WATCHED`.  Setting one of them to a different value raises
``games.calendar_sequence`` at once, in the same object, so whatever the handler
builds afterwards (a mail's calendar entry) already carries the risen sequence,
and the new value is written in the same flush as the change.

Writes that bypass the ORM's attributes (a bulk ``UPDATE games``) would bypass
this too; the core has none for these columns.  A brand-new game (not yet in the
database) does not count: its first deadline is set when it starts.

:func:`follow_deadline_changes` registers the events; ``bot.core.games``
calls it when imported, so every use of the core's games has them.  It is
idempotent.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.orm.base import NEVER_SET, NO_VALUE

from bot.store.models import Game

WATCHED: tuple[InstrumentedAttribute[Any], ...] = (
    Game.deadline_at,
    Game.grace_until,
    Game.status,
    Game.paused_until,
    Game.phase_number,
    Game.generation,
)
"""The columns that say when a game's next deadline is, and which turn's it is."""


def _changed(target: Game, value: Any, old: Any, initiator: Any) -> Any:
    if old is NO_VALUE or old is NEVER_SET or old == value:
        return value
    target.calendar_sequence = (target.calendar_sequence or 0) + 1
    return value


def follow_deadline_changes() -> None:
    """Register the events of the module docstring (once, however often it is called)."""
    for attribute in WATCHED:
        if not event.contains(attribute, "set", _changed):
            event.listen(attribute, "set", _changed, retval=True, active_history=True)
