"""A game's live status for the channels that keep one up to date (a pinned message): one coalescing row.

The status is plain data: the game's phase, its deadline, the seats that
have ordered and those still owed (never what anyone ordered), paused or
finished.  It goes to the game's public place on each channel named in
``ServiceConfig.status_channels`` (the channels that show it in one place
and change it there: a pinned message edited in place), and nowhere else:
not to observers, not to channels that would send every change as a new
message.

It is not a message per change but a *state*: the outbox holds at most one
pending status row per game and channel, and the newest state wins.  At the
end of each transaction that touched a game (:class:`StatusWatch`), the
game's status is computed again; when it differs from the last row written,
the pending row (unsent, not claimed by a sender) takes the new data, or, when
the last row is sent or in a sender's hands, a new row is written.  A sender
thus sees the states in order, and the last one it sends is the current one.
Where the channel keeps the message it edits is its own business
(:func:`bot.core.messaging.places.status_message`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from bot.core.games.facts import facts_of
from bot.core.games.filed_orders import TOUCHED
from bot.core.games.stored import FINISHED, rules_of, state_of
from bot.core.messaging.delivery import public_recipient
from bot.core.messaging.outbox import Outgoing, enqueue
from bot.core.model.outcomes import STATUS
from bot.store.models import Game, OutboxMessage, Seat, TurnRecord

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig

TEMPLATE = "status"


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def game_status(session: Session, game: Game) -> dict[str, Any]:
    """The public status of ``game`` as plain data (who has ordered, never the orders): its facts
    (:func:`bot.core.games.facts.facts_of`, what every surface shows)."""
    facts = facts_of(session, game)
    data: dict[str, Any] = {
        "game": game.slug, "title": facts.title, "status": facts.status,
        "turn": facts.turn if facts.phase is not None else None, "phase": facts.phase,
        "deadline": _iso(facts.deadline), "time_zone": game.time_zone,
        "seats": [s for s in facts.seats if s not in facts.resigned], "ordered": list(facts.ordered),
        "waiting": list(facts.waiting), "paused_until": _iso(facts.paused_until),
        "paused_since": _iso(facts.paused_since), "stuck": game.turn_parked_at is not None, "standings": [],
        "joinable": facts.joinable,
    }  # fmt: skip
    if game.status == FINISHED:
        data["standings"] = [{"place": s.place, "seat": s.seat} for s in rules_of(game).standings(state_of(game))]
    return data


def refresh_status(session: Session, game: Game, config: ServiceConfig, now: datetime) -> int:
    """Bring the pending status row of ``game`` on each status channel up to date; returns rows written.

    Nothing is written when the status did not change since the last row.
    """
    if not config.status_channels:
        return 0
    session.flush()
    if session.get_bind().dialect.name != "sqlite":
        # Two transactions of one game (two seats ordering at once) take turns here, and the second reads
        # what the first committed; SQLite has one writer at a time already.
        session.refresh(game, with_for_update=True)
    data = game_status(session, game)
    recipient = public_recipient(game.slug)
    written = 0
    for channel in config.status_channels:
        last = last_status_row(session, channel, recipient)
        if last is not None and last.data == data:
            continue
        pending = last is not None and last.sent_at is None and last.parked_at is None and last.claimed_until is None
        if pending:
            assert last is not None
            last.data = data
            last.next_attempt_at = min(last.next_attempt_at, now)
        else:
            key = f"status:{game.slug}:{uuid.uuid4().hex}"
            enqueue(session, Outgoing(channel, recipient, STATUS, TEMPLATE, data, key, game_id=game.id), now,
                    config.message_domain)  # fmt: skip
        written += 1
    return written


class StatusWatch:
    """Which games a transaction touched (their rows, seats, orders or turns were written)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.game_ids: set[int] = set()

    def _after_flush(self, session: Session, _context: object) -> None:
        for obj in [*session.new, *session.dirty, *session.deleted]:
            if isinstance(obj, Game):
                self.game_ids.add(obj.id)
            elif isinstance(obj, Seat | TurnRecord) and obj.game_id is not None:
                self.game_ids.add(obj.game_id)

    def refresh(self, config: ServiceConfig, now: datetime) -> int:
        """Flush, then refresh the status of every game touched; returns the rows written."""
        self.session.flush()
        self.game_ids |= self.session.info.pop(TOUCHED, set())  # orders filed by Core statements
        written = 0
        for game_id in sorted(self.game_ids):
            game = self.session.get(Game, game_id)
            if game is not None:
                written += refresh_status(self.session, game, config, now)
        return written


@contextmanager
def watching_status(session: Session, config: ServiceConfig, now: datetime) -> Iterator[StatusWatch]:
    """Within the block, note the games written; at its end (no exception), refresh their status rows."""
    watch = StatusWatch(session)
    session.info.pop(TOUCHED, None)  # only what this block files counts
    if not config.status_channels:
        yield watch
        return
    event.listen(session, "after_flush", watch._after_flush)
    try:
        yield watch
        session.flush()
    finally:
        event.remove(session, "after_flush", watch._after_flush)
    watch.refresh(config, now)


def last_status_row(session: Session, channel: str, recipient: str) -> OutboxMessage | None:
    """The latest status row to ``recipient`` on ``channel``.

    Found in ``ix_outbox_replies`` by (lower(recipient), channel, kind), not among every row the
    channel ever sent; a game's public place is lower case (as a slug is), so comparing it in
    lower case finds the same rows.  (SQLite, once a host has run ``ANALYZE``, may instead read
    the table back from its newest row, which stops at the game's last status row.)
    """
    return session.scalar(
        select(OutboxMessage)
        .where(OutboxMessage.channel == channel, func.lower(OutboxMessage.recipient) == recipient.lower(),
               OutboxMessage.kind == STATUS)
        .order_by(OutboxMessage.id.desc()).limit(1)
    )  # fmt: skip
