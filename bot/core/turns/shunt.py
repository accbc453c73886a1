"""The turn shunt: a game whose resolution raises is retried with back-off, then parked.

Like Mailman's shunt queue, but for turns.  Each failure is counted on the
game (``turn_failures``, ``turn_error``) and the next try is due at
``resolve_at`` (``turn_retry_seconds``, doubling, at most an hour).  After
``turn_max_attempts`` failures the turn is parked (``turn_parked_at``): the
deadline worker leaves it alone, the game masters and the host are told, and
the host lists it with ``referee turns list`` and puts it back with
``referee turns requeue GAME`` once the cause is fixed.  No order is lost:
the orders on file stay on file.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.games.stored import find_game
from bot.core.messaging.delivery import Delivery
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToGameMasters, ToHost
from bot.store.db import unit_of_work
from bot.store.models import Game

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig

log = logging.getLogger(__name__)

MAX_RETRY = timedelta(hours=1)


def record_failure(session: Session, game_id: int, now: datetime, error: str, config: ServiceConfig) -> bool:
    """Count a failed resolution of ``game_id``'s open turn; returns True when it is now parked."""
    game = session.get_one(Game, game_id)
    game.turn_failures += 1
    game.turn_error = error[:4000]
    turn = game.phase_number
    if game.turn_failures >= config.turn_max_attempts:
        game.turn_parked_at = now
        game.resolve_at = None
        log.error(
            "game %s turn %d parked after %d failed resolutions: %s; fix, then `referee turns requeue %s`",
            game.slug, turn, game.turn_failures, error.splitlines()[0], game.slug,
            extra={"game": game.slug, "turn": turn},
        )  # fmt: skip
        message = Message(
            "turn_parked", {"game": game.slug, "turn": turn, "attempts": game.turn_failures,
                            "error": error.splitlines()[0][:300]}
        )  # fmt: skip
        delivery = Delivery(session, config, now)
        key = f"parked:{game.slug}:{game.generation}:{turn}:{now.isoformat()}"
        delivery.send(Outcome(ToGameMasters(game.id), message, NOTICE, key, game.id, turn))
        delivery.send(Outcome(ToHost(), message, NOTICE, key, game.id, turn))
        return True
    delay = min(MAX_RETRY, timedelta(seconds=config.turn_retry_seconds * 2 ** (game.turn_failures - 1)))
    game.resolve_at = now + delay
    log.warning(
        "game %s turn %d failed to resolve (attempt %d of %d), retrying at %s: %s",
        game.slug, turn, game.turn_failures, config.turn_max_attempts, game.resolve_at, error.splitlines()[0],
        extra={"game": game.slug, "turn": turn},
    )  # fmt: skip
    return False


@dataclass(frozen=True)
class ParkedTurn:
    """A parked turn as the host sees it."""

    game: str
    turn: int
    attempts: int
    parked_at: datetime
    error: str


class TurnShunt:
    """What the host's ``referee turns`` subcommands use."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def parked(self) -> list[ParkedTurn]:
        with unit_of_work(self._sessions) as session:
            games = session.scalars(select(Game).where(Game.turn_parked_at.is_not(None)).order_by(Game.slug)).all()
            return [
                ParkedTurn(g.slug, g.phase_number, g.turn_failures, g.turn_parked_at, g.turn_error or "")  # type: ignore[arg-type]
                for g in games
            ]

    def requeue(self, slug: str, now: datetime) -> bool:
        """Put a parked turn back: due at once, its failure count cleared. False if it was not parked."""
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            if game is None or game.turn_parked_at is None:
                return False
            game.turn_parked_at = None
            game.turn_failures = 0
            game.resolve_at = now
            return True
