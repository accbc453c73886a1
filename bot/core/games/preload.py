"""What resolving or reminding a batch of games reads, loaded for the whole batch in one query each.

A deadline worker claims games in batches (``GameService.resolve_due``,
``GameService.remind_due``).  Read game by game, each game would cost a
query for its orders on file, its absences, when its turn opened, its game
masters, its observers: a batch of ten, fifty queries.  :func:`remember`
loads them for every game of the batch at once into the transaction's memo
(:func:`bot.core.basics.batch.memo_of`); the readers (:func:`bot.core.games.stored.current_orders`,
:func:`bot.core.games.stored.phase_opened_at`, :func:`absences_of`, :func:`bot.core.messaging.delivery.game_master_ids`
and :func:`bot.core.messaging.delivery.observer_ids`) answer from it, and read the
database as before for a game that was not remembered.

The memo lives as long as the transaction; nothing a resolution or a
reminder writes changes what is remembered (orders, absences, game masters
and observers are written by commands, in their own transactions).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.core.basics.batch import memo_of
from bot.core.games.filed_orders import remember_current
from bot.core.games.stored import OPENED
from bot.store.models import Absence, Game, GameMaster, Observer, TurnRecord

ABSENCES = "absences"
"""Memo kind: (ABSENCES, game id) -> the game's absence rows."""
GAME_MASTERS = "game-masters"
"""Memo kind: (GAME_MASTERS, game id) -> the player ids of its co-GMs (``game_masters`` rows)."""
OBSERVERS = "observers"
"""Memo kind: (OBSERVERS, game id) -> the player ids of its observers."""


def remember(session: Session, games: Sequence[Game], *, audiences: bool = False, absences: bool = False) -> None:
    """Load for ``games`` (at their open turn, ``Game.phase_number``) the orders on file and when the
    turn opened; with ``absences`` their absences; with ``audiences`` their game masters and observers."""
    if not games:
        return
    memo = memo_of(session)
    ids = [game.id for game in games]
    turns = {game.id: game.phase_number for game in games}
    numbers = set(turns.values())
    remember_current(session, turns.items())
    opened: dict[tuple[int, int, int], datetime | None] = {
        (game.id, game.generation, game.phase_number): None for game in games
    }
    earlier = {number - 1 for number in numbers if number > 0}
    if earlier:
        for game_id, generation, turn, resolved_at in session.execute(
            select(TurnRecord.game_id, TurnRecord.generation, TurnRecord.turn_number, TurnRecord.resolved_at)
            .where(TurnRecord.game_id.in_(ids), TurnRecord.turn_number.in_(earlier))
        ).all():  # fmt: skip
            if (game_id, generation, turn + 1) in opened:
                opened[(game_id, generation, turn + 1)] = resolved_at
    for (game_id, generation, turn), moment in opened.items():
        memo[(OPENED, game_id, generation, turn)] = moment
    if absences:
        rows: dict[int, list[Absence]] = {game_id: [] for game_id in ids}
        for row in session.scalars(select(Absence).where(Absence.game_id.in_(ids)).order_by(Absence.id)):
            rows[row.game_id].append(row)
        for game_id, found in rows.items():
            memo[(ABSENCES, game_id)] = found
    if audiences:
        masters: dict[int, list[int]] = {game_id: [] for game_id in ids}
        for game_id, player_id in session.execute(
            select(GameMaster.game_id, GameMaster.player_id).where(GameMaster.game_id.in_(ids))
        ).all():
            masters[game_id].append(player_id)
        watching: dict[int, list[int]] = {game_id: [] for game_id in ids}
        for game_id, player_id in session.execute(
            select(Observer.game_id, Observer.player_id).where(Observer.game_id.in_(ids))
        ).all():
            watching[game_id].append(player_id)
        for game_id in ids:
            memo[(GAME_MASTERS, game_id)] = masters[game_id]
            memo[(OBSERVERS, game_id)] = watching[game_id]


def absences_of(session: Session, game: Game) -> list[Absence]:
    """The absence rows of ``game``, from the memo when :func:`remember` loaded them."""
    known: list[Absence] | None = memo_of(session).get((ABSENCES, game.id))
    if known is not None:
        return list(known)
    return list(session.scalars(select(Absence).where(Absence.game_id == game.id).order_by(Absence.id)).all())
