"""The outbox: messages written in the same transaction as their cause, drained by senders.

A row says what to send as a template name and plain JSON data (never text)
plus the recipient on one channel; the delivery step (:mod:`bot.core.messaging.delivery`)
writes them.  Channel adapters drain it through :class:`OutboxDrain` (they
never touch the models) and render each row in their own form.  A row is
handed out until a sender marks it sent; a failed attempt is retried with
exponential back-off; a permanent refusal parks it with the reason.  Each row
has a stable Message-ID, so a retry after a crash between "sent" and "marked"
is recognisable downstream.  A sender in this process is woken when rows for its
channel are committed (:mod:`bot.core.messaging.outbox_bell`); it looks every interval besides.

A row whose message carries a secret (a password, a link code:
:mod:`bot.core.model.secret_values`) is written with ``redacted_data`` beside its
data; marking it sent or parking it replaces the data with that copy in the
same statement, so no secret rests in a row once it is delivered or given up.
A claimed row says whether it carries one (:attr:`PendingMessage.secret`);
the sender marks a row that carries none with the plain statement, as cheap
as before (a mark not told so forgets whatever there is).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Connection, Engine, Table, bindparam, case, func, insert, null, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.batch import MEMO, REPLIES, defer
from bot.core.messaging.outbox_bell import note
from bot.core.model.secret_values import redacted
from bot.store.db import relax_durability, unit_of_work
from bot.store.models import OutboxMessage

MAX_BACKOFF = timedelta(hours=1)
LEASE = timedelta(minutes=2)
"""How long a sender holds the rows it claimed before another may take them (it died meanwhile)."""


@dataclass(frozen=True)
class Outgoing:
    """One outbox row to write: a message for one recipient on one channel."""

    channel: str
    recipient: str
    kind: str
    template: str
    data: Mapping[str, Any]
    key: str
    """What makes this message unique (with channel and recipient): its Message-ID is derived from it."""
    context: Mapping[str, Any] = field(default_factory=dict)
    game_id: int | None = None
    turn_number: int | None = None
    secret: bool = False
    """``data`` holds a :class:`~bot.core.model.secret_values.Secret`: the row forgets it once sent or parked."""
    not_before: datetime | None = None
    """Held until then (the recipient's quiet hours: :mod:`bot.core.messaging.quiet_hours`); None: due now."""


@dataclass(frozen=True)
class PendingMessage:
    """An outbox row as a sender sees it."""

    id: int
    message_id: str
    channel: str
    recipient: str
    kind: str
    template: str
    data: Mapping[str, Any]
    context: Mapping[str, Any]
    attempts: int
    created_at: datetime
    secret: bool = False
    """The row carries a secret (it has a redacted copy): marking it sent forgets the secret."""


_INSERT = insert(cast(Table, OutboxMessage.__table__))
"""Built once (:func:`enqueue_many` runs for every reply of an intake batch)."""


def stable_message_id(channel: str, recipient: str, key: str, domain: str) -> str:
    """``<hash@domain>`` derived from what the message is, so it is the same on every retry."""
    digest = hashlib.sha256(f"{channel}\x00{recipient}\x00{key}".encode()).hexdigest()[:32]
    return f"<{digest}@{domain}>"


def _values(message: Outgoing, now: datetime, domain: str) -> dict[str, Any]:
    """The columns of ``message``'s new outbox row."""
    return {
        "message_id": stable_message_id(message.channel, message.recipient, message.key, domain),
        "channel": message.channel,
        "recipient": message.recipient,
        "kind": message.kind,
        "template": message.template,
        "data": dict(message.data),
        "redacted_data": redacted(message.data) if message.secret else None,
        "context": dict(message.context),
        "game_id": message.game_id,
        "turn_number": message.turn_number,
        "created_at": now,
        "next_attempt_at": now if message.not_before is None else max(now, message.not_before),
        "attempts": 0,
        "last_error": None,
        "sent_at": None,
    }


def enqueue(session: Session, message: Outgoing, now: datetime, domain: str = "referee.invalid") -> OutboxMessage:
    """Add ``message`` to the outbox inside the caller's transaction."""
    values = _values(message, now, domain)
    row = OutboxMessage(**values)
    session.add(row)
    _count_replies(session, [values])
    note(session, message.channel)  # this process's sender wakes when it commits
    return row


def enqueue_many(
    session: Session, messages: Sequence[Outgoing], now: datetime, domain: str = "referee.invalid"
) -> None:
    """Add ``messages`` to the outbox inside the caller's transaction, in one INSERT statement.

    The rows are the ones :func:`enqueue` would write, in the same order (so
    they are sent in that order), without an ORM object per row.  The INSERT
    is a Core statement on the session's connection: it does not flush the
    session's pending objects first (an ORM statement would, once a message
    of an intake batch: most of the batch's cost), and a row it names
    (``game_id``) has an id only once written, so it is there already.  In an
    optimistic intake batch the rows wait for the batch's end (:func:`bot.core.basics.batch.defer`).
    """
    rows = [_values(message, now, domain) for message in messages]
    defer(session, _INSERT, rows)
    _count_replies(session, rows)
    for channel in {message.channel for message in messages}:
        note(session, channel)  # this process's senders wake when it commits


def _count_replies(session: Session, rows: Sequence[Mapping[str, Any]]) -> None:
    """Add each reply queued to the batch's reply times its recipient's (:class:`RepliesSeen`), so
    the reply limit's count of a loaded recipient holds the batch's replies too; a reply to an
    address the limit cannot match in Python as SQL does (not ASCII) forgets the channel's."""
    memo = session.info.get(MEMO)
    if not memo:
        return
    for row in rows:
        seen: RepliesSeen | None = memo.get((REPLIES, row["channel"]))
        if seen is None or row["kind"] != "reply":
            continue
        recipient = str(row["recipient"])
        if not recipient.isascii():
            del memo[(REPLIES, row["channel"])]
            continue
        times = seen.times.get(recipient.lower())
        if times is not None:
            times.append(row["created_at"])


@dataclass
class RepliesSeen:
    """The reply limit's count for one channel in a batch (:mod:`bot.core.intake.reply_limit`):
    for each loaded recipient (lowercase ASCII), when each reply to it at or after ``since`` was
    queued, those written before the batch's first question and those the batch queued since."""

    since: datetime
    times: dict[str, list[datetime]]


_WAITING = (OutboxMessage.sent_at.is_(None), OutboxMessage.parked_at.is_(None))
"""A row waits to be sent: not sent, not parked (the rows of ``ix_outbox_unsent``)."""
_OLDEST_FIRST = (OutboxMessage.created_at, OutboxMessage.id)
"""The order a sender takes waiting rows in: ``ix_outbox_unsent``'s, which the primary key cannot give."""


class OutboxDrain:
    """What a sender uses: fetch due rows of its channel, mark them sent or failed."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def due(self, channel: str, now: datetime, limit: int = 100, lease: timedelta = LEASE) -> list[PendingMessage]:
        """Claim up to ``limit`` unsent rows of ``channel`` whose next attempt is due, oldest first
        (by ``created_at``, then ``id``), returned in ``id`` order.

        A claimed row is leased to this sender for ``lease``: any other sender
        (another ``referee serve`` process on the same database) skips it until
        it is marked sent, failed or parked, or the lease runs out (the sender
        died).  On PostgreSQL the candidates are locked with ``FOR UPDATE SKIP
        LOCKED``, so two senders never wait for each other or take the same row;
        the conditional update guards SQLite (one writer at a time) the same way.
        The update returns the rows it claimed (``RETURNING``, where the database
        has it: one statement and no ORM objects, not an update then a select;
        9,000 rows claimed 200 at a time on PostgreSQL: see deploy/PERFORMANCE.md).
        """
        due = (
            OutboxMessage.next_attempt_at <= now,
            or_(OutboxMessage.claimed_until.is_(None), OutboxMessage.claimed_until <= now),
        )
        with unit_of_work(self._sessions) as session:
            ids = session.scalars(
                select(OutboxMessage.id)
                .where(OutboxMessage.channel == channel, *_WAITING, *due)
                # oldest first, in the order of ix_outbox_unsent (migration 0010), which the primary key
                # cannot give: no plan walks the history instead, whatever the statistics believe
                .order_by(*_OLDEST_FIRST)
                .limit(limit)
                .with_for_update(skip_locked=True)
            ).all()
            if not ids:
                return []
            token = uuid.uuid4().hex
            claim = (
                update(OutboxMessage)
                # Still due: not sent or parked by another sender meanwhile.  Said as one coalesce, which
                # a planner cannot match to ix_outbox_unsent's predicate: believing that index nearly
                # empty (statistics gathered while nothing waited), PostgreSQL read every waiting row
                # of it for a claim named by id.  So the rows are found by their ids.
                .where(
                    OutboxMessage.id.in_(ids),
                    func.coalesce(OutboxMessage.sent_at, OutboxMessage.parked_at).is_(None),
                    *due,
                )
                .values(claimed_until=now + lease, claimed_by=token)
            )
            connection = session.connection()
            if connection.dialect.update_returning:  # PostgreSQL; SQLite 3.35 and later
                claimed = connection.execute(claim.returning(*_PENDING_COLUMNS)).all()
            else:
                connection.execute(claim)
                claimed = connection.execute(
                    select(*_PENDING_COLUMNS).where(OutboxMessage.id.in_(ids), OutboxMessage.claimed_by == token)
                ).all()
            return sorted((_pending(row) for row in claimed), key=lambda row: row.id)

    def release(self, message_ids: list[int]) -> None:
        """Give back claimed rows that were not sent (the channel went away mid-batch): due again at once."""
        with unit_of_work(self._sessions) as session:
            session.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id.in_(message_ids), OutboxMessage.sent_at.is_(None))
                .values(claimed_until=None)
            )

    def mark_sent(self, message_id: int, now: datetime, secret: bool = True) -> None:
        """One statement, committed at once (the sender calls it right after the server's 250).

        The row's secret, if any, is forgotten in the same statement; ``secret`` False (the claimed
        row's :attr:`PendingMessage.secret`) says it has none, and the mark is the plain one.
        A sender marking many rows in one pass uses :meth:`marker` instead (cheaper commits).
        """
        with unit_of_work(self._sessions) as session:
            session.execute(_mark_sent(secret), {"row": message_id, "now": now})

    def marker(self) -> SentMarker:
        """A :class:`SentMarker` for one sending pass (open it, mark rows, close it)."""
        bind = self._sessions.kw.get("bind")
        if not isinstance(bind, Engine):
            raise TypeError("the outbox's session factory is not bound to an engine")
        return SentMarker(bind)

    def mark_failed(self, message_id: int, now: datetime, error: str) -> datetime:
        """Record a failed attempt; returns when the row is due again (back-off doubles)."""
        with unit_of_work(self._sessions) as session:
            row = session.get_one(OutboxMessage, message_id)
            row.attempts += 1
            row.last_error = error[:2000]
            delay = min(MAX_BACKOFF, timedelta(seconds=5 * 2 ** min(row.attempts - 1, 12)))
            row.next_attempt_at = now + delay
            row.claimed_until = None
            return row.next_attempt_at

    def park(self, message_id: int, now: datetime, reason: str) -> None:
        """The channel refused the row for good (unknown recipient, no permission): keep it, stop trying.

        A secret it carried is removed (as once sent): nobody is to read it from the database."""
        with unit_of_work(self._sessions) as session:
            row = session.get_one(OutboxMessage, message_id)
            row.attempts += 1
            row.last_error = reason[:2000]
            row.parked_at = now
            row.claimed_until = None
            if row.redacted_data is not None:  # given up: its secret is not kept for anyone
                row.data, row.redacted_data = row.redacted_data, None

    def unsent_count(self, channel: str | None = None) -> int:
        """Rows not yet sent and not parked."""
        with unit_of_work(self._sessions) as session:
            query = select(func.count()).select_from(OutboxMessage).where(*_WAITING)
            if channel is not None:
                query = query.where(OutboxMessage.channel == channel)
            return int(session.scalar(query) or 0)

    def anything_waiting(self, channel: str) -> bool:
        """Whether any row of ``channel`` is not yet sent nor parked: the first row of
        ``ix_outbox_unsent`` for it, in the due query's order (a count reads every waiting row, and
        with statistics that believe most of the table unsent, a planner reads the table whole)."""
        with unit_of_work(self._sessions) as session:
            first = session.scalar(
                select(OutboxMessage.id)
                .where(OutboxMessage.channel == channel, *_WAITING)
                .order_by(*_OLDEST_FIRST)
                .limit(1)
            )
            return first is not None

    def waiting_by_channel(self) -> dict[str, int]:
        """How many rows wait (unsent, not parked) on each channel."""
        with unit_of_work(self._sessions) as session:
            rows = session.execute(
                select(OutboxMessage.channel, func.count()).where(*_WAITING).group_by(OutboxMessage.channel)
            ).all()
            return {str(channel): int(count) for channel, count in rows}

    def parked(self, channel: str | None = None) -> list[tuple[PendingMessage, str]]:
        """Rows a channel refused for good, with the reason (for the host)."""
        with unit_of_work(self._sessions) as session:
            query = (
                select(*_PENDING_COLUMNS, OutboxMessage.last_error)
                .where(OutboxMessage.parked_at.is_not(None))
                .order_by(OutboxMessage.id)
            )
            if channel is not None:
                query = query.where(OutboxMessage.channel == channel)
            return [(_pending(row[:-1]), row[-1] or "") for row in session.execute(query).all()]


_UNSENT = OutboxMessage.sent_at.is_(None)
_MARK_SENT = (
    update(OutboxMessage)
    .where(OutboxMessage.id == bindparam("row"))
    .values(
        sent_at=func.coalesce(OutboxMessage.sent_at, bindparam("now")),
        attempts=OutboxMessage.attempts + case((_UNSENT, 1), else_=0),
        claimed_until=None,
    )
    .execution_options(synchronize_session=False)
)
"""Mark one row sent (a second mark changes nothing: ``sent_at`` and ``attempts`` stay as they were)."""
_MARK_SENT_FORGETTING = _MARK_SENT.values(
    # A row with a secret keeps its redacted copy from now on (any other keeps its data: NULL there)
    data=func.coalesce(OutboxMessage.redacted_data, OutboxMessage.data),
    redacted_data=null(),
)
""":data:`_MARK_SENT`, forgetting the row's secret in the same statement (:mod:`bot.core.model.secret_values`):
for a row that carries one, or may (a row not claimed as one without)."""


def _mark_sent(secret: bool) -> Any:
    """The mark for a row that carries a secret (or may), or for one known to carry none."""
    return _MARK_SENT_FORGETTING if secret else _MARK_SENT


class SentMarker:
    """Marks rows sent, one commit per row, on one connection held for a sending pass.

    The guarantee is the one of :meth:`OutboxDrain.mark_sent`: the sender marks
    each row right after the server's 250 and before it hands over the next
    one, so a row is handed over again only if the process dies between that
    250 and this commit (one message at most, sent again with the same
    Message-ID).  What makes it cheaper: no session or ORM per row, the
    statement compiled once, run in autocommit mode (the statement is its own
    transaction, committed when it returns), and a commit that does not wait
    for the disk:

    * SQLite (WAL): ``synchronous=NORMAL`` on this connection only.  A commit is
      in the WAL file at once, so it survives the process dying (kill -9); it
      reaches the disk at the next sync (another connection's commit or a
      checkpoint).  Only an OS crash or power cut in between can lose marks,
      and then those rows are sent again, with their Message-IDs.
    * PostgreSQL: ``synchronous_commit = off`` for this session.  The server
      has the commit when it answers, so the bot dying loses nothing; only a
      crash of the database server can lose the last marks (at most three
      times ``wal_writer_delay``, 0.6 s by default), sent again likewise.

    Everything else (claims, resolving, intake) keeps the database's full
    durability.  Not for use by two threads at once (the sender awaits each mark).
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._connection: Connection | None = None
        self._restore: str | None = None

    def open(self) -> SentMarker:
        """Check a connection out of the pool and make its commits cheap (see the class docstring)."""
        connection = self._engine.connect()
        try:
            self._restore = relax_durability(connection)
            # Each mark is one statement committed by itself: no BEGIN and COMMIT around it (on
            # PostgreSQL one round trip a mark, not three).  Undone when the connection goes back.
            connection.execution_options(isolation_level="AUTOCOMMIT")
        except BaseException:
            connection.invalidate()
            connection.close()
            raise
        self._connection = connection
        return self

    def mark_sent(self, message_id: int, now: datetime, secret: bool = True) -> None:
        """Mark ``message_id`` sent and commit (see :meth:`OutboxDrain.mark_sent`)."""
        if self._connection is None:
            raise RuntimeError("the marker is not open")
        try:
            self._connection.execute(_mark_sent(secret), {"row": message_id, "now": now})
            self._connection.commit()
        except Exception:
            self._connection.rollback()
            raise

    def close(self) -> None:
        """Give the connection back to the pool with its settings as they were."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            if self._restore is not None:
                connection.exec_driver_sql(self._restore)
                connection.commit()
        except Exception:
            connection.invalidate()  # not back into the pool with cheap commits
        finally:
            connection.close()


_PENDING_COLUMNS = (
    OutboxMessage.id, OutboxMessage.message_id, OutboxMessage.channel, OutboxMessage.recipient, OutboxMessage.kind,
    OutboxMessage.template, OutboxMessage.data, OutboxMessage.context, OutboxMessage.attempts,
    OutboxMessage.created_at, OutboxMessage.redacted_data,
)  # fmt: skip
"""A :class:`PendingMessage`'s columns, in its fields' order, then the redacted copy (what a claim returns,
or selects where the database has no ``RETURNING``; the parked rows' listing).  The copy itself, not
``redacted_data IS NOT NULL``: SQLite 3.40's ``RETURNING`` gave true for every row of that (NULL for
all but the few rows with a secret, so it costs nothing)."""


def _pending(row: Sequence[Any]) -> PendingMessage:
    """The :class:`PendingMessage` of a row of :data:`_PENDING_COLUMNS`."""
    row_id, message_id, channel, recipient, kind, template, data, context, attempts, created_at, redacted = row
    return PendingMessage(
        row_id,
        message_id,
        channel,
        recipient,
        kind,
        template,
        data,
        context,
        attempts,
        created_at,
        redacted is not None,
    )
