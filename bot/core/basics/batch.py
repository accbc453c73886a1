"""One transaction over a batch of received messages: one commit for many, each still on its own.

An intake that stores and applies message after message, each in its own
transaction, pays a commit (an fsync on SQLite) for every step of every
message.  A :class:`Batch` is one transaction for a batch: the intake stores
the messages (:meth:`bot.core.intake.inbox.Inbox.store_many`), applies each one
(:meth:`bot.core.runtime.service.GameService.apply` with ``batch=``), queues its
reply and settles its inbox row, all in the batch, and the batch commits
once.  The intake acknowledges nothing to its server before that commit,
so a crash anywhere in the batch leaves every message of it unstored and
unacknowledged: the next pass reads them again, and nothing is lost or
applied twice.

Each message is one :meth:`Batch.unit` (a savepoint): a message whose handling
raises is rolled back alone, and its row is marked failed in the batch (retried
later, then parked); the other messages of the batch are kept.  An intake may
first run a batch *optimistically* (``careful=False``: no savepoint per
message, every write flushed at once, far cheaper); if any message raises, the
batch ends with :class:`Redo`, everything of it is rolled back, and the intake
runs it again carefully.

In an optimistic batch the statements the messages write row by row (the
reply's outbox row, the settled inbox row) are *deferred*
(:func:`defer`): kept, and executed at the end of the batch as one
executemany each (plain inserts as a ``COPY`` on PostgreSQL:
:func:`bot.store.bulk.execute_many`), before its flush; whoever reads those tables in the
batch first writes what waits (:func:`write_deferred`).  If a message
raises, the batch is rolled back whole anyway, so nothing deferred is ever
lost or written for a message rolled back; a careful batch (a savepoint a
message) writes each statement at once.

``memo`` is a cache for the batch's lifetime (what repeats from message to
message: a game found by name, a player found by address, the orders on
file for a turn); it is the
session's ``info`` dict, so code that only has the session reaches it too
(:func:`memo_of`), and it dies with the transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Executable, text
from sqlalchemy.orm import Session, sessionmaker

from bot.store.bulk import execute_many
from bot.store.db import unit_of_work

MEMO = "referee.batch.memo"
DEFERRED = "referee.batch.deferred"
REPLIES = "replies"
"""The memo's kind for the reply limit's counts (``bot.core.messaging.outbox.RepliesSeen``)."""
FAILURES = "failures"
"""The memo's kind for the senders' wrong passwords (``bot.core.people.guessing.remember_failures``)."""


class Redo(Exception):
    """A unit of an optimistic batch raised (or the batch's writes failed): the whole batch is rolled
    back, and the caller runs it again carefully, with a savepoint for each unit."""


class Batch:
    """One open transaction shared by the messages of a batch; see the module docstring."""

    def __init__(self, session: Session, careful: bool = True) -> None:
        self.session = session
        self.careful = careful

    @property
    def memo(self) -> dict[Any, Any]:
        return memo_of(self.session)

    @contextmanager
    def unit(self) -> Iterator[None]:
        """One message's work: rolled back alone if it raises (the exception goes on to the caller).

        A unit rolled back forgets the memo's orders on file (``bot.core.games.stored.current_orders``:
        rows it wrote are gone), the replies counted for the reply limit, the senders' wrong
        passwords, and when turns opened (a turn it resolved is unresolved again); a game or player it made is looked up again where it is used.
        In an optimistic batch (``careful`` False) a unit has no savepoint of its own, and its
        writes are flushed with the whole batch's; if it raises, :class:`Redo` ends the batch.
        """
        if not self.careful:
            try:
                yield
            except Exception as exc:
                raise Redo(f"{type(exc).__name__}: {exc}") from exc
            return
        try:
            with self.session.begin_nested():
                yield
        except BaseException:
            forget(self.session, "orders", "opened", REPLIES, FAILURES)
            raise


def memo_of(session: Session) -> dict[Any, Any]:
    """The per-transaction cache of ``session`` (see the module docstring)."""
    memo: dict[Any, Any] = session.info.setdefault(MEMO, {})
    return memo


def forget(session: Session, *kinds: str) -> None:
    """Drop the cached entries of these kinds (something they stand for has changed)."""
    memo = session.info.get(MEMO)
    if memo:
        for key in [k for k in memo if isinstance(k, tuple) and k and k[0] in kinds]:
            del memo[key]


def defer(session: Session, statement: Executable, rows: list[dict[str, Any]]) -> None:
    """Execute ``statement`` (Core, on the session's connection) for each of ``rows``: at once, or
    in an optimistic batch with the batch's other rows of it at the batch's end (module docstring).

    Rows of one statement are written in the order given."""
    if not rows:
        return
    deferred: dict[int, tuple[Executable, list[dict[str, Any]]]] | None = session.info.get(DEFERRED)
    if deferred is None:
        execute_many(session.connection(), statement, rows)
        return
    deferred.setdefault(id(statement), (statement, []))[1].extend(rows)


def write_deferred(session: Session) -> None:
    """Execute what :func:`defer` keeps for the batch of ``session`` (nothing outside one)."""
    deferred: dict[int, tuple[Executable, list[dict[str, Any]]]] | None = session.info.get(DEFERRED)
    if not deferred:
        return
    connection = session.connection()
    for statement, rows in deferred.values():
        execute_many(connection, statement, rows)
    deferred.clear()


@contextmanager
def open_batch(sessions: sessionmaker[Session], careful: bool = True) -> Iterator[Batch]:
    """A :class:`Batch`: commits when the block ends normally, rolls everything back if it raises.

    On SQLite the write lock is taken at once (``BEGIN IMMEDIATE``, waiting the busy timeout
    when another process holds it), so a batch never fails half-way for a lock, and its
    savepoints are always inside a real transaction.  ``careful`` False: an optimistic batch
    (no savepoint per unit, one flush for all; :class:`Redo` if a unit or that flush fails).
    """
    with unit_of_work(sessions) as session:
        session.info.pop(MEMO, None)
        session.info.pop(DEFERRED, None)
        if session.get_bind().dialect.name == "sqlite":
            session.execute(text("BEGIN IMMEDIATE"))
        if not careful:
            session.info[DEFERRED] = {}
        try:
            yield Batch(session, careful)
            if not careful:
                try:
                    write_deferred(session)
                    session.flush()
                except Exception as exc:  # which message's writes failed is found by the careful run
                    raise Redo(f"{type(exc).__name__}: {exc}") from exc
        finally:
            session.info.pop(MEMO, None)
            session.info.pop(DEFERRED, None)


@contextmanager
def session_for(sessions: sessionmaker[Session], batch: Batch | None) -> Iterator[Session]:
    """The batch's session when there is one (committed with the batch), else a unit of work of its own."""
    if batch is not None:
        yield batch.session
    else:
        with unit_of_work(sessions) as session:
            yield session
