"""Intake watermarks: how far each intake has read, so no turn resolves ahead of its mail.

A watermark says, for one intake (an IMAP folder, a Maildir), "every message
that reached the server before ``read_until`` is stored and processed".  The
time is the server's arrival time of a message, the same time the core
judges orders by (``Envelope.received_at``), so a turn whose deadline is
before every configured intake's watermark has seen every order sent in time.

The intake computes the time (see ``bot.email.intake``: the start of the
pass, cut to the whole second and less a settling margin, and never past a
stored message still waiting to be processed) and records it after the pass;
a failing pass records its error and leaves the time where it was.

:func:`intakes_behind` is what the deadline worker asks
(:meth:`bot.core.runtime.service.GameService.resolve_due`): a due game waits while an
intake is behind its deadline, up to ``ServiceConfig.intake_wait_seconds``,
then resolves and the game master is told which intake was behind
(:func:`tell_gm_intakes_behind`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.messaging.delivery import Delivery
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToGameMasters
from bot.store.db import unit_of_work
from bot.store.models import Game, IntakeWatermark

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig

MAX_NAME = 200
MAX_ERROR = 2000


@dataclass(frozen=True)
class Watermark:
    """One intake's watermark as the host sees it."""

    name: str
    read_until: datetime | None
    updated_at: datetime
    last_error: str | None


def intakes_behind(session: Session, moment: datetime, names: Iterable[str]) -> list[str]:
    """The intakes of ``names`` that have not read everything that arrived up to ``moment``.

    An intake is caught up when its watermark is after ``moment`` (strictly:
    "everything before T" covers ``moment`` only when ``moment < T``); one that
    never recorded a pass is behind.
    """
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return []
    rows: dict[str, datetime | None] = {
        name: read_until
        for name, read_until in session.execute(
            select(IntakeWatermark.name, IntakeWatermark.read_until).where(IntakeWatermark.name.in_(wanted))
        ).all()
    }
    behind: list[str] = []
    for name in wanted:
        read_until = rows.get(name)
        if read_until is None or read_until <= moment:
            behind.append(name)
    return behind


def record_pass(session: Session, name: str, read_until: datetime, now: datetime) -> None:
    """Record that ``name`` has read everything that arrived before ``read_until`` (it never moves back)."""
    row = session.get(IntakeWatermark, _name(name))
    if row is None:
        session.add(IntakeWatermark(name=_name(name), read_until=read_until, updated_at=now, last_error=None))
        return
    if row.read_until is None or read_until > row.read_until:
        row.read_until = read_until
    row.updated_at = now
    row.last_error = None


def record_error(session: Session, name: str, error: str, now: datetime) -> None:
    """Record that a pass of ``name`` failed; its watermark stays where it was."""
    row = session.get(IntakeWatermark, _name(name))
    if row is None:
        session.add(IntakeWatermark(name=_name(name), read_until=None, updated_at=now, last_error=error[:MAX_ERROR]))
        return
    row.updated_at = now
    row.last_error = error[:MAX_ERROR]


def watermarks(session: Session) -> list[Watermark]:
    """Every intake's watermark, by name."""
    rows = session.scalars(select(IntakeWatermark).order_by(IntakeWatermark.name)).all()
    return [Watermark(r.name, r.read_until, r.updated_at, r.last_error) for r in rows]


def tell_gm_intakes_behind(
    session: Session, game: Game, behind: list[str], now: datetime, config: ServiceConfig
) -> None:
    """Tell the game's GMs: the turn resolves although ``behind`` had not read up to its deadline."""
    if game.deadline_at is None:
        return
    marks = {
        row.name: row for row in session.scalars(select(IntakeWatermark).where(IntakeWatermark.name.in_(behind))).all()
    }
    intakes = [
        {
            "name": name,
            "read_until": _iso(marks[name].read_until) if name in marks else None,
            "error": (marks[name].last_error or "").splitlines()[0][:200] if name in marks and marks[name].last_error
            else None,
        }
        for name in behind
    ]  # fmt: skip
    message = Message("intakes_behind", {"game": game.slug, "deadline": game.deadline_at.isoformat(),
                                         "time_zone": game.time_zone, "intakes": intakes})  # fmt: skip
    key = f"intakes-behind:{game.id}:{game.generation}:{game.phase_number}"
    Delivery(session, config, now).send(
        Outcome(ToGameMasters(game.id), message, NOTICE, key, game.id, game.phase_number)
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


class Watermarks:
    """The adapters' handle on watermarks (they never touch the models): one transaction per call."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def record_pass(self, name: str, read_until: datetime, now: datetime) -> None:
        with unit_of_work(self._sessions) as session:
            record_pass(session, name, read_until, now)

    def record_error(self, name: str, error: str, now: datetime) -> None:
        with unit_of_work(self._sessions) as session:
            record_error(session, name, error, now)

    def behind(self, moment: datetime, names: Iterable[str]) -> list[str]:
        with unit_of_work(self._sessions) as session:
            return intakes_behind(session, moment, names)

    def all(self) -> list[Watermark]:
        with unit_of_work(self._sessions) as session:
            return watermarks(session)


def _name(name: str) -> str:
    if len(name) > MAX_NAME:
        raise ValueError(f"intake name longer than {MAX_NAME} characters")
    return name
