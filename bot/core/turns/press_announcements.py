"""Press in the reports and the record: each signed message sent ``TO ALL`` is announced by the next
report; every kept text is in the exported record of a game that keeps them (``press_in_record``).

``PRESS <game> TO ALL`` without ``ANON`` is public press (:mod:`bot.core.commands.press`): every
seat got it, and the next report's announcements part (beside the game masters' actions) repeats
it, so observers and the game's public place see it too, and the record keeps it with the report.
Anonymous press is never announced: a report is no place to guess a sender from.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from bot.core.basics.batch import memo_of
from bot.store.models import Game, PressMessage, Seat

PUBLIC_PRESS = "public_press"
"""Memo kind (:mod:`bot.core.basics.batch`): (PUBLIC_PRESS, game id, since) -> the announced press since then."""


def _public(query: Any) -> Any:
    return query.where(PressMessage.public.is_(True), PressMessage.anonymous.is_(False),
                       PressMessage.text.is_not(None))  # fmt: skip


def remember_public_press(session: Session, since: dict[int, datetime | None]) -> None:
    """Load the public press of every game of ``since`` (game id -> the previous report's time) in one query."""
    if not since:
        return
    wanted = [
        PressMessage.game_id == game_id
        if moment is None
        else (PressMessage.game_id == game_id) & (PressMessage.sent_at > moment)
        for game_id, moment in since.items()
    ]
    found: dict[int, list[tuple[PressMessage, str]]] = {game_id: [] for game_id in since}
    query = _public(select(PressMessage, Seat.name).join(Seat, Seat.id == PressMessage.sender_seat_id))
    for message, name in session.execute(query.where(or_(*wanted)).order_by(PressMessage.id)):
        found[message.game_id].append((message, name))
    memo = memo_of(session)
    for game_id, rows in found.items():
        memo[(PUBLIC_PRESS, game_id, since[game_id])] = rows


def public_press_since(session: Session, game: Game, since: datetime | None) -> list[dict[str, Any]]:
    """The public signed press of ``game`` sent after ``since`` (all when None), oldest first, as a report
    announces it: the sender's seat, when, and the text."""
    rows: Sequence[tuple[PressMessage, str]] | None = memo_of(session).get((PUBLIC_PRESS, game.id, since))
    if rows is None:
        query = _public(select(PressMessage, Seat.name).join(Seat, Seat.id == PressMessage.sender_seat_id))
        query = query.where(PressMessage.game_id == game.id)
        if since is not None:
            query = query.where(PressMessage.sent_at > since)
        rows = [(m, n) for m, n in session.execute(query.order_by(PressMessage.id))]
    return [{"seat": name, "at": message.sent_at.isoformat(), "text": message.text} for message, name in rows]


def press_of_record(session: Session, game: Game) -> list[dict[str, Any]]:
    """Every press text ``game`` kept, oldest first, for its exported record: code, time, sender seat (None
    when it was sent anonymously: a record outlives the game, and the sender chose not to be named),
    recipients (``ALL`` for every seat; None for anonymous press sent to some seats: the sender would be the
    seat missing from a list its recipients know) and text.  Empty unless the game keeps press
    (``press_in_record``)."""
    if not game.press_in_record:
        return []
    query = (
        select(PressMessage, Seat.name)
        .join(Seat, Seat.id == PressMessage.sender_seat_id)
        .where(PressMessage.game_id == game.id, PressMessage.text.is_not(None))
        .order_by(PressMessage.id)
    )
    return [
        {"code": m.code, "at": m.sent_at.isoformat(), "from": None if m.anonymous else name,
         "to": "ALL" if m.public else None if m.anonymous else list(m.recipients), "text": m.text}
        for m, name in session.execute(query)
    ]  # fmt: skip
