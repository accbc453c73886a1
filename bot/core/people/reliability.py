"""Players' reliability records: who can be counted on, across every game of this referee.

The figures are derived, never kept: from the game's live turn records (each
names the seats whose orders it used and those given the no-moves-received
rule, ``TurnRecord.orders`` and ``TurnRecord.defaulted``) and from the history
of who held each seat (``SeatHolder``, one row each time a player takes a
seat).  Nothing has to be kept in step with a turn, a rollback or a replacement.

The rule of charging, per seat holder:

* a turn is **owed** by the player who held the seat when it resolved, if the
  seat owed orders in it (its orders were used, or the no-moves-received rule
  was applied for it);
* it was **ordered in time** when orders were on file at the resolution, and
  **missed** when the no-moves-received rule was applied;
* a player who takes a seat over (a game master's ``REPLACE``) answers only for
  the turns after the one open when they took it: not for the seat's past, nor
  for a turn they had no whole window for; the player replaced keeps what they
  did, and the turns after they left are nobody's (the same for a seat left by
  ``RESIGN`` or ``EJECT``);
* a rollback is followed: only the live generation's records count.

Besides turns, each player's seats are counted by how they ended: held to the
end of a finished game, resigned, ejected, replaced.

A game's ``min_reliability`` (a percentage) refuses a JOIN from a player who
ordered in time fewer than that share of the turns they owed, once they have
owed :data:`TRIAL_TURNS` turns: before that, a new player has no record to judge
and is admitted (:func:`admits`).

The cost is bounded: :func:`reliability_of` reads any number of players in two
queries, whatever their games and turns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, case, cast, exists, func, literal, or_, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Session

from bot.core.games.stored import FINISHED, FORMING
from bot.store.models import Game, SeatHolder, TurnRecord

TRIAL_TURNS = 5
"""A game's minimum reliability applies to a player once they have owed this many turns."""
REPLACED = "replaced"
RESIGNED = "resigned"
EJECTED = "ejected"


@dataclass(frozen=True)
class Reliability:
    """One player's record across every game of this referee."""

    player_id: int
    owed: int = 0
    """Turns in which a seat they held owed orders."""
    ordered: int = 0
    """Of those, the turns their orders were on file at the resolution."""
    missed: int = 0
    """Of those, the turns the no-moves-received rule was applied."""
    finished: int = 0
    """Seats held to the end of a finished game."""
    resigned: int = 0
    ejected: int = 0
    replaced: int = 0

    @property
    def percent(self) -> int | None:
        """The share of owed turns ordered in time, rounded down; None before a first owed turn."""
        return None if self.owed == 0 else self.ordered * 100 // self.owed

    def as_data(self) -> dict[str, Any]:
        """Plain data for the phrases (``reliability`` in ``templates/common/phrases.j2``)."""
        return {"owed": self.owed, "ordered": self.ordered, "missed": self.missed, "finished": self.finished,
                "resigned": self.resigned, "ejected": self.ejected, "replaced": self.replaced,
                "percent": self.percent}  # fmt: skip


def admits(record: Reliability, minimum: int | None) -> bool:
    """Whether a game asking ``minimum`` percent takes a player of ``record``: always without a minimum
    or before :data:`TRIAL_TURNS` owed turns; else when ordered / owed >= minimum / 100 (exactly, in
    whole numbers: 4 of 5 is 80%)."""
    if minimum is None or record.owed < TRIAL_TURNS:
        return True
    return record.ordered * 100 >= minimum * record.owed


def _named_in(session: Session, column: Any, seat: Any, *, keyed: bool) -> ColumnElement[bool]:
    """Whether the JSON ``column`` names ``seat``: among its keys (``keyed``: an object by seat name, as
    ``TurnRecord.orders``) or its items (an array of seat names, as ``TurnRecord.defaulted``)."""
    if session.get_bind().dialect.name == "postgresql":
        return cast(column, JSONB).op("?")(seat)  # a key of an object, or a string item of an array
    each = func.json_each(column).table_valued("key", "value").alias("named")
    return exists().select_from(each).where((each.c.key if keyed else each.c.value) == seat)


def reliability_of(session: Session, player_ids: Iterable[int]) -> dict[int, Reliability]:
    """The records of ``player_ids`` (every one of them, a newcomer's all zero), in two queries."""
    wanted = sorted(set(player_ids))
    found = {player_id: Reliability(player_id) for player_id in wanted}
    if not wanted:
        return found
    ordered = _named_in(session, TurnRecord.orders, SeatHolder.seat_name, keyed=True)
    missed = _named_in(session, TurnRecord.defaulted, SeatHolder.seat_name, keyed=False)
    turns = (
        select(
            SeatHolder.player_id,
            func.sum(case((ordered, 1), else_=0)),
            func.sum(case((missed, 1), else_=0)),
        )
        .join(Game, Game.id == SeatHolder.game_id)
        .join(
            TurnRecord,
            and_(
                TurnRecord.game_id == SeatHolder.game_id,
                TurnRecord.generation == Game.generation,
                TurnRecord.turn_number >= SeatHolder.first_turn,
                or_(SeatHolder.until_at.is_(None), TurnRecord.resolved_at <= SeatHolder.until_at),
            ),
        )
        .where(SeatHolder.player_id.in_(wanted))
        .group_by(SeatHolder.player_id)
    )
    counts: dict[int, dict[str, int]] = {player_id: {} for player_id in wanted}
    for player_id, on_time, defaulted in session.execute(turns):
        on_time, defaulted = int(on_time or 0), int(defaulted or 0)
        counts[player_id].update(owed=on_time + defaulted, ordered=on_time, missed=defaulted)

    def ended(how: str | None) -> Any:
        return func.sum(case((SeatHolder.ended == literal(how), 1), else_=0))

    seats = (
        select(
            SeatHolder.player_id,
            func.sum(case((and_(SeatHolder.ended.is_(None), Game.status == FINISHED), 1), else_=0)),
            ended(RESIGNED),
            ended(EJECTED),
            ended(REPLACED),
        )
        .join(Game, Game.id == SeatHolder.game_id)
        .where(SeatHolder.player_id.in_(wanted))
        .group_by(SeatHolder.player_id)
    )
    for player_id, finished, resigned, ejected, replaced in session.execute(seats):
        counts[player_id].update(
            finished=int(finished or 0),
            resigned=int(resigned or 0),
            ejected=int(ejected or 0),
            replaced=int(replaced or 0),
        )
    return {player_id: Reliability(player_id, **counts[player_id]) for player_id in wanted}


def take_seat(session: Session, game: Game, seat_name: str, player_id: int, now: datetime) -> None:
    """``player_id`` takes ``seat_name`` of ``game`` now (a JOIN, a replacement): they answer for the turns
    from the first (before the start), else from the one after the turn now open."""
    first = 0 if game.status == FORMING else game.phase_number + 1
    session.add(SeatHolder(game_id=game.id, seat_name=seat_name, player_id=player_id, since_at=now, first_turn=first))


def leave_seat(session: Session, game: Game, seat_name: str, now: datetime, how: str) -> None:
    """The holder of ``seat_name`` leaves it now (``how``: :data:`REPLACED`, :data:`RESIGNED`,
    :data:`EJECTED`); before the start the seat's holding is forgotten (nothing was played)."""
    holding = session.scalars(
        select(SeatHolder).where(
            SeatHolder.game_id == game.id, SeatHolder.seat_name == seat_name, SeatHolder.until_at.is_(None)
        )
    ).all()
    for row in holding:
        if game.status == FORMING:
            session.delete(row)
        else:
            row.until_at = now
            row.ended = how


def seat_figures(session: Session, games: Iterable[Game]) -> dict[int, list[dict[str, Any]]]:
    """For each of ``games`` (by id), each seat still held (not resigned or ejected), in seat order, with
    its holder's record as plain data (:meth:`Reliability.as_data` and ``seat``); two queries in all."""
    chosen = list(games)
    seated = {seat.player_id for game in chosen for seat in game.seats if not seat.resigned}
    records = reliability_of(session, seated)
    return {
        game.id: [{"seat": seat.name, **records[seat.player_id].as_data()} for seat in game.seats if not seat.resigned]
        for game in chosen
    }
