"""A complete turn resolves at once: the one rule of when a turn resolves before its deadline.

The rule is evaluated wherever a game changes, not in the handler that first thought of it: after
every command that changed something (:mod:`bot.core.commands.turn_completion`, a step of the
pipeline) and when the deadline worker resumes a game whose pause ended
(:meth:`bot.core.runtime.service.GameService.resume_due`).  So a turn is completed alike by a
player's orders, a game master's orders for a seat, RESUME, a seat freed, ejected, replaced or
taken over, a WAIT withdrawn or a deadline moved.

**Complete.**  Every seat that owes orders in the open turn and is held by a player has orders on
file for it, and at least one owing seat has.  A seat its player left (resigned, or ejected by a
game master) is not waited for: the game's no-moves-received rule answers for it.  Orders on file
from before the game's last rollback (:mod:`bot.core.turns.generations`: the turn reopened, and the
orders of later turns stayed on file) do not count: a reopened turn waits for every seat to look
again, or for its deadline.

**When it resolves.**  A complete turn of a running game (never a paused one, nor one whose
resolution failed: the shunt owns those, :mod:`bot.core.turns.shunt`) resolves

* at once, when its phase resolves on completion (a sequential game's move) or it is in its grace
  period (the late orders are in);
* else, in a game with early processing that no seat holding its seat asked to wait for the
  deadline (``SET WAIT``), ``early_delay_minutes`` after it became complete (a change inside the
  delay keeps that time);
* else at its deadline.

The moment is ``games.resolve_at``, which the deadline worker's due query reads; :func:`settle`
keeps it in line with the rule, and takes back a planned early resolution the turn no longer
qualifies for (a WAIT, a pause, a seat taken over by someone who has not ordered yet).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from adjudicator.api import Phase
from bot.core.games.facts import facts_of
from bot.core.games.filed_orders import filed_since
from bot.core.games.stored import RUNNING, phase_of
from bot.core.model import commands as c
from bot.store.models import AuditEntry, Game


@dataclass(frozen=True)
class Settled:
    """What :func:`settle` found: ``early`` is when the open turn resolves because it is complete (None:
    it waits for its deadline); ``planned``: that moment was set by this call (the seats are to be told)."""

    turn: int | None = None
    early: datetime | None = None
    planned: bool = False


def reopened_at(session: Session, game: Game) -> datetime | None:
    """When the game was last rolled back (its log entry), or None: never."""
    if game.generation == 0:
        return None
    return session.scalar(
        select(func.max(AuditEntry.at)).where(AuditEntry.game_id == game.id, AuditEntry.action == c.RollBack.__name__)
    )


def is_complete(session: Session, game: Game, phase: Phase) -> bool:
    """Whether every held seat that owes orders in ``phase`` has them on file (see the module docstring):
    the turn waits for nobody (:attr:`bot.core.games.facts.GameFacts.waiting`, what every surface shows),
    someone has ordered, and, after a rollback, every held seat has sent its orders again."""
    facts = facts_of(session, game)
    if facts.waiting or not facts.ordered:
        return False
    since = reopened_at(session, game)
    if since is None:
        return True
    fresh = filed_since(session, game.id, phase.number, since)
    held = set(facts.owing) - set(facts.resigned)
    return held <= fresh and bool(fresh & set(facts.owing))


def _waits(game: Game, turn: int) -> bool:
    """Whether a seat held by a player asked this turn to wait for its deadline."""
    return any(seat.wait_turn == turn and not seat.resigned for seat in game.seats)


def settle(session: Session, game: Game, now: datetime) -> Settled:
    """Bring ``game.resolve_at`` in line with the rule (module docstring) and say what it is now."""
    if game.turn_failures > 0 or game.turn_parked_at is not None:
        return Settled()  # a failed resolution's retry time is the shunt's
    phase = phase_of(game)
    if game.status != RUNNING or phase is None:
        if game.grace_until is None:
            game.resolve_at = None
        return Settled()
    early: datetime | None = None
    if is_complete(session, game, phase):
        if phase.resolve_when_complete or game.grace_until is not None:
            early = now
        elif game.early_processing and not _waits(game, phase.number):
            early = game.resolve_at if game.resolve_at is not None else now + timedelta(
                minutes=game.early_delay_minutes)  # fmt: skip
    planned = early is not None and game.resolve_at != early
    if early is not None:
        game.resolve_at = early
    elif game.grace_until is not None:
        game.resolve_at = game.grace_until  # the grace's end, as its start set it
    else:
        game.resolve_at = None
    return Settled(phase.number, early, planned)
