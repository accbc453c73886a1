"""``referee status``: progress and health at a glance.

What it shows, each read in its own short transaction:

* the games: their facts (:func:`bot.core.games.facts.facts_of`, what every surface shows): slug,
  kind, status, the turn, and the next deadline in UTC (the early resolution when it is sooner:
  every order in, or a retry), or since and until when it is paused;
* the inbox: pending (new, and failed awaiting a retry) and parked messages;
* the outbox: per channel, pending and parked messages;
* the turns the shunt parked (:mod:`bot.core.turns.shunt`), with their error;
* the last error of each worker (:mod:`bot.core.runtime.health`).

Part of the composition root: it reads the store directly.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from bot.core.games.facts import facts_of
from bot.core.games.stored import PAUSED
from bot.core.intake.inbox import FAILED, NEW, PARKED, Inbox
from bot.core.messaging.outbox import OutboxDrain
from bot.core.runtime.health import worker_health
from bot.core.turns.shunt import TurnShunt
from bot.store.db import unit_of_work
from bot.store.models import Game, Player


@dataclass(frozen=True)
class GameLine:
    slug: str
    kind: str
    status: str
    turn: int | None
    """The turn shown for the game (:func:`bot.core.games.stored.turn_shown`): the open one, or the one
    it ended in; None before the start."""
    next_deadline: datetime | None
    """The sooner of its deadline and of an early resolution (every order in, or a retry); None while the
    game is paused (its clock stands still), before the start, or over."""
    paused_until: datetime | None = None
    paused_since: datetime | None = None


@dataclass(frozen=True)
class Status:
    games: list[GameLine]
    inbox: dict[str, int]
    outbox: dict[str, dict[str, int]]
    parked_turns: list[dict[str, Any]]
    workers: list[dict[str, Any]]
    player_settings: dict[str, int] = field(default_factory=dict)
    """How many players set each of their own settings (counts only: never who, nor what)."""

    def as_json(self) -> dict[str, Any]:
        def plain(value: Any) -> Any:
            if isinstance(value, datetime):
                return value.isoformat()
            if isinstance(value, dict):
                return {k: plain(v) for k, v in value.items()}
            if isinstance(value, list):
                return [plain(v) for v in value]
            return value

        return {
            "games": [plain(asdict(g)) for g in self.games],
            "inbox": self.inbox,
            "outbox": self.outbox,
            "parked_turns": plain(self.parked_turns),
            "workers": plain(self.workers),
            "player_settings": self.player_settings,
        }


def gather(sessions: sessionmaker[Session]) -> Status:
    """Read everything ``referee status`` shows."""
    with unit_of_work(sessions) as session:
        games = []
        for g in session.scalars(select(Game).order_by(Game.slug).options(selectinload(Game.seats))).all():
            facts = facts_of(session, g)  # what every surface shows of the game
            games.append(GameLine(g.slug, g.kind, facts.status, facts.turn, _next(facts.deadline, facts.resolves_at),
                                  facts.paused_until, facts.paused_since))  # fmt: skip
    counts = Inbox(sessions).counts()
    inbox = {"pending": counts[NEW] + counts[FAILED], "parked": counts[PARKED]}
    drain = OutboxDrain(sessions)
    parked_per_channel = Counter(message.channel for message, _ in drain.parked())
    waiting = drain.waiting_by_channel()
    outbox = {
        channel: {"pending": waiting.get(channel, 0), "parked": parked_per_channel.get(channel, 0)}
        for channel in sorted(set(waiting) | set(parked_per_channel))
    }
    turns = [asdict(p) for p in TurnShunt(sessions).parked()]
    workers = [asdict(w) for w in worker_health(sessions)]
    return Status(games, inbox, outbox, turns, workers, settings_counts(sessions))


def settings_counts(sessions: sessionmaker[Session]) -> dict[str, int]:
    """How many players chose a zone of their own, quiet hours, board pictures, a language, the plain form
    and a digest: counts only (never who), in one query."""
    with unit_of_work(sessions) as session:
        zone, quiet, pictures, language, plain, digest = session.execute(
            select(func.count(Player.time_zone), func.count(Player.quiet_hours),
                   func.count(case((Player.board_pictures.is_(True), 1))), func.count(Player.language),
                   func.count(Player.text_format), func.count(Player.digest))
        ).one()  # fmt: skip
    return {"time_zone": int(zone), "quiet_hours": int(quiet), "board_pictures": int(pictures),
            "language": int(language), "text_format": int(plain), "digest": int(digest)}  # fmt: skip


def _next(deadline: datetime | None, resolve_at: datetime | None) -> datetime | None:
    moments = [m for m in (deadline, resolve_at) if m is not None]
    return min(moments) if moments else None


def _moment(value: datetime | None) -> str:
    return "-" if value is None else f"{value:%Y-%m-%d %H:%M} UTC"


def _first_line(error: str | None, width: int = 70) -> str:
    """An error's first line, shortened at a word (``...`` says so), never cut inside one."""
    if not error or not error.strip():
        return ""
    return textwrap.shorten(error.strip().splitlines()[0], width, placeholder=" ...")


def render(status: Status) -> str:
    """The text form: one line per item, each under 100 columns."""
    lines = [f"{len(status.games)} game(s)"]
    for g in status.games:
        if g.status == PAUSED:
            since = f" since {_moment(g.paused_since)}" if g.paused_since else ""
            clock = f"paused until {_moment(g.paused_until)}" if g.paused_until else f"paused{since}: no deadline"
        else:
            clock = f"next deadline {_moment(g.next_deadline)}"
        turn = "-" if g.turn is None else g.turn
        lines.append(f"  {g.slug:<16} {g.kind:<16} {g.status:<9} turn {turn:<3} {clock}")
    lines.append(f"inbox: {status.inbox['pending']} pending, {status.inbox['parked']} parked")
    if status.outbox:
        for channel, counts in status.outbox.items():
            lines.append(f"outbox {channel}: {counts['pending']} pending, {counts['parked']} parked")
    else:
        lines.append("outbox: nothing pending")
    lines.append(f"{len(status.parked_turns)} parked turn(s)")
    for p in status.parked_turns:
        first = _first_line(p["error"])
        lines.append(f"  {p['game']} turn {p['turn']}: {p['attempts']} attempts: {first}")
    if status.workers:
        lines.append("last error of each worker:")
        for w in status.workers:
            first = _first_line(w["error"])
            lines.append(f"  {w['worker']:<14} {_moment(w['at'])}: {first}")
    else:
        lines.append("no worker has logged an error")
    return "\n".join(lines)
