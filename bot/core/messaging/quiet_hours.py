"""Quiet hours: when a player's mail that can wait is held, and until when (the one rule, used by delivery).

A player's quiet hours (``QUIET 22:00-07:00``, ``players.quiet_hours``) are a range of wall-clock
times in their own zone (``players.time_zone``; UTC without one), from its first minute up to, not
including, its last; a range whose end is before its start crosses midnight.  A moment is quiet when
the player's clock shows a time inside the range then, and it stays held until the first moment the
clock shows a time outside it: the end of the range, or, on a day the clocks jump over that time, the
jump itself.  So a day the clocks go back holds the repeated hour as many times as it is shown, and a
range that never shows that day (its times skipped) holds nothing.

What can wait and what cannot is :func:`can_wait`'s: a reply to the player's own message never
waits (it is the sender's, not a person's copy), nor a seat offer with its deadline, nor the last
reminder before their own deadline (its data says ``last_reminder``), nor a late notice, nor a link
code; a report, press, a notice of others' actions and an earlier reminder wait.  A reminder whose
moment is quiet is sent before the quiet hours begin instead (:func:`quiet_began` says when they did;
:mod:`bot.core.turns.reminder_pass`), so only one the bot could not send then is ever held.
Delivery writes a held row with its next attempt at the end of the quiet hours
(:mod:`bot.core.messaging.delivery`), so a restart, or another process's sender, keeps the hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from adjudicator.words import say
from bot.core.basics import linear
from bot.core.basics.durations import TimeInputError, jump_over
from bot.core.model.outcomes import NOTICE, REPORT

_RANGE = linear.compile(r"^([01]?[0-9]|2[0-3])[:.h]?([0-5][0-9])\s*-\s*([01]?[0-9]|2[0-3])[:.h]?([0-5][0-9])$")
OFF = "OFF"
FORM = say("QUIET 22:00-07:00 (from-to, on a 24-hour clock in your zone) or QUIET OFF")

NEVER_HELD = frozenset({"seat_offer", "late_notice", "link_code", "password_locked"})
"""Templates of notices that never wait: a seat offer with its deadline, the late notice at the player's own
deadline, a code or a lock-out they are waiting for."""
REMINDER = "reminder"
LAST_REMINDER = "last_reminder"
"""Set (true) in the data of the last reminder before a deadline (its smallest offset): it never waits."""


@dataclass(frozen=True)
class QuietHours:
    """A range of wall-clock times, ``start`` up to ``end`` (not included); ``end < start`` crosses midnight."""

    start: time
    end: time

    def __str__(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M}"

    def covers(self, clock: time) -> bool:
        """Whether a clock showing ``clock`` is inside the range."""
        if self.start < self.end:
            return self.start <= clock < self.end
        return clock >= self.start or clock < self.end


def parse_quiet(text: str) -> QuietHours | None:
    """``22:00-07:00`` (also ``2200-0700``, ``22.00 - 7.00``) as quiet hours, ``OFF`` as None.

    Raises :class:`~bot.core.basics.durations.TimeInputError` saying the form for anything else, and
    for a range that is empty (its start is its end)."""
    cleaned = text.strip()
    if cleaned.upper() == OFF:
        return None
    found = _RANGE.match(cleaned)
    if found is None:
        raise TimeInputError(say("write quiet hours as {form}", form=FORM))
    start = time(int(found.group(1)), int(found.group(2)))
    end = time(int(found.group(3)), int(found.group(4)))
    if start == end:
        raise TimeInputError(
            say("quiet hours from {start} to {end} are empty; write them as {form}", start=f"{start:%H:%M}",
                end=f"{end:%H:%M}", form=FORM)
        )  # fmt: skip
    return QuietHours(start, end)


def held_until(moment: datetime, quiet: QuietHours, zone: ZoneInfo) -> datetime | None:
    """The moment (UTC) mail that can wait, due at ``moment`` (aware), is sent instead; None when
    ``moment`` is not quiet (see the module docstring)."""
    local = moment.astimezone(zone)
    clock = local.replace(tzinfo=None).time()
    if not quiet.covers(clock):
        return None
    day = local.date() if clock < quiet.end else local.date() + timedelta(days=1)
    release = _first_shown(datetime.combine(day, quiet.end), zone, moment)
    if quiet.covers(release.astimezone(zone).replace(tzinfo=None).time()):
        # the clocks jumped over every time outside the range (a range of all but a minute, the day they
        # skip its end): still quiet there, so held until the next day's end is shown
        return held_until(release, quiet, zone)
    return release


def _first_shown(wall: datetime, zone: ZoneInfo, after: datetime) -> datetime:
    """The first moment later than ``after`` at which clocks in ``zone`` show ``wall`` (naive) or a later
    time: the second of a time shown twice when the first has passed, the jump over a time skipped."""
    jump = jump_over(wall, zone)
    if jump is None:  # the time is shown (once or twice)
        first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
        return first if first > after else wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    return max(jump, after + timedelta(microseconds=1))


def can_wait(kind: str, template: str, data: Mapping[str, object] | None = None) -> bool:
    """Whether a person's copy of a message of outbox ``kind``, ``template`` and ``data`` may be held by quiet
    hours: a report, a notice but those of :data:`NEVER_HELD` and the last reminder (``data``'s
    :data:`LAST_REMINDER`)."""
    if template == REMINDER and data is not None and data.get(LAST_REMINDER):
        return False
    return kind == REPORT or (kind == NOTICE and template not in NEVER_HELD)


def began(moment: datetime, quiet: QuietHours, zone: ZoneInfo) -> datetime | None:
    """When the quiet hours ``moment`` (aware) is in began (UTC): the last moment not later than ``moment``
    at which the clock showed their start; None when ``moment`` is not quiet.  A start shown twice (the
    clocks go back) is the later showing that is not after ``moment``; a start the clocks skipped reads
    with the offset before the jump (a moment a little after it)."""
    local = moment.astimezone(zone)
    clock = local.replace(tzinfo=None).time()
    if not quiet.covers(clock):
        return None
    day = local.date() if clock >= quiet.start else local.date() - timedelta(days=1)
    wall = datetime.combine(day, quiet.start)
    shown = [
        at for fold in (0, 1)
        if (at := wall.replace(tzinfo=zone, fold=fold).astimezone(UTC)).astimezone(zone).replace(tzinfo=None) == wall
    ]  # fmt: skip
    start = max((at for at in shown if at <= moment), default=wall.replace(tzinfo=zone, fold=0).astimezone(UTC))
    return min(start, moment)


def settings_of(quiet_hours: str | None, time_zone: str | None) -> tuple[QuietHours, ZoneInfo] | None:
    """A player's stored quiet hours and zone (``players.quiet_hours``, ``players.time_zone``; UTC without one)
    read; None without quiet hours, or for settings that no longer read (nothing is held for them)."""
    if not quiet_hours:
        return None
    try:
        quiet = parse_quiet(quiet_hours)
        zone = ZoneInfo(time_zone or "UTC")
    except (TimeInputError, ValueError, KeyError):
        return None
    return None if quiet is None else (quiet, zone)


def quiet_began(moment: datetime, quiet_hours: str | None, time_zone: str | None) -> datetime | None:
    """:func:`began` for a player's stored settings; None when they have none or ``moment`` is not quiet."""
    read = settings_of(quiet_hours, time_zone)
    return None if read is None else began(moment, *read)


def release_at(moment: datetime, quiet_hours: str | None, time_zone: str | None) -> datetime | None:
    """:func:`held_until` for a player's stored settings (``players.quiet_hours``, ``players.time_zone``);
    None without quiet hours, or for settings that no longer read (nothing is held for them)."""
    read = settings_of(quiet_hours, time_zone)
    return None if read is None else held_until(moment, *read)
