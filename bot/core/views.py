"""Read-only views of the store for adapters and the demo (no models leak out)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from adjudicator.api import Phase
from bot.core.games.stored import find_game, phase_of, rules_of
from bot.core.messaging.delivery import game_masters
from bot.core.model.commands import Sender
from bot.core.people.identities import find_player, seat_of
from bot.core.turns.game_record import export_record
from bot.store.db import unit_of_work
from bot.store.models import Game


@dataclass(frozen=True)
class GameView:
    """A snapshot of one game: its kind, status, open phase and engine state (JSON)."""

    slug: str
    kind: str
    status: str
    phase: Phase | None
    state: dict[str, Any] | None
    seats: tuple[str, ...]


@dataclass(frozen=True)
class GameListing:
    """One line of the list of games: enough to offer the game by name (autocomplete)."""

    slug: str
    kind: str
    title: str
    status: str


class GameViews:
    """Queries adapters may use; each runs in its own short transaction."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def game(self, slug: str) -> GameView | None:
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            if game is None:
                return None
            return GameView(
                game.slug, game.kind, game.status, phase_of(game), game.state, tuple(s.name for s in game.seats)
            )

    def games(self, statuses: tuple[str, ...] | None = None) -> list[GameListing]:
        """Every game (or those whose status is in ``statuses``), by slug."""
        with unit_of_work(self._sessions) as session:
            query = select(Game).order_by(Game.slug)
            if statuses is not None:
                query = query.where(Game.status.in_(statuses))
            return [GameListing(g.slug, g.kind, rules_of(g).title, g.status) for g in session.scalars(query)]

    def seat_of(self, slug: str, sender: Sender) -> str | None:
        """The name of ``sender``'s seat in ``slug`` (resigned or not), or None: no seat, no player, no game."""
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            player = find_player(session, sender)
            if game is None or player is None:
                return None
            seat = seat_of(game, player)
            return None if seat is None else seat.name

    def is_game_master(self, slug: str, sender: Sender) -> bool:
        """Whether ``sender`` is a game master of ``slug`` (a channel's early check; the pipeline decides)."""
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            player = find_player(session, sender)
            if game is None or player is None:
                return False
            return player.id in {gm.id for gm in game_masters(session, game.id)}

    def record(self, slug: str) -> dict[str, Any]:
        """The sealed record of a finished game (raises ValueError otherwise)."""
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            if game is None:
                raise ValueError(f"no game called {slug}")
            return export_record(session, game)
