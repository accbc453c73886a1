"""The supersede rule for turn records: generations.

A resolved turn is a row keyed by **(game, generation, turn number)**.  The
game's ``generation`` names the live line of records:

* Resolving a turn inserts ``(game, game.generation, turn)``; the primary key
  refuses a second row, so within one generation no turn is ever resolved
  twice, whatever the workers, retries or crashes.
* A rollback to the start of turn ``N`` (:func:`roll_back`) starts generation
  ``g + 1``: the records of turns ``0 .. N-1`` are copied into it unchanged,
  the game's state becomes the state before turn ``N``, and turn ``N`` can be
  resolved once more, once, in the new generation.  The old generation's rows
  stay as they were (the audit trail of what was superseded).
* A game that is over is never rolled back: its seed was revealed
  (:func:`bot.core.games.stored.seed_revealed`), and with it every card it hid.
* Everything that reads a game's history (its record, its status, when a turn
  opened) reads the live generation only.

The turn played again draws afresh unless the game master asks for the same draw
(:mod:`bot.core.turns.draws`): each turn's generator derives from the seed, the turn
number and the turn's draw, which its record keeps.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.core.games.filed_orders import retire_after
from bot.core.games.stored import RUNNING, seed_revealed
from bot.core.turns import draws
from bot.store.models import Game, TurnRecord


def live_records(session: Session, game: Game) -> list[TurnRecord]:
    """The game's resolved turns in the live generation, oldest first."""
    return list(
        session.scalars(
            select(TurnRecord)
            .where(TurnRecord.game_id == game.id, TurnRecord.generation == game.generation)
            .order_by(TurnRecord.turn_number)
        ).all()
    )


def roll_back(session: Session, game: Game, to_turn: int, deadline: datetime, *, same_draw: bool = False) -> TurnRecord:
    """Restore ``game`` to the start of turn ``to_turn`` in a new generation, due at ``deadline``, with a fresh
    draw, or with the same draw and its orders on file kept as they are (``same_draw``: :mod:`bot.core.turns.draws`).

    Returns the record rolled back over; the orders on file for that turn stay on file.
    Raises ValueError when that turn has not been resolved in the live generation, or when the game is
    over (its seed was revealed: playing on with it would play with every hidden card known).
    Returns the record rolled back over; the orders on file for that turn stay on file, those for the
    turns after it no longer count (:func:`bot.core.games.filed_orders.retire_after`).
    Raises ValueError when that turn has not been resolved in the live generation.
    """
    if seed_revealed(game):
        raise ValueError(f"{game.slug} is over and its seed was revealed: it is never played on")
    records = live_records(session, game)
    target = next((r for r in records if r.turn_number == to_turn), None)
    if target is None:
        raise ValueError(f"turn {to_turn} of {game.slug} has not been resolved")
    generation = game.generation + 1
    for record in records:
        if record.turn_number >= to_turn:
            continue
        session.add(
            TurnRecord(
                game_id=game.id, generation=generation, turn_number=record.turn_number, phase_kind=record.phase_kind,
                phase_title=record.phase_title, state_before=record.state_before, orders=record.orders,
                defaulted=record.defaulted, events=record.events, report=record.report, private=record.private,
                state_after=record.state_after, resolved_at=record.resolved_at, draw=record.draw, sent=record.sent,
            )
        )  # fmt: skip
    if same_draw:
        draws.keep(game, records, to_turn)
    else:
        draws.fresh(session, game)
    retire_after(session, game.id, to_turn)  # the later turns will be played again, from another state
    game.generation = generation
    game.state = target.state_before
    game.phase_number = to_turn
    game.status = RUNNING
    game.finished_at = None
    game.resolve_at = None
    game.deadline_at = deadline
    session.flush()
    return target
