"""Deadlines as calendars (RFC 5545): a game's public calendar, a player's private one, a mail's entry.

Each entry is the calendar data of one game's open turn
(:func:`bot.core.games.calendar_entry.deadline_entry`): a VEVENT whose UID names
the game, generation and turn, whose SEQUENCE is the game's
``calendar_sequence`` (it rises whenever the next deadline changes:
:mod:`bot.core.games.calendar_sequence`), starting at the deadline in UTC, and
``STATUS:CANCELLED`` while the game is paused or once it has ended, so that a
calendar that holds the entry updates or drops it.

* :meth:`CalendarViews.game_calendar`: ``/games/<slug>/calendar.ics``, anyone's to read;
* :meth:`CalendarViews.player_calendar`: ``/calendars/<key>.ics``, the player's every
  deadline with an alarm at each of the game's reminder offsets; the key is derived
  (:mod:`bot.core.people.calendar_keys`), so a wrong, old or malformed one gives None;
* :func:`entry_ics`: one entry with ``METHOD:PUBLISH``, the ``deadline.ics`` a mail carries.

Every text is built by the ``icalendar`` library (escaping, folding), never by hand.  An entry's
summary, description and alarm are in the reader's language where the reader is known: a player's
private calendar in theirs (``players.language``, else the game's), a mail's entry in its copy's
``reader_language``; a game's public calendar in the game's (``games.language``), else English.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from icalendar import Alarm, Calendar, Component, Event, vText
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import Clock, SystemClock
from bot.core.basics.durations import format_moment
from bot.core.basics.free_text import clean_line
from bot.core.basics.translation import gettext as _
from bot.core.basics.translation import speaking
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.stored import ABANDONED, FINISHED, PAUSED, RUNNING, find_game
from bot.core.model.commands import Sender
from bot.core.model.config import ServiceConfig
from bot.core.people.calendar_keys import calendar_key, calendar_url, key_matches, parse_calendar_key
from bot.core.people.identities import find_player
from bot.core.people.languages import language_of
from bot.core.turns.reminder_times import parse_reminders
from bot.store.db import unit_of_work
from bot.store.models import Game, Player, Seat

PRODUCT = "-//referee//deadlines//EN"
MEDIA_TYPE = "text/calendar; charset=utf-8"
"""The Content-Type a web route serves these calendars with."""
ENTRY_MINUTES = 15
"""How long an entry lasts in a calendar (a deadline is a moment; calendars want an end)."""
ENDED_DAYS = 30
"""How long an ended game's cancelled entry stays in a player's calendar (then it is left out)."""
C = TypeVar("C", bound=Component)
MAX_SLUG_CHARS = 80
"""A longer game name is no game's: refused without a query."""


def entry_event(entry: Mapping[str, Any], alarms: Sequence[timedelta] = (), language: str | None = None) -> Event:
    """The VEVENT of one entry (:func:`bot.core.games.calendar_entry.deadline_entry`), with a
    VALARM ``offset`` before the deadline for each of ``alarms`` (none on a cancelled entry); its
    words in ``language`` (None: English)."""
    with speaking(language):
        return _entry_event(entry, alarms)


def _entry_event(entry: Mapping[str, Any], alarms: Sequence[timedelta]) -> Event:
    start = datetime.fromisoformat(str(entry["start"])).astimezone(UTC)
    game, turn, title = str(entry["game"]), int(entry["turn"]), str(entry["title"])
    cancelled = bool(entry["cancelled"])
    properties: list[tuple[str, Any]] = [
        ("UID", str(entry["uid"])),
        ("SEQUENCE", int(entry["sequence"])),
        ("DTSTAMP", datetime.fromisoformat(str(entry["stamp"])).astimezone(UTC)),
        ("DTSTART", start),
        ("DTEND", start + timedelta(minutes=ENTRY_MINUTES)),
        ("SUMMARY", _("%(game)s: turn %(turn)s orders due (%(title)s)") % {"game": game, "turn": turn, "title": title}),
        ("DESCRIPTION", _description(entry, start)),
        ("STATUS", "CANCELLED" if cancelled else "CONFIRMED"),
        ("TRANSP", "TRANSPARENT"),
    ]
    if entry.get("url"):
        properties.append(("URL", str(entry["url"])))
    event = _component(Event(), properties)
    for offset in () if cancelled else alarms:
        due = f"{start:%Y-%m-%d %H:%M} UTC"
        reminder = _("%(game)s: turn %(turn)s orders due at %(moment)s") % {"game": game, "turn": turn, "moment": due}
        event.add_component(
            _component(Alarm(), [("ACTION", "DISPLAY"), ("TRIGGER", -offset), ("DESCRIPTION", reminder)])
        )
    return event


def _component(component: C, properties: Iterable[tuple[str, Any]]) -> C:
    """``component`` with ``properties`` added, each typed and escaped by the library."""
    for name, value in properties:
        component.add(name, value)
    return component


def _description(entry: Mapping[str, Any], start: datetime) -> str:
    game, turn = entry["game"], entry["turn"]
    when = format_moment(start, ZoneInfo(str(entry.get("time_zone") or "UTC")))
    names = {"game": game, "turn": turn, "title": entry["title"], "moment": when, "url": entry.get("url")}
    if entry["cancelled"] and entry.get("status") == PAUSED:
        lines = [
            _(
                "This deadline of game %(game)s (turn %(turn)s) no longer holds: the game is paused: a new "
                "deadline comes when it resumes."
            )
        ]
    elif entry["cancelled"]:
        lines = [_("This deadline of game %(game)s (turn %(turn)s) no longer holds: the game is over.")]
    else:
        lines = [
            _("Orders for turn %(turn)s of game %(game)s (%(title)s) are due at %(moment)s."),
            _("Send them with ORDERS %(game)s and your orders; HELP %(game)s gives the syntax,"),
            _("STATUS %(game)s the state of the game. The last set sent before the deadline counts."),
        ]
    if entry.get("url"):
        lines.append(_("The game's page: %(url)s"))
    return "\n".join(line % names for line in lines)


def _calendar(events: Iterable[Event], name: str | None = None, method: str | None = None) -> bytes:
    properties: list[tuple[str, Any]] = [("PRODID", PRODUCT), ("VERSION", "2.0"), ("CALSCALE", "GREGORIAN")]
    if method:
        properties.append(("METHOD", method))
    if name:
        properties.append(("X-WR-CALNAME", vText(name)))  # an X- property is typed (escaped) only when told
    calendar = _component(Calendar(), properties)
    for event in events:
        calendar.add_component(event)
    return bytes(calendar.to_ical())


def entry_ics(entry: Mapping[str, Any], language: str | None = None) -> bytes:
    """One entry as a calendar object with ``METHOD:PUBLISH``: the ``deadline.ics`` a mail carries, so
    the reader's calendar adds it, or updates the entry it holds with the same UID (RFC 5546 3.2.1); its
    words in ``language`` (the copy's ``reader_language``; None: English).

    A turn's report carries the same entry to every seat, one outbox row each: the text is made once
    for them per language (the entry's values are scalars, so they key a small cache; a sent row never
    changes)."""
    try:
        key = tuple(sorted(entry.items()))
        hash(key)
    except TypeError:  # not the scalars an entry holds: made afresh (and refused there if it is no entry)
        return _entry_ics(entry, language)
    return _cached_ics(key, language)


def _entry_ics(entry: Mapping[str, Any], language: str | None) -> bytes:
    return _calendar([entry_event(entry, language=language)], method="PUBLISH")


@lru_cache(maxsize=64)
def _cached_ics(items: tuple[tuple[str, Any], ...], language: str | None) -> bytes:
    return _entry_ics(dict(items), language)


class CalendarViews:
    """The calendars the web channel serves and the commands point to; each read is one short transaction."""

    def __init__(self, sessions: sessionmaker[Session], config: ServiceConfig, clock: Clock | None = None) -> None:
        self._sessions = sessions
        self._config = config
        self._clock = clock or SystemClock()

    def game_calendar(self, slug: str) -> bytes | None:
        """The public calendar of game ``slug``: its open turn's entry (none before it starts; cancelled
        while paused or once ended), or None: no such game."""
        if len(slug) > MAX_SLUG_CHARS:
            return None
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            if game is None:
                return None
            entry = self._entry(game)
            events = [] if entry is None else [entry_event(entry, language=game.language)]
            with speaking(game.language):
                name = _("%(game)s: deadlines") % {"game": game.slug}
            return _calendar(events, name=name)

    def player_calendar(self, key: str) -> bytes | None:
        """The private calendar whose address has ``key``: the deadline of every game the player holds a
        seat in (not resigned), with an alarm at each of the game's reminder offsets; an ended game's
        cancelled entry for :data:`ENDED_DAYS`.  None for a wrong, malformed, over-long or revoked key
        (``CALENDAR NEW``): bounded work, no query for a malformed key."""
        parsed = parse_calendar_key(key)
        if parsed is None:
            return None
        player_id, mac = parsed
        with unit_of_work(self._sessions) as session:
            player = session.get(Player, player_id)
            if player is None or not key_matches(player.id, player.calendar_epoch, mac, self._config.secret_key):
                return None
            events = [
                entry_event(entry, parse_reminders(game.reminders), language_of(player.language, game.language))
                for game, entry in self._seated(session, player)
            ]
            # a name stored before every name was cleaned as it entered shows nothing that acts
            with speaking(player.language):
                name = _("%(player)s: deadlines") % {"player": clean_line(player.display_name)}
            return _calendar(events, name=name)

    def calendar_url(self, sender: Sender) -> str | None:
        """The address of ``sender``'s private calendar, or None: no web pages configured, or no such player."""
        with unit_of_work(self._sessions) as session:
            player = find_player(session, sender)
            if player is None:
                return None
            key = calendar_key(player.id, player.calendar_epoch, self._config.secret_key)
            return calendar_url(self._config.web_base_url, key)

    def _entry(self, game: Game) -> dict[str, Any] | None:
        return deadline_entry(game, self._config, self._clock.now())

    def _seated(self, session: Session, player: Player) -> list[tuple[Game, dict[str, Any]]]:
        ended_since = self._clock.now() - timedelta(days=ENDED_DAYS)
        query = (
            select(Game)
            .join(Seat, Seat.game_id == Game.id)
            .where(Seat.player_id == player.id, Seat.resigned.is_(False))
            .where(
                Game.status.in_((RUNNING, PAUSED))
                | (Game.status.in_((FINISHED, ABANDONED)) & (Game.finished_at >= ended_since))
            )
            .order_by(Game.slug)
        )
        found = []
        for game in session.scalars(query):
            entry = self._entry(game)
            if entry is not None:
                found.append((game, entry))
        return found
