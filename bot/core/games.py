"""Reading a stored game: its rules, its state, its current phase, its seats."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from adjudicator import registry
from adjudicator.api import GameRules, Phase
from bot.core.batch import memo_of
from bot.store.models import Game, OrderSubmission, Seat, TurnRecord

FORMING = "forming"
RUNNING = "running"
PAUSED = "paused"
FINISHED = "finished"
ORDERS_MEMO = "orders"
"""The batch memo's kind for :func:`current_orders` (forgotten when a unit rolls back)."""


def rules_of(game: Game) -> GameRules[Any, Any]:
    return registry.get_rules(game.kind)


def state_of(game: Game) -> Any:
    """The engine state of a started game."""
    if game.state is None:
        raise ValueError(f"game {game.slug} has not started")
    return rules_of(game).load_state(game.state)


def phase_of(game: Game) -> Phase | None:
    """The phase the game waits for, or None when it has not started or is over."""
    if game.state is None or game.status == FINISHED:
        return None
    return rules_of(game).phase(state_of(game))


def find_game(session: Session, slug: str) -> Game | None:
    """The game called ``slug`` (remembered for the transaction's batch, :mod:`bot.core.batch`:
    held, its seats stay loaded from one message to the next)."""
    name = normalise_slug(slug)
    memo = memo_of(session)
    known = memo.get(("game", name))
    if known is not None and inspect(known).persistent and known.slug == name:
        return known  # type: ignore[no-any-return]
    game = session.scalar(select(Game).where(Game.slug == name))
    if game is not None:
        memo[("game", name)] = game
    return game


def normalise_slug(slug: str) -> str:
    return slug.strip().lower()


def current_orders(session: Session, game: Game, turn: int) -> dict[str, OrderSubmission]:
    """The counting submission of each seat for ``turn`` (the last one sent).

    Remembered for the transaction's batch (:mod:`bot.core.batch`): :func:`file_orders`, the one
    writer of submissions, keeps it up to date, and a unit rolled back forgets it.
    """
    memo = memo_of(session)
    key = (ORDERS_MEMO, game.id, turn)
    known: dict[str, OrderSubmission] | None = memo.get(key)
    if known is None:
        rows = session.scalars(
            select(OrderSubmission).where(
                OrderSubmission.game_id == game.id,
                OrderSubmission.turn_number == turn,
                OrderSubmission.current.is_(True),
            )
        ).all()
        known = memo[key] = {row.seat_name: row for row in rows}
    return dict(known)


def file_orders(
    session: Session,
    game: Game,
    turn: int,
    seat: str,
    raw: str,
    canonical: str,
    source_id: str,
    now: datetime,
    current: dict[str, OrderSubmission] | None = None,
) -> OrderSubmission:
    """Put ``seat``'s orders for ``turn`` on file: the last set sent counts, the earlier ones stay as history.

    ``current``: :func:`current_orders` of the turn when the caller has just read it (it is
    updated to hold the new row).
    """
    if current is None:
        current = current_orders(session, game, turn)
    for previous in current.values():
        if previous.seat_name == seat:
            previous.current = False
    row = OrderSubmission(
        game_id=game.id, turn_number=turn, seat_name=seat, raw_text=raw, canonical_text=canonical,
        source_id=source_id, current=True, submitted_at=now,
    )  # fmt: skip
    session.add(row)  # flushed with the rest of the unit (the next query or the commit writes it)
    current[seat] = row
    remembered = memo_of(session).get((ORDERS_MEMO, game.id, turn))
    if remembered is not None:
        remembered[seat] = row
    return row


def phase_opened_at(session: Session, game: Game, number: int) -> datetime | None:
    """When phase ``number`` opened: the time the turn before it was resolved (None for the first)."""
    if number == 0:
        return None
    return session.scalar(
        select(TurnRecord.resolved_at).where(
            TurnRecord.game_id == game.id,
            TurnRecord.generation == game.generation,
            TurnRecord.turn_number == number - 1,
        )
    )


def active_seats(game: Game) -> list[Seat]:
    return [seat for seat in game.seats if not seat.resigned]
