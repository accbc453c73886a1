"""Where a game's public messages go on a channel (its Discord forum post): the ``public_places`` table.

A channel's sender creates the public place on first use (a forum post
named after the game) and records it here, so every later report of the
game lands in the same place, across restarts.  The same row keeps the
message there that shows the game's status (edited in place) and the calendar
event that follows its next deadline (a Discord guild scheduled event).
"""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from bot.core.games.stored import find_game
from bot.store.db import unit_of_work
from bot.store.models import PublicPlace


def _place(session: Session, game_slug: str, channel: str) -> PublicPlace | None:
    game = find_game(session, game_slug)
    return None if game is None else session.get(PublicPlace, (game.id, channel))


def _recorded_place(session: Session, game_slug: str, channel: str) -> PublicPlace:
    place = _place(session, game_slug, channel)
    if place is None:
        raise ValueError(f"game {game_slug} has no public place on {channel}")
    return place


def public_place(sessions: sessionmaker[Session], game_slug: str, channel: str) -> str | None:
    """The recorded public place of ``game_slug`` on ``channel`` (a Discord thread id), or None."""
    with unit_of_work(sessions) as session:
        place = _place(session, game_slug, channel)
        return None if place is None else place.place_id


def record_public_place(sessions: sessionmaker[Session], game_slug: str, channel: str, place_id: str) -> None:
    """Record ``place_id`` as the public place of ``game_slug`` on ``channel`` (raises for an unknown game)."""
    with unit_of_work(sessions) as session:
        game = find_game(session, game_slug)
        if game is None:
            raise ValueError(f"no game called {game_slug}")
        place = session.get(PublicPlace, (game.id, channel))
        if place is None:
            session.add(PublicPlace(game_id=game.id, channel=channel, place_id=place_id))
        else:
            place.place_id = place_id


def status_message(sessions: sessionmaker[Session], game_slug: str, channel: str) -> str | None:
    """The recorded status message of ``game_slug`` in its public place on ``channel`` (a message id), or None."""
    with unit_of_work(sessions) as session:
        place = _place(session, game_slug, channel)
        return None if place is None else place.status_id


def record_status_message(sessions: sessionmaker[Session], game_slug: str, channel: str, message_id: str) -> None:
    """Record ``message_id`` as the status message of ``game_slug`` on ``channel`` (its place must be recorded)."""
    with unit_of_work(sessions) as session:
        _recorded_place(session, game_slug, channel).status_id = message_id


def scheduled_event(sessions: sessionmaker[Session], game_slug: str, channel: str) -> str | None:
    """The recorded calendar event of ``game_slug`` on ``channel`` (a Discord guild scheduled event id), or None."""
    with unit_of_work(sessions) as session:
        place = _place(session, game_slug, channel)
        return None if place is None else place.event_id


def record_scheduled_event(sessions: sessionmaker[Session], game_slug: str, channel: str, event_id: str | None) -> None:
    """Record ``event_id`` as the event that follows the next deadline of ``game_slug`` on ``channel``
    (None: it has none any more); its place must be recorded."""
    with unit_of_work(sessions) as session:
        _recorded_place(session, game_slug, channel).event_id = event_id
