"""Where a game's public messages go on a channel: its Discord forum post, for now.

A channel's sender creates the public place on first use (a forum post
named after the game) and records it here, so every later report of the
game lands in the same place, across restarts.  Only Discord has places
today; they are stored in ``games.discord_thread_id``.
"""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from bot.core.games import find_game
from bot.store.db import unit_of_work

_COLUMNS = {"discord": "discord_thread_id"}


def _column(channel: str) -> str:
    try:
        return _COLUMNS[channel]
    except KeyError:
        raise ValueError(f"channel {channel!r} has no public places") from None


def public_place(sessions: sessionmaker[Session], game_slug: str, channel: str) -> str | None:
    """The recorded public place of ``game_slug`` on ``channel`` (a Discord thread id), or None."""
    column = _column(channel)
    with unit_of_work(sessions) as session:
        game = find_game(session, game_slug)
        if game is None:
            return None
        value: str | None = getattr(game, column)
        return value


def record_public_place(sessions: sessionmaker[Session], game_slug: str, channel: str, place_id: str) -> None:
    """Record ``place_id`` as the public place of ``game_slug`` on ``channel`` (raises for an unknown game)."""
    column = _column(channel)
    with unit_of_work(sessions) as session:
        game = find_game(session, game_slug)
        if game is None:
            raise ValueError(f"no game called {game_slug}")
        setattr(game, column, place_id)
