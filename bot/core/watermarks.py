"""Intake watermarks: how far each intake has read, so no turn resolves ahead of its mail (issue 11).

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
(:meth:`bot.core.service.GameService.resolve_due`): a due game waits while an
intake is behind its deadline, up to ``ServiceConfig.intake_wait_seconds``,
then resolves and the game master is told which intake was behind
(:func:`tell_gm_intakes_behind`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.identities import reach
from bot.core.outbox import Outgoing, enqueue
from bot.core.reports import format_deadline
from bot.store.db import unit_of_work
from bot.store.models import Game, IntakeWatermark, Player

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


def tell_gm_intakes_behind(session: Session, game: Game, behind: list[str], now: datetime, mail_domain: str) -> None:
    """Queue a notice to the game master: the turn resolved while ``behind`` had not read up to its deadline."""
    if game.gm_player_id is None or game.deadline_at is None:
        return
    gm = session.get(Player, game.gm_player_id)
    target = reach(gm) if gm is not None else None
    if target is None:
        return
    marks = {
        row.name: row for row in session.scalars(select(IntakeWatermark).where(IntakeWatermark.name.in_(behind))).all()
    }
    lines = [
        f"The deadline of game {game.slug} passed at",
        f"  {format_deadline(game.deadline_at, game.time_zone)}",
        "and the turn was resolved although these mail intakes had not read",
        "everything that arrived before it (orders still unread there were",
        "not used):",
    ]
    for name in behind:
        row = marks.get(name)
        read = f"read up to {row.read_until:%Y-%m-%d %H:%M:%S} UTC" if row and row.read_until else "never read"
        lines.append(f"  {name[:60]}")
        lines.append(f"    {read}")
        if row is not None and row.last_error:
            lines.append(f"    last error: {row.last_error.splitlines()[0][:60]}")
    channel, address = target
    enqueue(
        session,
        Outgoing(
            channel, address, "notice", f"[{game.slug}] turn resolved while mail was unread",
            "\n".join(lines) + "\n", "notice", {}, game.id, game.phase_number,
            f"intakes-behind:{game.id}:{game.phase_number}",
        ),
        now,
        mail_domain,
    )  # fmt: skip


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
