"""Read-only views of the store for adapters and the demo (no models leak out).

A game reaches an adapter only as a view (docs/architecture.md, "How a game plugs in"):
:meth:`GameViews.public_view` (what everyone may see: the rules' ``public_state``)
or :meth:`GameViews.seat_view` (what one seat may see: the rules' ``seat_view``).
The stored state holds every secret (the deck order, face-down cards, another
team's hand), so no method here returns it: a hidden card is one mistake from a
screen otherwise.  ``tests/core/test_views_hide_the_state.py`` checks it.

Beside them: :mod:`bot.core.views.calendars` (a game's public calendar of
deadlines, a player's private one, behind a derived key).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from adjudicator.api import JSON, GameRules, Phase
from bot.core.games.stored import PAUSED, RUNNING, find_game, normalise_slug, phase_of, rules_of, state_for_reading
from bot.core.messaging.delivery import game_masters
from bot.core.model.commands import Sender
from bot.core.people.identities import find_player, seat_of
from bot.core.turns.game_record import export_record
from bot.store.db import unit_of_work
from bot.store.models import Game, Seat


@dataclass(frozen=True)
class GameView:
    """A snapshot of one game as someone may see it: its kind, status, open phase and seats, and
    ``shown``: the public state (``seat`` None) or ``seat``'s view (None before the game starts)."""

    slug: str
    kind: str
    status: str
    phase: Phase | None
    shown: dict[str, JSON] | None
    seats: tuple[str, ...]
    seat: str | None = None


@dataclass(frozen=True)
class GameListing:
    """One line of the list of games: enough to offer the game by name (autocomplete)."""

    slug: str
    kind: str
    title: str
    status: str


@dataclass(frozen=True)
class OfferedSeat:
    """A seat up for a substitute (public: the game's post and page say so), as a ``TAKE`` names it."""

    slug: str
    title: str
    seat: str


class GameViews:
    """Queries adapters may use; each runs in its own short transaction."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def public_view(self, slug: str) -> GameView | None:
        """``slug`` as everyone may see it (``shown`` is the rules' ``public_state``), or None: no game."""
        return self._view(slug, None, lambda rules, state: rules.public_state(state))

    def seat_view(self, slug: str, seat: str) -> GameView | None:
        """``slug`` as ``seat`` may see it (``shown`` is the rules' ``seat_view``: the public state and
        that seat's own secrets), or None: no such game, or no such seat in it."""
        return self._view(slug, seat, lambda rules, state: rules.seat_view(state, seat))

    def game(self, slug: str) -> GameView | None:
        """The public view (:meth:`public_view`), for callers that want the phase and the status."""
        return self.public_view(slug)

    def _view(
        self, slug: str, seat: str | None, show: Callable[[GameRules[Any, Any], Any], dict[str, JSON]]
    ) -> GameView | None:
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            if game is None:
                return None
            seats = tuple(s.name for s in game.seats)
            if seat is not None and seat not in seats:
                return None
            shown = None if game.state is None else show(rules_of(game), state_for_reading(game))
            return GameView(game.slug, game.kind, game.status, phase_of(game), shown, seats, seat)

    def games(self, statuses: tuple[str, ...] | None = None) -> list[GameListing]:
        """Every game (or those whose status is in ``statuses``), by slug."""
        with unit_of_work(self._sessions) as session:
            query = select(Game).order_by(Game.slug)
            if statuses is not None:
                query = query.where(Game.status.in_(statuses))
            return [GameListing(g.slug, g.kind, rules_of(g).title, g.status) for g in session.scalars(query)]

    def offered_seats(self, slug: str | None = None) -> list[OfferedSeat]:
        """The seats up for a substitute (``Seat.offered_at``) in running or paused games (or in ``slug``
        alone), by game and seat; what the seat's offer made public, nothing of who waits for it."""
        with unit_of_work(self._sessions) as session:
            query = (
                select(Game, Seat.name)
                .join(Seat, Seat.game_id == Game.id)
                .where(Seat.offered_at.is_not(None), Game.status.in_((RUNNING, PAUSED)))
                .order_by(Game.slug, Seat.position)
            )
            if slug is not None:
                query = query.where(Game.slug == normalise_slug(slug))
            return [OfferedSeat(game.slug, rules_of(game).title, name) for game, name in session.execute(query)]

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
