"""The brake on guessing passwords: a sender address that gives wrong ones is locked out for a while.

A seat password or a game master's password is checked only for a sender
address that is not locked out of the game.  Each wrong one is counted in
``password_failures`` (one row per game, channel and address); the
:data:`LOCK_AFTER`-th wrong one in a row locks the address out of the game:
until the lock ends, every password it gives for the game, the right one
included, is refused without being checked, and the reply says when to try
again.  The first lock lasts :data:`FIRST_LOCK`; each next one twice as long
as the one before, up to :data:`LONGEST_LOCK`.  Wrong guesses and lock-outs
are forgotten after a quiet day (:data:`FORGET_AFTER`), so a player's
occasional typo never adds up to a lock.

The lock is keyed by the sender's address, so nobody is locked out by
someone else's guessing from another address.  Someone else may put the
player's address in a forged From line; the seat's player is still served
when the channel vouches for the address (:func:`exempt`): such a sender is
not a guesser, and is neither counted nor locked.

Several processes may count for the same address at once: the row is made
with an insert that does nothing when it exists, then read ``FOR UPDATE``,
so every wrong guess is counted once and each lock-out is begun (and its
game masters told) by exactly one of them.

An intake batch loads its senders' rows at once (:func:`remember_failures`, into the batch's
memo); a sender known there to have no row for the game is neither locked nor has wrong
guesses to forget, so :func:`lock_in_force` and :func:`count_right` ask the database nothing
for it.  :func:`count_wrong` forgets what the memo knew of the sender (its row is made or
changed), and a unit rolled back forgets the memo's rows (:meth:`bot.core.basics.batch.Batch.unit`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from bot.core.basics.batch import FAILURES, MEMO, memo_of
from bot.core.model import commands as c
from bot.store.models import PasswordFailures

LOCK_AFTER = 5
"""Wrong passwords in a row from one address for one game before it is locked out."""
FIRST_LOCK = timedelta(minutes=1)
LONGEST_LOCK = timedelta(hours=24)
FORGET_AFTER = timedelta(hours=24)
"""A day with no wrong password (and no lock in force) starts the count and the doubling afresh."""
_MAX_DOUBLINGS = 20


@dataclass(frozen=True)
class Locked:
    """The address is locked out of the game until ``until``; ``lockouts``: the how-many-th lock it is."""

    until: datetime
    lockouts: int


def exempt(trust: c.Trust, holds_it: bool) -> bool:
    """Whether a sender is never counted or locked: the holder of the seat (or GM role) on a channel that vouches.

    ``holds_it``: the sender holds a seat of the game (for a seat password) or
    is one of its game masters (for the GM password).
    """
    return holds_it and trust in (c.Trust.VOUCHED, c.Trust.VERIFIED)


def lock_length(lockouts: int) -> timedelta:
    """How long the ``lockouts``-th lock-out lasts: :data:`FIRST_LOCK` doubled each time, at most :data:`LONGEST_LOCK`."""
    doublings = min(max(lockouts, 1) - 1, _MAX_DOUBLINGS)
    length: timedelta = FIRST_LOCK * (1 << doublings)
    return min(length, LONGEST_LOCK)


def remember_failures(session: Session, senders: Iterable[c.Sender]) -> None:
    """Load the rows of ``senders`` (every game) into the batch's memo, a query per channel and 500 addresses."""
    by_channel: dict[str, set[str]] = {}
    for sender in senders:
        by_channel.setdefault(sender.channel, set()).add(_address(sender))
    memo = memo_of(session)
    for channel, addresses in by_channel.items():
        ordered = sorted(addresses)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            found: dict[str, dict[int, PasswordFailures]] = {address: {} for address in chunk}
            query = select(PasswordFailures).where(
                PasswordFailures.channel == channel, PasswordFailures.address.in_(chunk)
            )
            for row in session.scalars(query):
                found[row.address][row.game_id] = row
            for address, rows in found.items():
                memo[(FAILURES, channel, address)] = rows


def _known_clear(session: Session, game_id: int, sender: c.Sender) -> bool:
    """Whether the batch's memo knows that ``sender`` has no row for the game (:func:`remember_failures`)."""
    memo = session.info.get(MEMO)
    rows = memo.get((FAILURES, sender.channel, _address(sender))) if memo else None
    return rows is not None and game_id not in rows


def lock_in_force(session: Session, game_id: int, sender: c.Sender, now: datetime) -> Locked | None:
    """The lock on ``sender`` for the game at ``now``, or None: its passwords may be checked."""
    if _known_clear(session, game_id, sender):
        return None
    row = session.scalar(
        select(PasswordFailures).where(
            PasswordFailures.game_id == game_id,
            PasswordFailures.channel == sender.channel,
            PasswordFailures.address == _address(sender),
        )
    )
    if row is None or row.locked_until is None or row.locked_until <= now:
        return None
    return Locked(row.locked_until, row.lockouts)


def count_wrong(session: Session, game_id: int, sender: c.Sender, now: datetime) -> Locked | None:
    """Count one wrong password from ``sender``; the lock it begins (tell the game masters), or None."""
    memo = session.info.get(MEMO)
    if memo:
        memo.pop((FAILURES, sender.channel, _address(sender)), None)  # its row is made or changed now
    row = _locked_row(session, game_id, sender)
    if row.last_failure_at is not None and row.last_failure_at <= now - FORGET_AFTER:
        row.failures = 0
    if row.locked_until is not None and row.locked_until <= now - FORGET_AFTER:
        row.lockouts = 0
    row.failures += 1
    row.last_failure_at = now
    if row.failures < LOCK_AFTER:
        return None
    row.failures = 0
    row.lockouts += 1
    row.locked_until = now + lock_length(row.lockouts)
    return Locked(row.locked_until, row.lockouts)


def count_right(session: Session, game_id: int, sender: c.Sender) -> None:
    """A right password from ``sender``: the wrong ones before it no longer count toward a lock."""
    if _known_clear(session, game_id, sender):
        return  # no row: no wrong one to forget
    row = session.scalar(
        select(PasswordFailures)
        .where(
            PasswordFailures.game_id == game_id,
            PasswordFailures.channel == sender.channel,
            PasswordFailures.address == _address(sender),
        )
        .with_for_update()
    )
    if row is not None and row.failures:
        row.failures = 0


def _locked_row(session: Session, game_id: int, sender: c.Sender) -> PasswordFailures:
    """The sender's row for the game, made if missing, locked for this transaction (``FOR UPDATE``)."""
    values = {"game_id": game_id, "channel": sender.channel, "address": _address(sender), "failures": 0, "lockouts": 0}
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    session.execute(insert(PasswordFailures).values(**values).on_conflict_do_nothing())
    return session.scalars(
        select(PasswordFailures)
        .where(
            PasswordFailures.game_id == game_id,
            PasswordFailures.channel == sender.channel,
            PasswordFailures.address == values["address"],
        )
        .with_for_update()
        .execution_options(populate_existing=True)
    ).one()


def _address(sender: c.Sender) -> str:
    return sender.address.strip().lower()[:320]
