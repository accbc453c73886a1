"""A game's next deadline as calendar data: what a calendar entry (iCalendar VEVENT) needs, as plain JSON.

One entry per turn of a game's live line of turns: its UID names the game, the
generation (a rollback starts a new line: :mod:`bot.core.turns.generations`) and
the turn, under the mail domain, so a mail's attachment, the game's public
calendar and a player's private calendar all speak of the same entry, and a
copy with a higher ``sequence`` (``games.calendar_sequence``,
:mod:`bot.core.games.calendar_sequence`) replaces the one a calendar holds.

The entry is plain data, so an outbox row can carry it (the mail renderer
builds its ``deadline.ics`` from it) and the views can build a whole calendar
from several (:mod:`bot.core.views.calendars`).  A paused or ended game's entry
is ``cancelled`` (iCalendar ``STATUS:CANCELLED``): a calendar drops the entry it
holds; a resumed game's entry comes back with a higher sequence.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.core.games.stored import FORMING, RUNNING, rules_of, turn_shown
from bot.core.model.config import ServiceConfig
from bot.store.models import Game


def entry_uid(game: Game, domain: str) -> str:
    """The UID of the entry of the game's open turn (once it is over, of the turn it ended in:
    :func:`bot.core.games.stored.turn_shown`): game, generation and turn, under ``domain``."""
    return f"deadline-{game.slug}-{game.generation}-{turn_shown(game)}@{domain}"


def deadline_entry(game: Game, config: ServiceConfig, now: datetime) -> dict[str, Any] | None:
    """The calendar entry of ``game``'s open turn, or None before the game starts (no deadline yet).

    ``start`` is the moment orders are due (the grace's end while a turn waits past its deadline
    for late seats), in UTC; where none holds (an ended game) it is the moment the game ended
    or ``now``, and the entry is cancelled.  ``stamp`` is when the entry was made (``DTSTAMP``).
    """
    if game.status == FORMING or game.state is None:
        return None
    due = game.grace_until or game.deadline_at
    start = due or game.finished_at or now
    return {
        "uid": entry_uid(game, config.message_domain),
        "sequence": game.calendar_sequence or 0,
        "start": start.isoformat(),
        "stamp": now.isoformat(),
        "cancelled": game.status != RUNNING or due is None,
        "status": game.status,
        "game": game.slug,
        "title": rules_of(game).title,
        "turn": turn_shown(game),
        "time_zone": game.time_zone,
        "url": config.page_of(game.slug),
    }
