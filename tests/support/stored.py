"""The engine state of a game as stored, every secret included: for tests' computer players only.

Adapters never see it (they get :class:`bot.core.views.GameViews`' public and seat
views); a test that plays a game with the engine's own example player needs it.
"""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from bot.core.games.stored import find_game, rules_of, state_for_reading, state_of
from bot.store.db import unit_of_work


def example_orders(sessions: sessionmaker[Session], slug: str, seat: str, rng: random.Random) -> str:
    """What the game's own example player in ``seat`` would send now (it may read the whole state)."""
    with unit_of_work(sessions) as session:
        game = find_game(session, slug)
        assert game is not None, slug
        return rules_of(game).example_orders(state_for_reading(game), seat, rng)


def stored_state(sessions: sessionmaker[Session], slug: str) -> Any:
    """The loaded engine state of the started game ``slug``."""
    with unit_of_work(sessions) as session:
        game = find_game(session, slug)
        assert game is not None, slug
        return state_of(game)
