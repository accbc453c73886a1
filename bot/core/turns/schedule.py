"""Deadline schedules: when the next deadline falls once a turn opens.

Three kinds, each a frozen dataclass whose ``str()`` is the text
:func:`parse_schedule` reads back to an equal value (so a game can store its
schedule as text):

``48h``, ``2d 12h`` -- :class:`FixedLength`
    The deadline is that much *elapsed* time after the turn opened.  It is a
    length, not a clock time: a ``24h`` turn opened at 18:00 BST the day
    before London's clocks go back ends at 17:00 GMT.  A game that wants its
    deadlines at a local clock time uses one of the two kinds below.

``every day at 20:00`` (or ``daily at 20:00``), ``every 3 days at 18:00`` -- :class:`EveryDays`
    The deadline is at that local time on the N-th day after the day (in
    the game's zone) on which the turn opened: a turn opened on Monday, at
    any hour, with ``every 3 days at 18:00`` ends on Thursday at 18:00.  So
    a turn lasts between N-1 and N+1 days: one opened late in the evening
    before an early deadline time (23:00 with ``every day at 06:00``) is
    short, which is what the minimum is for.

    The first turn of a game is the exception (:func:`first_deadline`): started
    on a day whose time is at least half a period away (``every day at 20:00``
    started at 08:00), it ends that same day.

``mon,thu at 20:00``, ``mon-fri at 18:00``, ``weekdays at 18:00``,
``weekends at 12:00`` -- :class:`OnDays`
    The deadline is at that local time on the next listed day of the week.

For every kind, :func:`next_deadline` also keeps a *minimum* between the
opening and the deadline: if the rule above gives an earlier moment, the
deadline is the first later one the kind allows (one day later at a time
for :class:`EveryDays`, the next listed day for :class:`OnDays`, the
minimum itself for :class:`FixedLength`).  So a report on Monday at 17:50
with ``mon,thu at 20:00`` and a minimum of 24h gives Thursday at 20:00.
Keep the minimum shorter than the schedule's period: a daily game whose
turns open a few seconds after 20:00, with a 24h minimum, would skip a day.

Local times are read in the game's zone by
:func:`bot.core.basics.durations.local_to_utc`, so a change of the clocks never
moves a scheduled local time (18:00 stays 18:00 in London in summer and in
winter), and a local time skipped or repeated by the change follows the
rule documented there (skipped: later by the jump; repeated: the first).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from adjudicator.words import say
from bot.core.basics import linear
from bot.core.basics.durations import TimeInputError, format_duration, local_to_utc, parse_duration

__all__ = [
    "DAY_NAMES",
    "MAX_EVERY_DAYS",
    "EveryDays",
    "FixedLength",
    "OnDays",
    "Schedule",
    "first_deadline",
    "next_deadline",
    "parse_schedule",
    "scheduled_at",
]

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
"""Day names as :meth:`datetime.date.weekday` numbers them (Monday is 0)."""

MAX_EVERY_DAYS = 60
"""The longest period ``every N days`` accepts."""

_FULL_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_GROUPS = {
    "weekdays": frozenset(range(5)),
    "weekends": frozenset({5, 6}),
    "weekend": frozenset({5, 6}),
}
_SCHEDULE_EXAMPLE = say("a schedule like 48h, every 3 days at 18:00, or mon,thu at 20:00")


@dataclass(frozen=True)
class Schedule(ABC):
    """A rule for the next deadline; see the module docstring for the kinds."""

    @abstractmethod
    def _earliest(self, opened_at: datetime, zone: ZoneInfo) -> datetime:
        """The deadline the rule gives for a turn opened at ``opened_at``, before any minimum (UTC)."""

    @abstractmethod
    def _after(self, earliest: datetime, opened_at: datetime, zone: ZoneInfo) -> datetime:
        """The first deadline the rule allows at or after ``earliest`` (UTC)."""

    @abstractmethod
    def __str__(self) -> str:
        """The text :func:`parse_schedule` reads back to this schedule."""


@dataclass(frozen=True)
class FixedLength(Schedule):
    """A deadline ``length`` of elapsed time after the opening (not a clock time); whole minutes."""

    length: timedelta

    def __post_init__(self) -> None:
        if self.length <= timedelta(0) or self.length % timedelta(minutes=1):
            raise TimeInputError(say("a turn length must be more than 0 and whole minutes, like 48h"))

    def _earliest(self, opened_at: datetime, zone: ZoneInfo) -> datetime:
        return (opened_at + self.length).astimezone(UTC)

    def _after(self, earliest: datetime, opened_at: datetime, zone: ZoneInfo) -> datetime:
        return earliest

    def __str__(self) -> str:
        return format_duration(self.length)


@dataclass(frozen=True)
class EveryDays(Schedule):
    """At local time ``at`` on the ``days``-th day after the day the turn opened."""

    days: int
    at: time

    def __post_init__(self) -> None:
        if not 1 <= self.days <= MAX_EVERY_DAYS:
            raise TimeInputError(
                say("every N days needs N from 1 to {most}, not {days}", most=MAX_EVERY_DAYS, days=self.days)
            )
        _check_clock_time(self.at)

    def _earliest(self, opened_at: datetime, zone: ZoneInfo) -> datetime:
        opened_day = opened_at.astimezone(zone).date()
        return scheduled_at(opened_day + timedelta(days=self.days), self.at, zone)

    def _after(self, earliest: datetime, opened_at: datetime, zone: ZoneInfo) -> datetime:
        first_day = opened_at.astimezone(zone).date() + timedelta(days=self.days)
        return _first_slot(max(first_day, _day_before(earliest, zone)), self.at, zone, earliest, lambda _: True)

    def __str__(self) -> str:
        every = "every day" if self.days == 1 else f"every {self.days} days"
        return f"{every} at {self.at:%H:%M}"


@dataclass(frozen=True)
class OnDays(Schedule):
    """At local time ``at`` on the next day whose weekday (Monday 0) is in ``weekdays``."""

    weekdays: frozenset[int]
    at: time

    def __post_init__(self) -> None:
        if not self.weekdays or not self.weekdays <= frozenset(range(7)):
            raise TimeInputError(say("a schedule needs at least one day of the week, like mon,thu"))
        _check_clock_time(self.at)

    def _earliest(self, opened_at: datetime, zone: ZoneInfo) -> datetime:
        return self._after(opened_at + timedelta(microseconds=1), opened_at, zone)

    def _after(self, earliest: datetime, opened_at: datetime, zone: ZoneInfo) -> datetime:
        return _first_slot(_day_before(earliest, zone), self.at, zone, earliest, lambda d: d.weekday() in self.weekdays)

    def __str__(self) -> str:
        days = ",".join(DAY_NAMES[d] for d in sorted(self.weekdays))
        return f"{days} at {self.at:%H:%M}"


def next_deadline(
    schedule: Schedule, opened_at: datetime, zone: ZoneInfo, minimum: timedelta = timedelta(0)
) -> datetime:
    """The deadline (UTC) of a turn opened at ``opened_at`` under ``schedule`` in ``zone``.

    The result is always strictly after ``opened_at`` and at least
    ``minimum`` after it; for :class:`EveryDays` and :class:`OnDays` it is
    the first scheduled local time that satisfies the schedule and the
    minimum.  ``opened_at`` must be aware; ``minimum`` must not be negative
    (both are the caller's bugs, raised as ``ValueError``).
    """
    if opened_at.tzinfo is None:
        raise ValueError("next_deadline needs an aware opening time")
    if minimum < timedelta(0):
        raise ValueError("a minimum turn length cannot be negative")
    opened_at = opened_at.astimezone(UTC)
    deadline = schedule._earliest(opened_at, zone)
    floor = opened_at + minimum
    if deadline < floor or deadline <= opened_at:
        deadline = schedule._after(max(floor, opened_at + timedelta(microseconds=1)), opened_at, zone)
    return deadline


def first_deadline(
    schedule: Schedule, started_at: datetime, zone: ZoneInfo, minimum: timedelta = timedelta(0)
) -> datetime:
    """The deadline of a game's first turn, opened at ``started_at``.

    As :func:`next_deadline`, except for :class:`EveryDays`: a game started in the morning of a day
    whose scheduled time is still to come (``every day at 20:00``, started at 08:00) takes that day's
    time, when it is at least half a period (and the minimum) away; later starts take the
    rule's day.  So the first turn lasts between half a period and a period and a half.
    """
    if isinstance(schedule, EveryDays):
        today = scheduled_at(started_at.astimezone(zone).date(), schedule.at, zone)
        if today - started_at >= max(minimum, timedelta(days=schedule.days) / 2):
            return today.astimezone(UTC)
    return next_deadline(schedule, started_at, zone, minimum)


def scheduled_at(day: date, at: time, zone: ZoneInfo) -> datetime:
    """The UTC moment of local time ``at`` on ``day`` in ``zone`` (see ``local_to_utc``)."""
    return local_to_utc(datetime.combine(day, at), zone)


def _check_clock_time(at: time) -> None:
    if at.tzinfo is not None or at.second or at.microsecond:
        raise TimeInputError(say("a scheduled time is a local hour and minute, like 18:00"))


def _day_before(moment: datetime, zone: ZoneInfo) -> date:
    """The local day before ``moment``'s: a clock change near midnight can push a slot past its own day."""
    return moment.astimezone(zone).date() - timedelta(days=1)


def _first_slot(start: date, at: time, zone: ZoneInfo, earliest: datetime, allowed: Callable[[date], bool]) -> datetime:
    """The first ``at`` on an allowed day from ``start`` on that is not before ``earliest``.

    Slots grow with the day (a local time one day later is never earlier in
    UTC), so scanning day by day finds the first; it ends within eight
    allowed-day checks of ``earliest``'s day.
    """
    day = start
    while True:
        if allowed(day):
            slot = scheduled_at(day, at, zone)
            if slot >= earliest:
                return slot
        day += timedelta(days=1)


def parse_schedule(text: str) -> Schedule:
    """Read a schedule: ``48h``, ``every day at 20:00``, ``every 3 days at 18:00``, ``mon,thu at 20:00``.

    Case and extra spaces do not matter.  Day lists take three-letter or
    full names, ranges (``mon-fri``, which may wrap: ``fri-mon``), and the
    groups ``weekdays`` (Monday to Friday) and ``weekends``.  Times are
    24-hour ``HH:MM``.  A mistake raises :class:`TimeInputError`.
    """
    cleaned = " ".join(text.strip().lower().split())
    if not cleaned:
        raise TimeInputError(say("expected {example}, got nothing", example=_SCHEDULE_EXAMPLE))
    if " at " not in f" {cleaned} ":
        if cleaned[0].isdigit():
            return FixedLength(parse_duration(cleaned, allow_seconds=False))
        raise TimeInputError(
            say("expected {example}, got {given}", example=_SCHEDULE_EXAMPLE, given=repr(text.strip()[:40]))
        )
    when, _, clock = f" {cleaned} ".partition(" at ")
    when, clock = when.strip(), clock.strip()
    at = _parse_clock_time(clock)
    if when == "daily":
        return EveryDays(1, at)
    every = _EVERY_DAYS.fullmatch(when)
    if every is not None:
        return EveryDays(1 if every[1] is None else int(every[1]), at)
    if when.startswith("every"):
        raise TimeInputError(say("expected every day or every N days before 'at', got {given}", given=repr(when)))
    return OnDays(_parse_days(when), at)


_EVERY_DAYS = linear.compile(r"every(?: ([0-9]+))? days?", re.ASCII)
_CLOCK_TIME = linear.compile(r"([0-9]{1,2}):([0-9]{2})", re.ASCII)


def _parse_clock_time(text: str) -> time:
    match = _CLOCK_TIME.fullmatch(text)
    if match is None:
        raise TimeInputError(say("expected a 24-hour time like 18:00 after 'at', got {given}", given=repr(text[:20])))
    hour, minute = int(match[1]), int(match[2])
    if hour > 23 or minute > 59:
        raise TimeInputError(say("{given} is not a time of day; expected 00:00 to 23:59", given=repr(text)))
    return time(hour, minute)


def _day_number(name: str) -> int:
    if name in DAY_NAMES:
        return DAY_NAMES.index(name)
    if name in _FULL_DAY_NAMES:
        return _FULL_DAY_NAMES.index(name)
    raise TimeInputError(
        say("unknown day {given}; expected mon, tue, wed, thu, fri, sat or sun", given=repr(name[:20]))
    )


def _parse_days(text: str) -> frozenset[int]:
    if not text:
        raise TimeInputError(say("days are missing before 'at'; expected {example}", example=_SCHEDULE_EXAMPLE))
    days: set[int] = set()
    for piece in text.replace(" ", ",").split(","):
        if not piece:
            continue
        if piece in _DAY_GROUPS:
            days |= _DAY_GROUPS[piece]
        elif "-" in piece:
            first, _, last = piece.partition("-")
            start, end = _day_number(first), _day_number(last)
            days |= {(start + i) % 7 for i in range((end - start) % 7 + 1)}
        else:
            days.add(_day_number(piece))
    return frozenset(days)
