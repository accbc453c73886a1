"""The orders on file: which set counts for each seat and turn (the last one sent), and filing a new set.

A set of orders is a row of ``order_submissions``; the seat's latest row for
the turn is ``current`` (last set wins) and the earlier ones stay as history.
Readers get :class:`FiledOrders`, plain values read with one Core query,
never ORM objects: an intake batch files hundreds of sets, and what the core
reads of them (the text that counts) needs no identity map.

Filing writes Core statements through :func:`bot.core.basics.batch.defer`: at once
outside an optimistic batch, else with the batch's other rows of the same
statement at its end (one executemany each).  Every reader of the table in
this module first writes what waits (:func:`bot.core.basics.batch.write_deferred`),
so a reader in the same transaction always sees what was filed.  The batch's
memo of the orders on file (:data:`ORDERS_MEMO`) is kept up to date by
:func:`file_orders`, and a unit rolled back forgets it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from adjudicator.order_commitments import order_commitment
from bot.core.basics.batch import defer, memo_of, write_deferred
from bot.store.models import Game, OrderSubmission

ORDERS_MEMO = "orders"
"""The batch memo's kind: (ORDERS_MEMO, game id, turn) -> the orders on file, by seat."""
TOUCHED = "referee.filed_orders.touched"
"""``session.info`` key: the ids of the games whose orders were filed in the transaction
(:mod:`bot.core.messaging.status_board` refreshes their status; ORM flush events do not see Core rows)."""

_TABLE = cast(Table, OrderSubmission.__table__)
_INSERT = insert(_TABLE)
_SAME_SEAT = _TABLE.alias("same_seat")
_RETIRE = (
    update(_TABLE)
    .where(
        _TABLE.c.game_id == bindparam("g"),
        _TABLE.c.turn_number == bindparam("t"),
        _TABLE.c.seat_name == bindparam("s"),
        _TABLE.c.current.is_(True),
        _TABLE.c.id
        < select(func.max(_SAME_SEAT.c.id))
        .where(
            _SAME_SEAT.c.game_id == bindparam("g"),
            _SAME_SEAT.c.turn_number == bindparam("t"),
            _SAME_SEAT.c.seat_name == bindparam("s"),
        )
        .scalar_subquery(),
    )
    .values(current=False)
)
"""Every current set of a seat for a turn but its newest is retired (last set wins).  Filing
defers its INSERT before this UPDATE, so in a batch every INSERT waiting is written first, and
the UPDATE keeps exactly the set filed last (ids grow in the order rows are written)."""


def commitment_of(game: Game, turn: int, seat: str, canonical: str) -> str:
    """The commitment to ``seat``'s canonical orders for ``turn`` (:mod:`adjudicator.order_commitments`):
    keyed with the seat's salt derived from the game's seed, so nothing more is stored, and hashed
    with the game's name, the name its players write.  The confirmation shows it, the report that
    uses the orders publishes it, and the game record keeps it for ``referee verify``."""
    return order_commitment(game.seed, game.slug, turn, seat, canonical)


@dataclass(frozen=True)
class FiledOrders:
    """One seat's set of orders for a turn, as it counts: its canonical text (what the game resolves;
    the raw text, source and time stay in its ``order_submissions`` row)."""

    seat_name: str
    canonical_text: str


def load_current(session: Session, turns: Iterable[tuple[int, int]]) -> dict[tuple[int, int], dict[str, FiledOrders]]:
    """The counting set of each seat for each (game id, turn) of ``turns``, in one query; every
    (game id, turn) asked is in the answer (empty when nobody has ordered)."""
    wanted = set(turns)
    found: dict[tuple[int, int], dict[str, FiledOrders]] = {key: {} for key in wanted}
    if not wanted:
        return found
    write_deferred(session)
    rows = session.connection().execute(
        _CURRENT, {"games": sorted({game for game, _ in wanted}), "turns": sorted({turn for _, turn in wanted})}
    )
    for row in rows:
        key = (row.game_id, row.turn_number)
        if key in found:
            found[key][row.seat_name] = FiledOrders(row.seat_name, row.canonical_text)
    return found


_CURRENT = (
    select(_TABLE.c.game_id, _TABLE.c.turn_number, _TABLE.c.seat_name, _TABLE.c.canonical_text)
    .where(
        _TABLE.c.game_id.in_(bindparam("games", expanding=True)),
        _TABLE.c.turn_number.in_(bindparam("turns", expanding=True)),
        _TABLE.c.current.is_(True),
    )
    .order_by(_TABLE.c.id)
)
"""The current sets of ``:games`` for ``:turns`` (:func:`load_current`), built once: every submission reads it."""


def remember_current(session: Session, turns: Iterable[tuple[int, int]]) -> None:
    """Load the orders on file of ``turns`` into the batch's memo (what :func:`current_orders` reads)."""
    memo = memo_of(session)
    for (game_id, turn), orders in load_current(session, turns).items():
        memo[(ORDERS_MEMO, game_id, turn)] = orders


def current_orders(session: Session, game_id: int, turn: int) -> dict[str, FiledOrders]:
    """The counting set of each seat for ``turn`` of the game (a copy: the caller may change it).

    Remembered for the transaction's batch (:mod:`bot.core.basics.batch`): :func:`file_orders`, the one
    writer of submissions, keeps it up to date, and a unit rolled back forgets it.
    """
    memo = memo_of(session)
    key = (ORDERS_MEMO, game_id, turn)
    known: dict[str, FiledOrders] | None = memo.get(key)
    if known is None:
        known = memo[key] = load_current(session, [(game_id, turn)])[(game_id, turn)]
    return dict(known)


def file_orders(
    session: Session,
    game_id: int,
    turn: int,
    seat: str,
    raw: str,
    canonical: str,
    source_id: str,
    now: datetime,
    current: dict[str, FiledOrders] | None = None,
) -> FiledOrders:
    """Put ``seat``'s orders for ``turn`` on file: the last set sent counts, the earlier ones stay as history.

    ``current``: :func:`current_orders` of the turn when the caller has just read it (it is
    updated to hold the new set).
    """
    if current is None:
        current = current_orders(session, game_id, turn)
    values: dict[str, Any] = {
        "game_id": game_id, "turn_number": turn, "seat_name": seat, "raw_text": raw, "canonical_text": canonical,
        "source_id": source_id, "current": True, "submitted_at": now,
    }  # fmt: skip
    defer(session, _INSERT, [values])
    if seat in current:  # after the INSERT (see _RETIRE): the set it replaces stops counting
        defer(session, _RETIRE, [{"g": game_id, "t": turn, "s": seat}])
    filed = FiledOrders(seat, canonical)
    current[seat] = filed
    remembered = memo_of(session).get((ORDERS_MEMO, game_id, turn))
    if remembered is not None:
        remembered[seat] = filed
    session.info.setdefault(TOUCHED, set()).add(game_id)
    return filed


def filed_since(session: Session, game_id: int, turn: int, since: datetime) -> set[str]:
    """The seats whose counting set for ``turn`` of the game was sent at ``since`` or later."""
    write_deferred(session)
    columns = _TABLE.c
    return set(
        session.connection().scalars(
            select(columns.seat_name).where(
                columns.game_id == game_id, columns.turn_number == turn, columns.current.is_(True),
                columns.submitted_at >= since,
            )
        )
    )  # fmt: skip


def retire_after(session: Session, game_id: int, turn: int) -> None:
    """No set of orders for the game's turns after ``turn`` counts any more (a rollback to ``turn``: those
    turns will be played again from another state; their sets stay as history)."""
    write_deferred(session)
    session.execute(
        update(_TABLE)
        .where(_TABLE.c.game_id == game_id, _TABLE.c.turn_number > turn, _TABLE.c.current.is_(True))
        .values(current=False)
    )
    memo = memo_of(session)
    for key in [k for k in memo if isinstance(k, tuple) and k[:2] == (ORDERS_MEMO, game_id) and k[2] > turn]:
        del memo[key]
    session.info.setdefault(TOUCHED, set()).add(game_id)
