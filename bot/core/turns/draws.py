"""A turn's draw: which generator a turn resolves with, and whether what no player has seen is dealt again.

Each turn's generator derives from the game's seed, the turn number and the turn's *draw*
(:func:`adjudicator.rng.rng_for`); each turn record keeps its draw, and so does the exported record, so
``replay`` and ``verify`` play every turn as it was played (:func:`adjudicator.turn.advance_drawn`, the one
path of the live game, its preview and the replay).  The game keeps the draw of its open turn
(``games.draw``) and whether that turn first deals again what no player has seen (``games.redeal``: its draw
differs from the turn's before it).

* A turn played once draws 0.
* A rollback reopens its turn with a **fresh draw** by default (:func:`fresh`): a draw never used in the
  game, and the cards no player has seen (a draw pile's order, face-down cards) dealt again
  (:meth:`adjudicator.api.GameRules.redeal`).  The rolled-back reports showed what the turn and those after
  it drew, and the players may change their orders: with the same draw they would know the outcome (a
  replacement drawing the card everyone saw drawn).  The turns after it draw the same fresh draw.
* ``SAME DRAW`` (:func:`keep`), to correct a game master's mistake: each turn played again draws what it drew
  in the line rolled back over, and the orders on file for the reopened turn stand as they were
  (``games.orders_kept_turn``): a player who saw what it drew may not change them; a game master may still
  enter a seat's orders, which is the correction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from adjudicator.api import GameRules, Resolution
from adjudicator.turn import advance_drawn
from bot.store.models import Game, TurnRecord


def resolve_drawn(rules: GameRules[Any, Any], game: Game, state: Any, orders: Mapping[str, Any]) -> Resolution[Any]:
    """The open turn of ``game`` resolved from ``state`` with ``orders``, with its draw (and its deal again)."""
    return advance_drawn(rules, state, orders, game.seed, game.draw, redeal=game.redeal)


def after_resolving(game: Game, turn: int) -> None:
    """Turn ``turn`` has resolved with ``game.draw``: the next turn draws what the line kept for it (after a
    rollback with the same draw), else the same draw; it deals again where that differs."""
    following = (game.kept_draws or {}).get(str(turn + 1), game.draw)
    game.redeal = following != game.draw
    game.draw = following


def fresh(session: Session, game: Game) -> None:
    """The reopened turn (and those after it) draw a draw never used in ``game``, after dealing again."""
    used = session.scalar(select(func.max(TurnRecord.draw)).where(TurnRecord.game_id == game.id))
    game.draw = max(game.draw, used or 0) + 1
    game.redeal = True
    game.kept_draws = None
    game.orders_kept_turn = None


def keep(game: Game, records: Sequence[TurnRecord], to_turn: int) -> None:
    """The turns played again from ``to_turn`` draw what they drew in ``records`` (the live line, being rolled
    back over; beyond it, what an earlier rollback with the same draw kept), and the orders on file for
    ``to_turn`` stand."""
    drawn = {record.turn_number: record.draw for record in records}
    game.draw = drawn[to_turn]
    game.redeal = drawn[to_turn] != drawn.get(to_turn - 1, 0)
    kept = {turn: draw for turn, draw in (game.kept_draws or {}).items() if int(turn) > to_turn}
    kept.update({str(turn): draw for turn, draw in drawn.items() if turn > to_turn})
    game.kept_draws = kept or None
    game.orders_kept_turn = to_turn
