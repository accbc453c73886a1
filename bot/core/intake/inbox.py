"""The inbox: every received message, stored raw before its server is told anything.

Channel adapters keep what they receive here (they never touch the models).
The life of a row (:class:`bot.store.models.InboundMessage`)::

    new ──► done                      applied (or recorded as automatic mail)
     │
     └──► failed ──► ... ──► parked   handling raised; retried with back-off,
            ▲                  │      then parked for the host to inspect
            └──── requeue ─────┘      (``referee inbox requeue ID``)

    new ──► parked                    at once, with its reason: a mail the reader gave
                                      up on (over its time or memory budget: reading
                                      it again would cost the same; :meth:`Inbox.park`)

A message is known by its ``source_key`` (IMAP: account, folder,
UIDVALIDITY and UID; Maildir: the file's unique name) and by its content
digest: storing a second copy of a message already kept is a
no-op that returns the first copy.  The digest is the adapter's (email: the
Message-ID, the originator headers and the body, so the same mail delivered
twice is one message while a different mail reusing an old Message-ID is
another); without one it is the SHA-256 of the raw bytes.  The Message-ID
alone never makes two messages one.  Processing is idempotent further down (the envelope's source id),
so a crash anywhere between storing, applying and acknowledging loses nothing
and applies nothing twice.

``processed_at`` is when the row was last handled: done, or the last failed
attempt (the retry back-off counts from it).  ``outcome`` says what handling
did (accepted, refused, or why it was only recorded), for the host.

Secrets do not rest here.  Once a message is processed, its channel puts a
copy without the passwords and codes it carried in place of the raw bytes
(:meth:`Inbox.redact`, in the transaction that settles it), and the raw
bytes of a settled row are kept only ``retention`` (:meth:`Inbox.prune_raw`,
run by :mod:`bot.core.runtime.housekeeping`): then they are emptied, and the row
keeps its summary (sender, times, size, outcome).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import ColumnElement, Table, bindparam, func, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.batch import Batch, defer, open_batch, session_for
from bot.store.db import unit_of_work
from bot.store.models import Game, InboundMessage, OrderSubmission

NEW = "new"
DONE = "done"
FAILED = "failed"
PARKED = "parked"
STATUSES = (NEW, DONE, FAILED, PARKED)

MAX_KEY = 200
MAX_MESSAGE_ID = 998
MAX_ERROR = 4000
MAX_OUTCOME = 2000
MAX_SENDER = 320


@dataclass(frozen=True)
class Stored:
    """The row that holds a message: ``new`` is False when it was a copy already kept."""

    id: int
    source_key: str
    status: str
    new: bool


@dataclass(frozen=True)
class Incoming:
    """A message to store (:meth:`Inbox.store_many`): the arguments of :meth:`Inbox.store`."""

    source_key: str
    message_id: str | None
    raw: bytes
    received_at: datetime
    digest: str | None = None
    server_size: int | None = None


@dataclass(frozen=True)
class Pending:
    """A stored message due for (re)processing."""

    id: int
    source_key: str
    channel: str
    raw: bytes
    attempts: int
    received_at: datetime
    server_size: int | None = None


@dataclass(frozen=True)
class InboundSummary:
    """A row as the host sees it (``referee inbox list``): everything but the raw bytes."""

    id: int
    source_key: str
    message_id: str | None
    channel: str
    status: str
    attempts: int
    last_error: str | None
    received_at: datetime
    processed_at: datetime | None
    size: int
    server_size: int | None = None
    """The size the server reported, when the stored bytes were cut shorter (or differ)."""
    outcome: str | None = None


_INBOUND = cast(Table, InboundMessage.__table__)
_MARK_DONE = (
    update(_INBOUND)
    .where(_INBOUND.c.id == bindparam("row_id"))
    .values(
        status=DONE,
        attempts=_INBOUND.c.attempts + 1,
        processed_at=bindparam("processed_at", type_=_INBOUND.c.processed_at.type),
        outcome=bindparam("outcome", type_=_INBOUND.c.outcome.type),
        sender=bindparam("sender", type_=_INBOUND.c.sender.type),
        command_digest=bindparam("command_digest", type_=_INBOUND.c.command_digest.type),
    )
)
"""Built once (:meth:`Inbox.mark_done` runs for every message)."""
_REDACT = (
    update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id")).values(raw=bindparam("raw", type_=_INBOUND.c.raw.type))
)
"""A processed message's stored bytes replaced by a copy without its secrets (:meth:`Inbox.redact`)."""
_STORE = insert(_INBOUND)
"""The rows of :meth:`Inbox.store_many` on a database without ``ON CONFLICT``: one executemany
(their ids are then read by key, which is unique)."""
_STORE_NEW = {
    name: dialect.insert(_INBOUND)
    .on_conflict_do_nothing(index_elements=[_INBOUND.c.source_key])
    .returning(_INBOUND.c.source_key, _INBOUND.c.id)
    for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite))
}
"""The same rows where the database skips a key another process stored meanwhile
(``INSERT ... ON CONFLICT (source_key) DO NOTHING RETURNING``, in statements of many rows each,
SQLAlchemy's "insertmanyvalues"): two intakes on one database storing the same mail is a quiet
no-op, not an error; the rows returned are the ones this batch wrote."""
_IDS_BY_KEY = 500
"""Keys asked for in one ``IN`` list when the new rows' ids are read."""


class Inbox:
    """Store, hand out, and settle received messages; see the module docstring.

    ``max_attempts`` bounds the tries of a message whose handling raises; the
    wait before try *n* + 1 is ``retry_base * 2**(n-1)`` (capped at one hour).
    """

    def __init__(
        self, sessions: sessionmaker[Session], max_attempts: int = 5, retry_base: timedelta = timedelta(seconds=30)
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self._sessions = sessions
        self.max_attempts = max_attempts
        self.retry_base = retry_base

    def batch(self, careful: bool = True) -> AbstractContextManager[Batch]:
        """One transaction for a batch of messages (:mod:`bot.core.basics.batch`): commits when the block ends
        (``careful`` False: an optimistic batch, which ends with ``Redo`` if a message raises)."""
        return open_batch(self._sessions, careful)

    def store(
        self,
        channel: str,
        source_key: str,
        message_id: str | None,
        raw: bytes,
        now: datetime,
        digest: str | None = None,
        server_size: int | None = None,
    ) -> Stored:
        """Keep ``raw`` (one transaction), unless this message is already kept under its key or digest.

        ``digest`` is the adapter's content digest (see the module docstring; default: SHA-256 of
        ``raw``); ``server_size`` the size the server reported when ``raw`` was cut shorter.
        """
        if len(source_key) > MAX_KEY:
            raise ValueError(f"source key longer than {MAX_KEY} characters")
        message_id = (message_id or "").strip()[:MAX_MESSAGE_ID] or None
        digest = digest or hashlib.sha256(raw).hexdigest()
        existing = self._existing(channel, source_key, digest)
        if existing is not None:
            return existing
        try:
            with unit_of_work(self._sessions) as session:
                row = InboundMessage(
                    source_key=source_key, message_id=message_id, channel=channel, raw=raw, status=NEW, attempts=0,
                    last_error=None, received_at=now, processed_at=None, content_digest=digest,
                    server_size=server_size,
                )  # fmt: skip
                session.add(row)
                session.flush()
                return Stored(row.id, source_key, NEW, True)
        except IntegrityError:
            # Another process stored the same key in the meantime: that copy counts.
            existing = self._existing(channel, source_key, digest)
            if existing is None:
                raise
            return existing

    def store_many(self, batch: Batch, channel: str, items: Sequence[Incoming]) -> list[Stored]:
        """:meth:`store` for each of ``items``, in ``batch`` (committed with it), in two queries and
        one insert: a message already kept under its key or digest, or a copy of one earlier in
        ``items``, is not stored again (``Stored.new`` False, the first copy's row)."""
        session = batch.session
        prepared: list[tuple[Incoming, str | None, str]] = []
        for item in items:
            if len(item.source_key) > MAX_KEY:
                raise ValueError(f"source key longer than {MAX_KEY} characters")
            message_id = (item.message_id or "").strip()[:MAX_MESSAGE_ID] or None
            prepared.append((item, message_id, item.digest or hashlib.sha256(item.raw).hexdigest()))
        m = InboundMessage
        by_key: dict[str, Stored] = {}
        by_digest: dict[str, Stored] = {}
        keys = [item.source_key for item, _, _ in prepared]
        digests = list(dict.fromkeys(digest for _, _, digest in prepared))
        if keys:
            for row_id, key, status in session.execute(
                select(m.id, m.source_key, m.status).where(m.source_key.in_(keys))
            ):  # fmt: skip
                by_key[key] = Stored(row_id, key, status, False)
            for row_id, key, status, digest in session.execute(
                select(m.id, m.source_key, m.status, m.content_digest)
                .where(m.content_digest.in_(digests), m.channel == channel)
                .order_by(m.id.desc())
            ):  # the lowest id last: the first copy wins
                by_digest[str(digest)] = Stored(row_id, key, status, False)
        found: list[Stored | None] = []
        fresh: list[tuple[int, dict[str, object]]] = []
        copies: list[tuple[int, str]] = []
        new_by_key: dict[str, int] = {}
        new_by_digest: dict[str, int] = {}
        for position, (item, message_id, digest) in enumerate(prepared):
            known = by_key.get(item.source_key) or by_digest.get(digest)
            twin = new_by_key.get(item.source_key, new_by_digest.get(digest))
            found.append(known)
            if known is not None:
                continue
            if twin is not None:  # a copy of a message stored earlier in this batch
                copies.append((position, prepared[twin][0].source_key))
                continue
            new_by_key[item.source_key] = new_by_digest[digest] = position
            fresh.append((position, {
                "source_key": item.source_key, "message_id": message_id, "channel": channel, "raw": item.raw,
                "status": NEW, "attempts": 0, "last_error": None, "received_at": item.received_at,
                "processed_at": None, "content_digest": digest, "server_size": item.server_size,
            }))  # fmt: skip
        ids: dict[str, int] = {}
        if fresh:
            # One Core INSERT for the batch's new rows (no ORM object per raw mail), skipping a key
            # another process stored since the look-up above; then the rows by their keys (unique),
            # in one query for up to _IDS_BY_KEY of them.  A row whose digest is not the one this
            # batch wrote is that other process's: a copy, not new here.
            connection = session.connection()
            new_keys = [prepared[position][0].source_key for position, _ in fresh]
            skipping = _STORE_NEW.get(connection.dialect.name)
            written: set[str] | None = None
            if skipping is None:
                connection.execute(_STORE, [values for _, values in fresh])
            else:
                written = {key for key, _ in connection.execute(skipping, [values for _, values in fresh])}
            statuses: dict[str, str] = {}
            for start in range(0, len(new_keys), _IDS_BY_KEY):
                for key, row_id, status in session.execute(
                    select(m.source_key, m.id, m.status).where(m.source_key.in_(new_keys[start : start + _IDS_BY_KEY]))
                ):  # fmt: skip
                    ids[key], statuses[key] = row_id, status
            for (position, _), key in zip(fresh, new_keys, strict=True):
                ours = written is None or key in written  # else another process stored it meanwhile: a copy
                found[position] = Stored(ids[key], key, NEW if ours else statuses[key], ours)
        for position, key in copies:
            found[position] = Stored(ids[key], key, NEW, False)
        return [stored for stored in found if stored is not None]

    def _existing(self, channel: str, source_key: str, digest: str) -> Stored | None:
        with unit_of_work(self._sessions) as session:
            row = session.scalar(select(InboundMessage).where(InboundMessage.source_key == source_key))
            if row is None:
                row = session.scalar(
                    select(InboundMessage)
                    .where(InboundMessage.content_digest == digest, InboundMessage.channel == channel)
                    .order_by(InboundMessage.id)
                    .limit(1)
                )
            if row is None:
                return None
            return Stored(row.id, row.source_key, row.status, False)

    def statuses(self, source_keys: Iterable[str]) -> dict[str, str]:
        """The status of each of ``source_keys`` that is stored (absent keys are not in the result)."""
        keys = list(dict.fromkeys(source_keys))
        found: dict[str, str] = {}
        with unit_of_work(self._sessions) as session:
            for start in range(0, len(keys), 500):
                rows = session.execute(
                    select(InboundMessage.source_key, InboundMessage.status).where(
                        InboundMessage.source_key.in_(keys[start : start + 500])
                    )
                ).all()
                found.update({key: status for key, status in rows})
        return found

    def pending(
        self, now: datetime, channel: str | None = None, limit: int = 50, batch: Batch | None = None
    ) -> list[Pending]:
        """New rows, then failed rows whose back-off has passed; oldest first (read in ``batch`` when given)."""
        with session_for(self._sessions, batch) as session:
            query = select(
                InboundMessage.id, InboundMessage.status, InboundMessage.attempts, InboundMessage.processed_at,
                InboundMessage.received_at,
            ).where(or_(InboundMessage.status == NEW, InboundMessage.status == FAILED))  # fmt: skip
            if channel is not None:
                query = query.where(InboundMessage.channel == channel)
            candidates = session.execute(query.order_by(InboundMessage.id)).all()
            due = [
                row_id
                for row_id, status, attempts, processed_at, received_at in candidates
                if status == NEW or self.retry_at(attempts, processed_at or received_at) <= now
            ][:limit]
            rows = session.scalars(select(InboundMessage).where(InboundMessage.id.in_(due)).order_by(InboundMessage.id))
            return [
                Pending(r.id, r.source_key, r.channel, bytes(r.raw), r.attempts, r.received_at, r.server_size)
                for r in rows
            ]

    def retry_at(self, attempts: int, last_attempt: datetime) -> datetime:
        """When a row that has failed ``attempts`` times, last at ``last_attempt``, is due again."""
        delay: timedelta = min(timedelta(hours=1), self.retry_base * 2 ** max(attempts - 1, 0))
        return last_attempt + delay

    def mark_done(
        self,
        row_id: int,
        now: datetime,
        outcome: str | None = None,
        sender: str | None = None,
        command_digest: str | None = None,
        batch: Batch | None = None,
    ) -> None:
        """Settle a row: what handling did (``outcome``), who sent it and a digest of its commands
        (for the reply limit, :mod:`bot.core.intake.reply_limit`); in ``batch`` when given (committed with
        it), else in a transaction of its own."""
        values = {
            "row_id": row_id,
            "processed_at": now,
            "outcome": outcome[:MAX_OUTCOME] if outcome else None,
            "sender": sender.strip().lower()[:MAX_SENDER] if sender else None,
            "command_digest": command_digest,
        }
        with session_for(
            self._sessions, batch
        ) as session:  # one statement, below the ORM: the row (its raw bytes) is not loaded
            defer(session, _MARK_DONE, [values])  # an optimistic batch settles its rows in one executemany

    def redact(self, row_id: int, raw: bytes, batch: Batch | None = None) -> None:
        """Keep ``raw`` (the message without the secrets it carried) in place of the row's bytes; in
        ``batch`` when given (with :meth:`mark_done`: the secret is gone when the row is settled)."""
        with session_for(self._sessions, batch) as session:
            defer(session, _REDACT, [{"row_id": row_id, "raw": raw}])

    def prune_raw(self, now: datetime, retention: timedelta, chunk: int = 500) -> int:
        """Empty the raw bytes of settled rows (done or parked) received more than ``retention``
        before ``now``; returns how many were emptied.  Rows still to process keep theirs.  A
        transaction per ``chunk`` rows, so the first prune of a large inbox holds no lock for long."""
        expired = (
            _INBOUND.c.status.in_((DONE, PARKED)),
            _INBOUND.c.received_at < now - retention,
            func.length(_INBOUND.c.raw) > 0,
        )
        pruned = 0
        while True:
            with unit_of_work(self._sessions) as session:
                ids = session.scalars(select(_INBOUND.c.id).where(*expired).order_by(_INBOUND.c.id).limit(chunk)).all()
                if ids:
                    session.execute(update(_INBOUND).where(_INBOUND.c.id.in_(ids)).values(raw=b""))
            pruned += len(ids)
            if len(ids) < chunk:
                return pruned

    def accepted_orders(self, source_id: str) -> list[tuple[str, int, str]]:
        """(game, turn, seat) of the orders the envelope ``source_id`` left on file (for the log)."""
        with unit_of_work(self._sessions) as session:
            rows = session.execute(
                select(Game.slug, OrderSubmission.turn_number, OrderSubmission.seat_name)
                .join(Game, Game.id == OrderSubmission.game_id)
                .where(OrderSubmission.source_id == source_id)
                .order_by(OrderSubmission.id)
            ).all()
        return [(slug, int(turn), seat) for slug, turn, seat in rows]

    def unsettled_since(self, channel: str) -> datetime | None:
        """The earliest arrival of a ``channel`` row still new or failed (stored, not yet applied)."""
        with unit_of_work(self._sessions) as session:
            return session.scalar(
                select(func.min(InboundMessage.received_at)).where(
                    InboundMessage.channel == channel,
                    or_(InboundMessage.status == NEW, InboundMessage.status == FAILED),
                )
            )

    def mark_failed(self, row_id: int, now: datetime, error: str, batch: Batch | None = None) -> str:
        """Record a failed attempt; the row is parked once it has failed ``max_attempts`` times
        (in ``batch`` when given)."""
        with session_for(self._sessions, batch) as session:
            row = session.get_one(InboundMessage, row_id)
            row.attempts += 1
            row.last_error = error[-MAX_ERROR:]
            row.processed_at = now
            row.status = PARKED if row.attempts >= self.max_attempts else FAILED
            return row.status

    def park(
        self,
        row_id: int,
        now: datetime,
        reason: str,
        outcome: str | None = None,
        sender: str | None = None,
        batch: Batch | None = None,
    ) -> None:
        """Park a row at once with ``reason`` (a mail the reader gave up on: retrying would cost
        the same again); ``outcome`` and ``sender`` as :meth:`mark_done` records them.  The host
        lists it and may requeue it as any parked row."""
        with session_for(self._sessions, batch) as session:
            row = session.get_one(InboundMessage, row_id)
            row.attempts += 1
            row.last_error = reason[-MAX_ERROR:]
            row.processed_at = now
            row.outcome = outcome[:MAX_OUTCOME] if outcome else None
            row.sender = sender.strip().lower()[:MAX_SENDER] if sender else None
            row.status = PARKED

    def requeue(self, row_id: int) -> bool:
        """Give a parked (or failed) row a fresh set of attempts; False if there is no such row to requeue."""
        with unit_of_work(self._sessions) as session:
            row = session.get(InboundMessage, row_id)
            if row is None or row.status not in (PARKED, FAILED):
                return False
            row.status = NEW
            row.attempts = 0
            return True

    def summaries(self, status: str | None = None, limit: int = 100) -> list[InboundSummary]:
        """Rows for the host, newest first; ``status`` None means every status."""
        return self._summaries(None if status is None else InboundMessage.status == status, limit)

    def summary(self, row_id: int) -> InboundSummary | None:
        """One row for the host, or None."""
        found = self._summaries(InboundMessage.id == row_id, 1)
        return found[0] if found else None

    def _summaries(self, condition: ColumnElement[bool] | None, limit: int) -> list[InboundSummary]:
        m = InboundMessage
        query = select(
            m.id, m.source_key, m.message_id, m.channel, m.status, m.attempts, m.last_error, m.received_at,
            m.processed_at, func.length(m.raw), m.server_size, m.outcome,
        )  # fmt: skip
        if condition is not None:
            query = query.where(condition)
        with unit_of_work(self._sessions) as session:
            rows = session.execute(query.order_by(m.id.desc()).limit(limit)).all()
        return [InboundSummary(*row) for row in rows]

    def raw(self, row_id: int) -> bytes | None:
        """The stored bytes of one row (for the host to inspect)."""
        with unit_of_work(self._sessions) as session:
            row = session.get(InboundMessage, row_id)
            return None if row is None else bytes(row.raw)

    def counts(self) -> dict[str, int]:
        """How many rows are in each status."""
        with unit_of_work(self._sessions) as session:
            rows = session.execute(select(InboundMessage.status, func.count()).group_by(InboundMessage.status)).all()
        found = {status: int(count) for status, count in rows}
        return {status: found.get(status, 0) for status in STATUSES}
