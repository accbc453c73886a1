"""The digest pass: each person's gathered items that are due, written as one ``digest`` message.

Delivery gathers a person's press, notices and reminders as digest items (``digest_items``:
:mod:`bot.core.messaging.digests` says which, and when they are due).  A pass of the deadline worker
finds the people with items due (:func:`players_due`: one query, plus one for those with a ``TURN``
digest), then, for each, in the caller's transaction (:func:`send_digests`):

* locks the person's row (``FOR UPDATE SKIP LOCKED`` on PostgreSQL: a second process skips them; on
  SQLite the caller holds the write lock, ``BEGIN IMMEDIATE``) and reads their items again under it;
* writes each digest due through :class:`~bot.core.messaging.delivery.Delivery` as an ordinary person's
  copy (one outbox row per channel linked to them; quiet hours, zone, language and form apply as to any
  notice), keyed by the person, the period and the items it holds;
* deletes the items it holds.

So an item is in exactly one digest: the rows and the deletion commit together, or neither does (a
``kill -9`` mid-pass leaves the items for the next pass); a second process finds them gone.  A ``DAILY``
digest holds every waiting item created before the due moment; a ``TURN`` digest the items of one game's
turn; with the digest turned off (``DIGEST OFF``) every waiting item goes out at the next pass, in one
message (nothing is lost).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from bot.core.games.stored import ABANDONED, FINISHED
from bot.core.messaging.delivery import Delivery
from bot.core.messaging.digest_setting import DAILY, stored_digest
from bot.core.messaging.digests import DIGEST_TEMPLATE, due_before, turn_over
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.model.secret_values import Secret
from bot.store.models import DigestItem, Game, Player

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig

DIGEST_BATCH = 50
"""People whose digests are written in one transaction by :func:`send_digests`' caller."""
_OVER = (FINISHED, ABANDONED)
_turn_over = or_(
    DigestItem.game_id.is_(None), DigestItem.turn_number.is_(None),
    Game.phase_number > DigestItem.turn_number, Game.status.in_(_OVER),
)  # fmt: skip
"""A ``TURN`` digest item is due (:func:`bot.core.messaging.digests.turn_over`, said in SQL; the game joined)."""


def players_due(session: Session, now: datetime) -> list[int]:
    """The ids (in order) of the people with a digest due at ``now`` (see the module docstring)."""
    rows = session.execute(
        select(DigestItem.player_id, Player.digest, Player.time_zone, func.min(DigestItem.created_at))
        .join(Player, Player.id == DigestItem.player_id)
        .group_by(DigestItem.player_id, Player.digest, Player.time_zone)
    ).all()
    due: set[int] = set()
    by_turn: list[int] = []
    for player_id, stored, zone, first in rows:
        digest = stored_digest(stored)
        if digest is not None and digest.mode != DAILY:
            by_turn.append(player_id)
            continue
        before = due_before(digest, zone, now)
        if before is not None and first < before:
            due.add(player_id)
    if by_turn:
        due.update(
            session.scalars(
                select(DigestItem.player_id)
                .outerjoin(Game, Game.id == DigestItem.game_id)
                .where(DigestItem.player_id.in_(by_turn), _turn_over)
                .distinct()
            ).all()
        )
    return sorted(due)


def send_digests(session: Session, player_ids: Sequence[int], now: datetime, config: ServiceConfig) -> int:
    """Write the due digests of ``player_ids`` in the caller's transaction; returns how many digests.

    A person another process holds (their row is locked) is skipped: that process writes theirs.
    """
    people = session.scalars(
        select(Player).where(Player.id.in_(list(player_ids))).order_by(Player.id).with_for_update(skip_locked=True)
    ).all()
    written = 0
    delivery = Delivery(session, config, now)
    for person in people:
        items = session.scalars(
            select(DigestItem).where(DigestItem.player_id == person.id).order_by(DigestItem.id)
        ).all()
        for period, game_id, group in _due_groups(session, person, items, now):
            delivery.send(_digest(session, person, period, game_id, group))
            session.execute(delete(DigestItem).where(DigestItem.id.in_([item.id for item in group])))
            written += 1
    return written


def _due_groups(
    session: Session, person: Player, items: Sequence[DigestItem], now: datetime
) -> list[tuple[str, int | None, list[DigestItem]]]:
    """The digests due of ``person``'s ``items``: (period, game id of a turn's digest, its items)."""
    digest = stored_digest(person.digest)
    if digest is not None and digest.mode != DAILY:
        groups: dict[tuple[int | None, int | None], list[DigestItem]] = {}
        for item in items:
            game = session.get(Game, item.game_id) if item.game_id is not None else None
            over = game is None or game.status in _OVER
            if turn_over(item.turn_number, game.phase_number if game is not None else 0, over):
                groups.setdefault((item.game_id, item.turn_number), []).append(item)
        return [(f"turn:{game_id}:{turn}", game_id, group) for (game_id, turn), group in groups.items()]
    before = due_before(digest, person.time_zone, now)
    due = [item for item in items if before is not None and item.created_at < before]
    if not due:
        return []
    period = "off" if digest is None or before is None else f"daily:{before.isoformat()}"
    return [(period, None, due)]


def _digest(session: Session, person: Player, period: str, game_id: int | None, items: list[DigestItem]) -> Outcome:
    """The outcome of one digest: its items, each with its game, in order of game then time.

    Its key names the person, the period and the first and last item it holds: a digest of the same
    items is one message whatever runs it, and no two digests share a key (an item is in one only)."""
    slugs: dict[int, str] = {}
    for item in items:
        if item.game_id is not None and item.game_id not in slugs:
            slugs[item.game_id] = session.get_one(Game, item.game_id).slug
    ordered = sorted(items, key=lambda item: (slugs.get(item.game_id or 0, ""), item.id))
    entries: list[dict[str, Any]] = [
        {"game": slugs.get(item.game_id) if item.game_id is not None else None, "kind": item.kind,
         "template": item.template, "data": _with_secrets(item), "at": item.created_at.isoformat()}
        for item in ordered
    ]  # fmt: skip
    data: dict[str, Any] = {
        "mode": period.split(":", 1)[0], "setting": person.digest, "items": entries,
        "games": sorted(set(slugs.values())), "time_zone": person.time_zone or "UTC",
        "game": slugs.get(game_id) if game_id is not None else None,
        "turn": items[0].turn_number if game_id is not None else None,
    }  # fmt: skip
    ids = sorted(item.id for item in items)
    key = f"digest:{person.id}:{period}:{ids[0]}-{ids[-1]}"
    secret = any(item.redacted_data is not None for item in items)
    return Outcome(ToPlayer(person.id), Message(DIGEST_TEMPLATE, data, secret), NOTICE, key, game_id)


def _with_secrets(item: DigestItem) -> dict[str, Any]:
    """The item's data with its secrets marked again (:class:`~bot.core.model.secret_values.Secret`: the
    values its redacted copy hides), so the digest's outbox row forgets them once sent."""
    hidden = item.redacted_data
    if hidden is None:
        return dict(item.data)
    return {key: Secret(value) if isinstance(value, str) and hidden.get(key) != value else value
            for key, value in item.data.items()}  # fmt: skip
