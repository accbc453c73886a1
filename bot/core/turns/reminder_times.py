"""Reminders before a deadline: when each is due, and which are too late to send.

A reminder is named by its *offset*, how long before the deadline it goes out
(default 24h and 1h).  Its moment is ``deadline - offset``, a pure function of
the deadline: moving the deadline moves the reminders, with nothing to
reschedule.

Reminders that are no longer useful are not sent late.  At a given ``now``
:func:`check_reminders` sorts the reminders not yet sent into:

- *pending*: their moment is still to come;
- *due*: at most one, the reminder whose moment has passed most recently,
  if it passed no more than ``lateness`` ago (a worker that polls, or is
  busy for a moment, still sends it) and the deadline has not passed;
- *stale*: every other reminder whose moment has passed: one that was
  overtaken by a later reminder (a bot that was down across both the 24h
  and the 1h moments sends only the 1h one, if that is recent), one more
  than ``lateness`` late (the bot was down; or the deadline was moved so
  close that its moment was already past), and all of them once the
  deadline itself has passed (and, given the turn's opening, those whose
  moment came before it).

Stale stays stale as time goes on, so the caller may record stale reminders
as done in the same transaction as the due one; that, and recording a due
reminder as sent in the transaction that writes its outbox rows, is what
makes each reminder go out at most once per turn, even across restarts.

``already_sent`` holds offsets, so each offset is sent at most once per
turn even when the deadline moves; a caller that wants an extended deadline
to re-arm its reminders clears the set when it extends.

A reader with quiet hours gets a reminder whose moment falls inside them
before they begin instead: :func:`early_reminder` says which reminder is due
for them early at a given moment (:data:`QUIET_LEAD` before their quiet hours
begin; :func:`bot.core.messaging.quiet_hours.quiet_began` says when that is).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.core.basics.durations import format_duration_list, parse_duration_list

__all__ = [
    "DEFAULT_LATENESS",
    "DEFAULT_REMINDERS",
    "OPENING_WINDOW",
    "QUIET_LEAD",
    "Reminder",
    "ReminderCheck",
    "check_reminders",
    "early_reminder",
    "format_reminders",
    "parse_reminders",
    "reminder_moments",
]

DEFAULT_REMINDERS: tuple[timedelta, ...] = (timedelta(hours=24), timedelta(hours=1))
"""The rule: "Reminders at times before the deadline that the GM sets (default 24 h and 1 h)"."""

OPENING_WINDOW = timedelta(minutes=10)
"""A reminder due this soon after its turn opened (or at the opening) is not sent: the report or the
"has started" mail that opened the turn has just told the seats the deadline."""

DEFAULT_LATENESS = timedelta(minutes=10)
"""How late a reminder may still go out: well above the deadline worker's poll interval."""


QUIET_LEAD = timedelta(minutes=15)
"""A reminder whose moment is inside its reader's quiet hours is due this long before they begin: more than
:data:`DEFAULT_LATENESS`, so a pass that sends it late still does before the hours begin."""


@dataclass(frozen=True, order=True)
class Reminder:
    """One reminder of a turn: ``at`` (UTC) is ``offset`` before the deadline; sorted by ``at``."""

    at: datetime
    offset: timedelta


@dataclass(frozen=True)
class ReminderCheck:
    """What :func:`check_reminders` found at one moment; each tuple is sorted by moment."""

    due: Reminder | None
    stale: tuple[Reminder, ...]
    pending: tuple[Reminder, ...]

    @property
    def next_at(self) -> datetime | None:
        """When the next pending reminder falls due (for a worker deciding how long to sleep)."""
        return self.pending[0].at if self.pending else None


def parse_reminders(text: str) -> tuple[timedelta, ...]:
    """Read a GM's reminder offsets (``24h,1h``; ``none`` for no reminders), longest first.

    Seconds are refused (a reminder is not that precise) and so is 0; a
    mistake raises :class:`bot.core.basics.durations.TimeInputError`.
    """
    return parse_duration_list(text, allow_seconds=False)


def format_reminders(offsets: Iterable[timedelta]) -> str:
    """The text :func:`parse_reminders` reads back: ``1d,1h``, or ``none``."""
    return format_duration_list(offsets)


def reminder_moments(deadline: datetime, offsets: Iterable[timedelta]) -> tuple[Reminder, ...]:
    """Every reminder of ``deadline``, earliest first (repeated offsets once).

    ``deadline`` must be aware and each offset positive; otherwise it is a
    bug in the caller (``ValueError``).
    """
    if deadline.tzinfo is None:
        raise ValueError("reminders need an aware deadline")
    unique = set(offsets)
    if any(offset <= timedelta(0) for offset in unique):
        raise ValueError("a reminder offset must be positive")
    deadline = deadline.astimezone(UTC)
    return tuple(sorted(Reminder(deadline - offset, offset) for offset in unique))


def check_reminders(
    deadline: datetime,
    offsets: Iterable[timedelta],
    already_sent: Set[timedelta],
    now: datetime,
    *,
    opened_at: datetime | None = None,
    lateness: timedelta = DEFAULT_LATENESS,
) -> ReminderCheck:
    """Which reminder of ``deadline`` to send at ``now``, which are stale, which are to come.

    Offsets in ``already_sent`` are left out of all three.  The rule is the
    module docstring's: only the most recent passed reminder can be due,
    and only within ``lateness`` of its moment and before the deadline.
    Given ``opened_at`` (when the turn opened), a reminder whose moment is
    not more than :data:`OPENING_WINDOW` after it is stale too: a 24h
    reminder in a 24h (or 23h) turn would only repeat the report that
    opened the turn, a moment later.
    """
    if now.tzinfo is None or (opened_at is not None and opened_at.tzinfo is None):
        raise ValueError("check_reminders needs aware times")
    if lateness < timedelta(0):
        raise ValueError("lateness cannot be negative")
    unsent = [r for r in reminder_moments(deadline, offsets) if r.offset not in already_sent]
    passed = [r for r in unsent if r.at <= now]
    pending = tuple(r for r in unsent if r.at > now)
    due: Reminder | None = None
    latest = passed[-1] if passed else None
    if (
        latest is not None
        and now < deadline
        and now - latest.at <= lateness
        and (opened_at is None or latest.at > opened_at + OPENING_WINDOW)
    ):
        due = passed.pop()
    return ReminderCheck(due=due, stale=tuple(passed), pending=pending)


def early_reminder(
    deadline: datetime,
    offsets: Iterable[timedelta],
    already_sent: Set[timedelta],
    now: datetime,
    quiet_began: Callable[[datetime], datetime | None],
    *,
    opened_at: datetime | None = None,
    lateness: timedelta = DEFAULT_LATENESS,
) -> Reminder | None:
    """The reminder to send one reader at ``now`` ahead of its moment, because that moment is inside their
    quiet hours; None when there is none.

    ``quiet_began(moment)`` is when the reader's quiet hours around ``moment`` began (None when ``moment``
    is not quiet).  A reminder that is not in ``already_sent`` and whose moment is quiet is due for them
    :data:`QUIET_LEAD` before those hours began, within ``lateness`` and before they begin, before the
    deadline, and not at the turn's opening (``opened_at`` plus :data:`OPENING_WINDOW`).  Of reminders
    moved to the same moment the last (smallest offset) is the one: the others would only repeat it.
    The returned :class:`Reminder` carries the moment it is sent early at.
    """
    if now.tzinfo is None or (opened_at is not None and opened_at.tzinfo is None):
        raise ValueError("early_reminder needs aware times")
    found: Reminder | None = None
    for reminder in reminder_moments(deadline, offsets):
        if reminder.offset in already_sent:
            continue
        begins = quiet_began(reminder.at)
        if begins is None:
            continue
        at = begins - QUIET_LEAD
        if not (at <= now < begins and now - at <= lateness and now < deadline):
            continue
        if opened_at is not None and at <= opened_at + OPENING_WINDOW:
            continue
        if found is None or (at, -reminder.offset) >= (found.at, -found.offset):
            found = Reminder(at, reminder.offset)
    return found
