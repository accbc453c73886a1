"""What changes when a page changes: a stamp per game, and one for the club's index, each one small SELECT.

The web pages are built once per change of what they show, not once per
request: a page is kept with the stamp it was built under, and served again
while the stamp is the same.  So a stamp must change whenever anything its
page shows changes, and be cheap to read (every request reads it):

* a game's page (:meth:`bot.core.views.pages.Pages.game`) shows its row (status,
  the open turn, the deadline, the settings a page lists), its seats (names,
  who left, who is up for a substitute), who has ordered (``order_submissions``:
  a new set is a new row; last set wins), the game masters' announced actions
  (``audit_log``), the public press (``press_messages``) and the turn records
  (the reports; a rollback starts a new generation).  Each is read as a
  number an index answers (the newest id, a count), the seats as one short
  string; the state is not read: it changes only with the turn, the generation
  or the status, which are;
* a forming game's page also shows each holder's record over every game
  (:mod:`bot.core.people.reliability`), which moves when any game resolves a
  turn or rolls back, or a seat changes hands: the counts of those rows are in
  its stamp (read only for a forming game);
* the index shows every game's line and the seats up for a substitute: counts
  and sums over the games and the seats, and the newest game master's action
  (a setting changed is an action).

A stamp may change when its page did not (a wasted build), never the other
way; ``tests/web/test_page_cache.py`` plays games through every kind of change
and checks it.  Nothing here writes, nor keeps anything between calls.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import Integer, Select, String, bindparam, case, cast, func, literal, select
from sqlalchemy.orm import Session, aliased

from bot.core.games.stored import ABANDONED, FINISHED, FORMING, PAUSED, RUNNING, normalise_slug
from bot.store.models import AuditEntry, Game, OrderSubmission, PressMessage, Seat, SeatHolder, TurnRecord

_GAME_COLUMNS = (
    Game.id, Game.status, Game.phase_number, Game.generation, Game.calendar_sequence, Game.deadline_at,
    Game.grace_until, Game.paused_until, Game.finished_at, Game.joining_open, Game.target_seats, Game.max_seats,
    Game.min_reliability, Game.substitute_auto, Game.time_zone, Game.commitment, Game.turn_parked_at,
)  # fmt: skip
"""The columns of a game's row its page shows (or that change with what it shows)."""


def _text(column: Any) -> Any:
    return func.coalesce(cast(column, String), literal(""))


def _seats_of_game() -> Any:
    """The game's seats as one string (a dozen seats at most: a short one)."""
    row = (
        _text(Seat.id) + "|" + _text(Seat.position) + "|" + Seat.name + "|" + _text(Seat.player_id)
        + "|" + _text(Seat.resigned) + "|" + _text(Seat.offered_at)
    )  # fmt: skip
    return select(func.aggregate_strings(row, ",")).where(Seat.game_id == Game.id).scalar_subquery()


def _newest(column: Any, game_column: Any) -> Any:
    return select(func.max(column)).where(game_column == Game.id).scalar_subquery()


def _when_forming(query: Select[Any]) -> Any:
    """``query``'s one value for a forming game (whose page shows its holders' records), else nothing read."""
    return case((Game.status == FORMING, query.scalar_subquery()), else_=None)


def game_stamp_query() -> Select[*tuple[Any, ...]]:
    """The one SELECT of :func:`game_stamp` (the game's name is the parameter ``slug``)."""
    every_game = aliased(Game)
    return select(
        *_GAME_COLUMNS,
        _seats_of_game(),
        _newest(OrderSubmission.id, OrderSubmission.game_id),
        _newest(AuditEntry.id, AuditEntry.game_id),
        _newest(PressMessage.id, PressMessage.game_id),
        select(func.count()).where(TurnRecord.game_id == Game.id).scalar_subquery(),
        _when_forming(select(func.count()).select_from(TurnRecord)),
        _when_forming(select(func.sum(every_game.generation))),
        _when_forming(select(func.max(SeatHolder.id))),
        _when_forming(select(func.count(SeatHolder.until_at))),
    ).where(Game.slug == bindparam("slug"))


def game_stamp(session: Session, slug: str) -> str | None:
    """The stamp of ``slug``'s page (and its board, feed and record), or None: no such game."""
    row = session.execute(_GAME_STAMP, {"slug": normalise_slug(slug)}).first()
    return None if row is None else _digest(tuple(row))


def club_stamp_query() -> Select[*tuple[Any, ...]]:
    """The one SELECT of :func:`club_stamp`."""
    seats = select(
        _text(func.count(Seat.id)) + "|" + _text(func.max(Seat.id)) + "|" + _text(func.sum(cast(Seat.resigned, Integer)))
        + "|" + _text(func.count(Seat.offered_at)) + "|" + _text(func.max(Seat.offered_at))
    ).scalar_subquery()  # fmt: skip
    return select(
        func.count(Game.id),
        func.max(Game.id),
        func.sum(Game.phase_number),
        func.sum(Game.generation),
        func.sum(Game.calendar_sequence),
        func.sum(cast(Game.joining_open, Integer)),
        func.sum(cast(Game.substitute_auto, Integer)),
        func.sum(func.coalesce(Game.min_reliability, -1)),
        func.sum(func.coalesce(Game.target_seats, -1) + 100 * func.coalesce(Game.max_seats, -1)),
        func.max(Game.deadline_at),
        *(func.sum(case((Game.status == status, 1), else_=0)) for status in _STATUSES),
        select(func.max(AuditEntry.id)).scalar_subquery(),
        seats,
    )


_STATUSES = (FORMING, RUNNING, PAUSED, FINISHED, ABANDONED)


def club_stamp(session: Session) -> str:
    """The stamp of the club's index."""
    row = session.execute(_CLUB_STAMP).one()
    return _digest(tuple(row))


_GAME_STAMP = game_stamp_query()
_CLUB_STAMP = club_stamp_query()
"""Built once: building the statement costs more than running it."""


def _digest(values: tuple[Any, ...]) -> str:
    return hashlib.sha256(repr(values).encode()).hexdigest()[:24]
