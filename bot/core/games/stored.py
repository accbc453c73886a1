"""Reading a stored game: its rules, its state, its current phase, its seats."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, inspect, select
from sqlalchemy.orm import Session

from adjudicator import registry
from adjudicator.api import GameRules, Phase
from bot.core.basics.batch import memo_of
from bot.core.games import filed_orders
from bot.core.games.filed_orders import FiledOrders
from bot.store.models import Game, Seat, TurnRecord

FORMING = "forming"
RUNNING = "running"
PAUSED = "paused"
FINISHED = "finished"
ABANDONED = "abandoned"
"""Ended by a game master before the game finished by its rules (``END <game> ABANDON``)."""
OPENED = "opened"
"""Memo kind: (OPENED, game id, generation, turn) -> when that turn opened (None: the first)."""


def rules_of(game: Game) -> GameRules[Any, Any]:
    return registry.get_rules(game.kind)


def state_of(game: Game) -> Any:
    """The engine state of a started game."""
    if game.state is None:
        raise ValueError(f"game {game.slug} has not started")
    return rules_of(game).load_state(game.state)


def state_for_reading(game: Game) -> Any:
    """:func:`state_of`, loaded once while ``game.state`` stays the same object, for callers that
    only read it (the phase, parsing orders; an intake batch asks it for every mail of a game).

    The stored state is replaced, never changed in place (a JSON column is written when it is
    assigned), so a new state is a new object and is loaded again.  Whoever changes a state
    (resolving, overrides) uses :func:`state_of`, which loads a copy of its own.
    """
    cached: tuple[object, Any] | None = game.__dict__.get(_STATE_CACHE)
    if cached is not None and cached[0] is game.state:
        return cached[1]
    state = state_of(game)
    game.__dict__[_STATE_CACHE] = (game.state, state)
    return state


_STATE_CACHE = "_referee_loaded_state"
"""Where :func:`state_for_reading` keeps the state it loaded, on the game object (not a column)."""


def phase_of(game: Game) -> Phase | None:
    """The phase the game waits for, or None when it has not started or is over."""
    if game.state is None or game.status == FINISHED:
        return None
    return rules_of(game).phase(state_for_reading(game))


def seed_revealed(game: Game) -> bool:
    """Whether ``game``'s seed is known to its players: once it is over (finished by its rules or ended by a
    game master, abandoned too), its final report, the END notice and its record reveal it.

    The one rule for what a revealed seed allows: the record may be exported (nothing is secret any more),
    and the game is never played on (:func:`bot.core.turns.generations.roll_back` refuses it), since the seed
    and the public orders give every card the game ever hid and every order commitment's salt.
    """
    return game.status in (FINISHED, ABANDONED)


def turn_shown(game: Game) -> int | None:
    """The turn number every surface shows for ``game`` (one rule, for the status lines, the calendars and
    the pages alike): while it runs or is paused, the open turn; once it is over, the turn it ended in,
    which is the last turn played, or the turn open when a game master ended it (never the number the
    next turn would have had); None before it starts, or when it ended before its first turn."""
    if game.state is None:
        return None
    if game.status not in (FINISHED, ABANDONED):
        return game.phase_number
    if rules_of(game).phase(state_for_reading(game)) is not None:
        return game.phase_number  # ended by a game master with this turn open
    return game.phase_number - 1 if game.phase_number > 0 else None


def find_game(session: Session, slug: str) -> Game | None:
    """The game called ``slug`` (remembered for the transaction's batch, :mod:`bot.core.basics.batch`:
    held, its seats stay loaded from one message to the next)."""
    name = normalise_slug(slug)
    memo = memo_of(session)
    known = memo.get(("game", name))
    if known is not None and inspect(known).persistent and known.slug == name:
        return known  # type: ignore[no-any-return]
    game = session.scalar(_BY_SLUG, {"slug": name})
    if game is not None:
        memo[("game", name)] = game
    return game


_BY_SLUG = select(Game).where(Game.slug == bindparam("slug"))
"""A game by its slug: built once (a statement costs more to build than SQLAlchemy's cached compilation)."""


def normalise_slug(slug: str) -> str:
    return slug.strip().lower()


def current_orders(session: Session, game: Game, turn: int) -> dict[str, FiledOrders]:
    """The counting set of each seat for ``turn`` of ``game`` (:func:`bot.core.games.filed_orders.current_orders`)."""
    return filed_orders.current_orders(session, game.id, turn)


def phase_opened_at(session: Session, game: Game, number: int) -> datetime | None:
    """When phase ``number`` opened: the time the turn before it was resolved (None for the first)."""
    if number == 0:
        return None
    key = (OPENED, game.id, game.generation, number)
    memo = memo_of(session)
    if key in memo:  # remembered for the batch (bot.core.games.preload.remember loads a batch's at once)
        moment: datetime | None = memo[key]
        return moment
    moment = memo[key] = session.scalar(
        _RESOLVED_AT, {"game": game.id, "generation": game.generation, "turn": number - 1}
    )
    return moment


_RESOLVED_AT = select(TurnRecord.resolved_at).where(
    TurnRecord.game_id == bindparam("game"),
    TurnRecord.generation == bindparam("generation"),
    TurnRecord.turn_number == bindparam("turn"),
)


def seat_named(game: Game, text: str) -> Seat | None:
    """The seat of ``game`` called ``text`` (case ignored), or numbered so (``#2``: the second seat, for a
    command line a long name would push past 78 columns); None when there is none."""
    wanted = text.strip().lower()
    seat = next((s for s in game.seats if s.name.lower() == wanted), None)
    if seat is None and wanted.startswith("#") and wanted[1:].isdigit() and len(wanted) <= 4:
        number = int(wanted[1:])
        seat = game.seats[number - 1] if 1 <= number <= len(game.seats) else None
    return seat


def active_seats(game: Game) -> list[Seat]:
    return [seat for seat in game.seats if not seat.resigned]


def seat_limit(game: Game) -> int:
    """The most seats ``game`` may have: the kind's limit, lowered by the game's own
    ``--max-seats`` and ``--seats`` (the number it starts with).  Once the game has
    started its seats are fixed, so the limit is the seats it has."""
    if game.status != FORMING:
        return len(game.seats)
    most = rules_of(game).max_seats
    return min(most, game.max_seats or most, game.target_seats or most)
