"""The facts every surface shows of a game, read in one place: :func:`facts_of`.

Mail ``STATUS`` and ``LIST`` (and ``referee gm status``), ``referee status``, the web index and
game page (and so the feed), the live status board of the channels that keep one (a pinned
Discord message) all show a game's status, its turn, its deadline (or that it is paused, since
when and until when), who owes orders and who the turn waits for, and whether it can be joined.
Each reads them here, so none can disagree with another:

* ``turn``: :func:`bot.core.games.stored.turn_shown` (the open turn; once over, the turn it
  ended in);
* ``deadline``: when the open turn's orders are due, the end of its grace while it waits past its
  deadline for late seats; None while the game is paused (its clock stands still), before the start
  and once it is over (a paused game's old deadline is not shown: it will not hold);
* ``resolves_at``: every order is in and the turn resolves before its deadline, at this moment;
* ``paused_since`` and ``paused_until`` while it is paused;
* ``owing``, ``ordered`` and ``waiting``: the seats that owe orders in the open turn, those of them
  with orders on file, and those the turn waits for (held by a player, no orders on file: a seat its
  player left gets the no-moves-received rule and is waited for by nobody);
* ``joinable``: it takes a JOIN (forming, joining open, a seat left); a full or closed game offers
  none (JOIN may still refuse someone it does not invite, or below its minimum reliability).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from bot.core.games.stored import (
    ABANDONED,
    FINISHED,
    FORMING,
    PAUSED,
    RUNNING,
    current_orders,
    phase_of,
    rules_of,
    seat_limit,
    turn_shown,
)
from bot.store.models import AuditEntry, Game

OVER = (FINISHED, ABANDONED)


@dataclass(frozen=True)
class GameFacts:
    """What every surface shows of one game (see the module docstring)."""

    slug: str
    kind: str
    title: str
    status: str
    time_zone: str
    turn: int | None
    phase: str | None
    """The open turn's title (running or paused); None otherwise."""
    deadline: datetime | None
    resolves_at: datetime | None
    paused_since: datetime | None
    paused_until: datetime | None
    seats: tuple[str, ...]
    resigned: tuple[str, ...]
    owing: tuple[str, ...]
    ordered: tuple[str, ...]
    waiting: tuple[str, ...]
    seat_limit: int
    joinable: bool

    @property
    def over(self) -> bool:
        return self.status in OVER


def paused_since(session: Session, game: Game) -> datetime | None:
    """When a paused game was paused (its log's last PAUSE), or None: it is not paused."""
    if game.status != PAUSED:
        return None
    return session.scalar(
        select(func.max(AuditEntry.at)).where(AuditEntry.game_id == game.id, AuditEntry.action == "PauseGame")
    )


def facts_of(session: Session, game: Game) -> GameFacts:
    """The facts of ``game`` now (one query for its orders on file, one more while it is paused)."""
    phase = phase_of(game) if game.status in (RUNNING, PAUSED) else None
    owing: tuple[str, ...] = ()
    ordered: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()
    if phase is not None:
        filed = current_orders(session, game, phase.number)
        held = {seat.name for seat in game.seats if not seat.resigned}
        owing = tuple(phase.owing)
        ordered = tuple(seat for seat in owing if seat in filed)
        waiting = tuple(seat for seat in owing if seat in held and seat not in filed)
    running = game.status == RUNNING and phase is not None
    limit = seat_limit(game)
    return GameFacts(
        slug=game.slug,
        kind=game.kind,
        title=rules_of(game).title,
        status=game.status,
        time_zone=game.time_zone,
        turn=turn_shown(game),
        phase=phase.title if phase is not None else None,
        deadline=(game.grace_until or game.deadline_at) if running else None,
        resolves_at=game.resolve_at if running and game.turn_parked_at is None else None,
        paused_since=paused_since(session, game),
        paused_until=game.paused_until if game.status == PAUSED else None,
        seats=tuple(seat.name for seat in game.seats),
        resigned=tuple(seat.name for seat in game.seats if seat.resigned),
        owing=owing,
        ordered=ordered,
        waiting=waiting,
        seat_limit=limit,
        joinable=game.status == FORMING and game.joining_open and len(game.seats) < limit,
    )
