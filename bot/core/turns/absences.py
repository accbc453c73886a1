"""Absences: ``ABSENT <game> <from> <to>`` and the deadlines they move.

An absence is a run of whole days, both ends included, in the game's zone:
``ABSENT gs1 2026-12-05 2026-12-07`` covers from 00:00 on the 5th to 00:00 on
the 8th, local time.

*Moving a deadline.*  A deadline that falls inside an absence moves to the
end of it, keeping its local clock time: to the same local time on the day
after the absence's last day (a deadline on the 6th at 18:00 moves to the 8th
at 18:00).  Keeping the clock time keeps a schedule's local time (and so is
unaffected by a clock change); the player, back at 00:00, has that day up to
the usual hour.  A moved deadline that falls into another absence moves
again, until it is in none (:func:`postpone_deadline`).

*The limit.*  Each player may be absent for at most ``limit_days`` days in
total per game (default 14), counting every day they declared, past ones
included, once even if two absences overlap.  ``limit_days=0`` turns
absences off for the game.  An absence that would go past the limit is
refused when declared, as a whole, so a player knows at once where they
stand; an accepted one always moves the deadlines it covers.

Refusals are results (:class:`AbsenceRefused` with a one-line reason), not
exceptions; only a malformed date raises
:class:`bot.core.basics.durations.TimeInputError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from adjudicator.words import say
from bot.core.basics.durations import TimeInputError, local_to_utc, parse_date

__all__ = [
    "DEFAULT_ABSENCE_LIMIT_DAYS",
    "MAX_DAYS_AHEAD",
    "Absence",
    "AbsenceAccepted",
    "AbsenceRefused",
    "absent_days",
    "declare_absence",
    "parse_absence",
    "postpone_deadline",
]

DEFAULT_ABSENCE_LIMIT_DAYS = 14
"""The rule: "within a limit per player per game that the GM sets (default 14 days, 0 turns it off)"."""

MAX_DAYS_AHEAD = 366
"""How far ahead an absence may start: further is a typo in the year."""


@dataclass(frozen=True, order=True)
class Absence:
    """The days ``first_day`` to ``last_day``, both included, in the game's zone."""

    first_day: date
    last_day: date

    def __post_init__(self) -> None:
        if self.last_day < self.first_day:
            raise TimeInputError(
                say("an absence ends on or after its first day; {last} is before {first}", last=str(self.last_day),
                    first=str(self.first_day))
            )  # fmt: skip

    @property
    def days(self) -> int:
        """How many days it covers (1 for an absence of one day)."""
        return (self.last_day - self.first_day).days + 1

    def start(self, zone: ZoneInfo) -> datetime:
        """The UTC moment it begins: the start of ``first_day`` in ``zone``."""
        return local_to_utc(datetime.combine(self.first_day, time(0)), zone)

    def end(self, zone: ZoneInfo) -> datetime:
        """The UTC moment it ends: the start of the day after ``last_day`` in ``zone``."""
        return local_to_utc(datetime.combine(self.last_day + timedelta(days=1), time(0)), zone)

    def covers(self, moment: datetime, zone: ZoneInfo) -> bool:
        """Whether ``moment`` (aware) is inside it: from its start, up to but not including its end."""
        return self.start(zone) <= moment < self.end(zone)

    def __str__(self) -> str:
        return f"{self.first_day.isoformat()} to {self.last_day.isoformat()}"


@dataclass(frozen=True)
class AbsenceAccepted:
    """The absence stands; ``deadline`` is the current deadline after it (moved or not)."""

    absence: Absence
    days_left: int
    deadline: datetime | None
    moved: bool


@dataclass(frozen=True)
class AbsenceRefused:
    """The absence is refused; ``reason`` is one line for the player."""

    reason: str


def parse_absence(first: str, last: str) -> Absence:
    """Read the two dates of ``ABSENT <game> <from> <to>`` (ISO dates, like 2026-12-05)."""
    return Absence(parse_date(first), parse_date(last))


def absent_days(absences: Iterable[Absence]) -> int:
    """How many distinct days the absences cover (overlapping days count once)."""
    total = 0
    reached: date | None = None
    for absence in sorted(absences):
        first = absence.first_day if reached is None else max(absence.first_day, reached + timedelta(days=1))
        if first <= absence.last_day:
            total += (absence.last_day - first).days + 1
        reached = absence.last_day if reached is None else max(reached, absence.last_day)
    return total


def postpone_deadline(deadline: datetime, absences: Iterable[Absence], zone: ZoneInfo) -> datetime:
    """``deadline`` moved past every absence it falls inside (UTC), or unchanged.

    The caller passes the absences that count: those of the seats that owe
    orders.  Each move keeps the deadline's local clock time and goes to the
    day after the absence, which is at or after that absence's end, so the
    loop ends after at most one move per absence.
    """
    if deadline.tzinfo is None:
        raise ValueError("postpone_deadline needs an aware deadline")
    moment = deadline.astimezone(UTC)
    remaining = sorted(absences)
    moved = True
    while moved:
        moved = False
        for absence in remaining:
            if absence.covers(moment, zone):
                clock = moment.astimezone(zone).time()
                moment = local_to_utc(datetime.combine(absence.last_day + timedelta(days=1), clock), zone)
                remaining.remove(absence)
                moved = True
                break
    return moment


def declare_absence(
    absence: Absence,
    earlier: Iterable[Absence],
    *,
    today: date,
    zone: ZoneInfo,
    deadline: datetime | None = None,
    limit_days: int = DEFAULT_ABSENCE_LIMIT_DAYS,
) -> AbsenceAccepted | AbsenceRefused:
    """Accept or refuse a player's new ``absence``, given their ``earlier`` ones in this game.

    ``today`` is the current date in the game's zone.  Refused: when the
    game turns absences off (``limit_days == 0``), when the absence starts
    before today or more than :data:`MAX_DAYS_AHEAD` days ahead, and when
    this player's days of absence, this one included, would pass
    ``limit_days``.  Accepted, it gives the days left and ``deadline``
    postponed by this player's absences (see :func:`postpone_deadline`).
    """
    if limit_days < 0:
        raise ValueError("an absence limit cannot be negative")
    if limit_days == 0:
        return AbsenceRefused(say("absences are turned off in this game"))
    if absence.first_day < today:
        return AbsenceRefused(
            say("an absence cannot start before today ({today} in the game's zone)", today=today.isoformat())
        )
    if (absence.first_day - today).days > MAX_DAYS_AHEAD:
        return AbsenceRefused(say("an absence can start at most {most} days ahead", most=MAX_DAYS_AHEAD))
    previous = list(earlier)
    used = absent_days(previous)
    total = absent_days([*previous, absence])
    if total > limit_days:
        left = max(limit_days - used, 0)
        return AbsenceRefused(
            say(
                "that is {more} more day(s) of absence; you have {left} of this game's {limit} left",
                more=total - used,
                left=left,
                limit=limit_days,
            )
        )
    moved_to = None if deadline is None else postpone_deadline(deadline, [*previous, absence], zone)
    return AbsenceAccepted(
        absence=absence,
        days_left=limit_days - total,
        deadline=moved_to,
        moved=deadline is not None and moved_to != deadline,
    )
