"""Durations and moments as people type them, and back.

Pure functions: no clock is read (a relative moment is counted from a ``base``
the caller passes), no I/O; time zones come from the standard ``zoneinfo``.

Durations are whole seconds written as numbers with units, largest unit
first, with or without spaces: ``48h``, ``30m``, ``2d 3h``, ``2d3h``,
``1h30m``, ``90s``, ``1w``, and ``0`` for none.  Units: ``w`` (7 days), ``d``,
``h``, ``m``, ``s``; the long words (``2 days``, ``3 hours``, ``30 min``) are
accepted too.  :func:`format_duration` writes the canonical short form
(``2d 3h``), which parses back to the same value.

Moments are ISO dates with a time (``2026-12-05T18:00``, ``2026-12-05
18:00``, seconds optional), with an offset (``Z``, ``+01:00``, ``+0100``) or
without one, in which case they are read in the game's zone by
:func:`local_to_utc`; or relative (``+2d3h``), counted from a base.  Every
result is an aware datetime in UTC.

Every user mistake raises :class:`TimeInputError` with a one-line reason that
names what was expected, never another exception.
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from adjudicator.words import Said, say
from bot.core.basics import linear
from bot.core.basics.engine_words import reason
from bot.core.basics.translation import mark, pgettext

__all__ = [
    "MAX_DURATION",
    "TimeInputError",
    "format_duration",
    "format_duration_list",
    "format_moment",
    "local_to_utc",
    "parse_date",
    "parse_duration",
    "parse_duration_list",
    "parse_instant",
    "parse_moment",
    "parse_zone",
]

MAX_DURATION = timedelta(days=366)
"""The longest duration :func:`parse_duration` accepts unless told otherwise."""


class TimeInputError(ValueError):
    """A duration, moment, date, zone or schedule typed wrongly.

    ``str(error)`` is one line saying what was wrong and what was expected; it
    is meant to be shown to the person who typed it as it is.  Its argument is said with
    :func:`adjudicator.words.say`, so that the reply says it in the reader's language
    (:func:`bot.core.basics.engine_words.reason`).
    """


_UNIT_SECONDS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}
_UNIT_WORDS = {
    "w": "w",
    "wk": "w",
    "wks": "w",
    "week": "w",
    "weeks": "w",
    "d": "d",
    "day": "d",
    "days": "d",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "m": "m",
    "min": "m",
    "mins": "m",
    "minute": "m",
    "minutes": "m",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
}
_UNIT_ORDER = "wdhms"
_DURATION_EXAMPLE = say("a duration like 48h, 30m or 2d 3h")
_TOKEN = linear.compile(r"\s*([0-9]+)\s*([a-z]+)\s*", re.ASCII)
_ZEROS = linear.compile(r"0+", re.ASCII)
_DIGITS = linear.compile(r"[0-9]+", re.ASCII)
_DECIMAL = linear.compile(r"[0-9][.,][0-9]")
_ISO_DATE = linear.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def _shown(text: str) -> str:
    """The user's text for an error message: quoted, and cut if very long."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def parse_duration(text: str, *, allow_seconds: bool = True, maximum: timedelta = MAX_DURATION) -> timedelta:
    """Read a duration such as ``48h``, ``2d 3h``, ``2d3h``, ``90s`` or ``0``.

    Units must come largest first and each at most once (``1h30m``, not
    ``30m1h``).  ``allow_seconds=False`` refuses the ``s`` unit, for settings
    where seconds make no sense.  Anything longer than ``maximum`` is refused,
    so that no typo turns into a deadline next century (and no huge number
    overflows).
    """
    cleaned = text.strip().lower()
    if not cleaned:
        raise TimeInputError(say("expected {example}, got nothing", example=_DURATION_EXAMPLE))
    if _ZEROS.fullmatch(cleaned):
        return timedelta(0)
    if _DIGITS.fullmatch(cleaned):
        raise TimeInputError(
            say("a unit is missing after {number}; expected {example}", number=cleaned, example=_DURATION_EXAMPLE)
        )
    if _DECIMAL.search(cleaned):
        raise TimeInputError(say("whole numbers only, as in 1h30m; got {given}", given=_shown(text)))
    if cleaned.startswith("-"):
        raise TimeInputError(say("a duration cannot be negative; expected {example}", example=_DURATION_EXAMPLE))
    total = 0
    position = 0
    last_rank = -1
    while position < len(cleaned):
        match = _TOKEN.match(cleaned, position)
        if match is None:
            raise TimeInputError(say("expected {example}, got {given}", example=_DURATION_EXAMPLE, given=_shown(text)))
        number, word = match.groups()
        unit = _UNIT_WORDS.get(word)
        if unit is None:
            raise TimeInputError(
                say(
                    "unknown unit {unit} in {given}; expected w, d, h, m or s, as in 2d 3h",
                    unit=repr(word),
                    given=_shown(text),
                )
            )
        if unit == "s" and not allow_seconds:
            raise TimeInputError(say("seconds are not allowed here; expected {example}", example=_DURATION_EXAMPLE))
        rank = _UNIT_ORDER.index(unit)
        if rank <= last_rank:
            raise TimeInputError(
                say("units must come largest first, each once, as in 2d 3h; got {given}", given=_shown(text))
            )
        last_rank = rank
        if len(number) > 12:
            raise TimeInputError(
                say("{given} is too long; expected at most {most}", given=_shown(text), most=format_duration(maximum))
            )
        total += int(number) * _UNIT_SECONDS[unit]
        position = match.end()
    if total > maximum.total_seconds():
        raise TimeInputError(
            say("{given} is too long; expected at most {most}", given=_shown(text), most=format_duration(maximum))
        )
    return timedelta(seconds=total)


def format_duration(duration: timedelta) -> str:
    """Write a duration the way :func:`parse_duration` reads it: ``2d 3h``, ``45m``, ``0``.

    Days are the largest unit written (``14d``, not ``2w``).  Fractions of a
    second are dropped.  A negative duration is a bug in the caller and raises
    ``ValueError``.
    """
    if duration < timedelta(0):
        raise ValueError(f"a duration to show cannot be negative: {duration!r}")
    seconds = int(duration.total_seconds())
    if seconds == 0:
        return "0"
    parts = []
    for unit in "dhms":
        size = _UNIT_SECONDS[unit]
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts)


def parse_duration_list(
    text: str, *, allow_seconds: bool = True, maximum: timedelta = MAX_DURATION
) -> tuple[timedelta, ...]:
    """Read a comma-separated list of durations (``24h,1h``; ``none`` is the empty list).

    The result is sorted longest first with repeats removed, so that equal
    lists compare equal however they were typed.  A zero item is refused:
    a list like this names times before something (reminders), and zero
    before it is the moment itself.
    """
    cleaned = text.strip().lower()
    if cleaned in ("none", "-"):
        return ()
    if not cleaned:
        raise TimeInputError(say("expected durations separated by commas, like 24h,1h (or none)"))
    items = []
    for piece in cleaned.split(","):
        if not piece.strip():
            raise TimeInputError(say("empty item in {given}; expected durations like 24h,1h", given=_shown(text)))
        item = parse_duration(piece, allow_seconds=allow_seconds, maximum=maximum)
        if not item:
            raise TimeInputError(say("0 is not allowed in {given}; expected durations like 24h,1h", given=_shown(text)))
        items.append(item)
    return tuple(sorted(set(items), reverse=True))


def format_duration_list(durations: Iterable[timedelta]) -> str:
    """Write a list the way :func:`parse_duration_list` reads it: ``1d,1h``, or ``none``."""
    items = sorted(set(durations), reverse=True)
    return ",".join(format_duration(d).replace(" ", "") for d in items) if items else "none"


@functools.cache
def _zone_names() -> dict[str, str]:
    """Every IANA zone name this machine knows, by its lower-case spelling.

    ``localtime`` (whatever the host is set to) and ``Factory`` are left out:
    a game's zone must mean the same on every machine.
    """
    names = zoneinfo.available_timezones() - {"localtime", "Factory"}
    return {name.lower(): name for name in names}


def zone_names() -> dict[str, str]:
    """Every IANA zone name a zone may be given as, by its lower-case spelling (see :func:`parse_zone`)."""
    return dict(_zone_names())


def parse_zone(name: str) -> ZoneInfo:
    """The IANA time zone called ``name`` (``Europe/London``, ``UTC``), in any letter case."""
    canonical = _zone_names().get(name.strip().lower())
    if canonical is None:
        raise TimeInputError(
            say("unknown time zone {given}; expected an IANA name like Europe/London or UTC", given=_shown(name))
        )
    try:
        return ZoneInfo(canonical)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise TimeInputError(say("time zone {zone} cannot be read on this machine", zone=repr(canonical))) from None


def local_to_utc(local: datetime, zone: ZoneInfo) -> datetime:
    """The UTC moment at which clocks in ``zone`` show the naive ``local`` time.

    The rule for local times that do not exist or exist twice is the one of
    PEP 495 with ``fold=0`` (the same as java.time's ``ZonedDateTime.of``):

    - a time skipped when clocks go forward (01:30 in London on 2027-03-28)
      is read with the offset in force before the change, so it lands as
      much later as the clocks jumped (02:30 BST, which is 01:30 UTC);
    - a time shown twice when clocks go back (01:30 in London on
      2026-10-25) is the first of the two (01:30 BST, which is 00:30 UTC):
      the deadline passes when the clocks first show it.
    """
    if local.tzinfo is not None:
        raise ValueError("local_to_utc takes a naive local time")
    return local.replace(tzinfo=zone, fold=0).astimezone(UTC)


def jump_over(wall: datetime, zone: ZoneInfo) -> datetime | None:
    """The moment (UTC, to the second) clocks in ``zone`` jump over the naive ``wall`` time, the day they
    skip it (clocks going forward); None when clocks show it (once or twice).

    ``fold=1`` reads a skipped time with the offset after the jump (a moment before it), ``fold=0`` with
    the one before (a moment after it): the jump lies between them, found by halving."""
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    if first.astimezone(zone).replace(tzinfo=None) == wall:
        return None
    low, high = sorted((wall.replace(tzinfo=zone, fold=1).astimezone(UTC), first))
    before = low.astimezone(zone).utcoffset()
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        if middle.astimezone(zone).utcoffset() == before:
            low = middle
        else:
            high = middle
    return high


_ISO_MOMENT = linear.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[T ](?P<time>[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?)"
    r"\s*(?P<offset>Z|UTC|[+-][0-9]{2}(?::?[0-9]{2})?)?",
    re.ASCII,
)
MIN_YEAR, MAX_YEAR = 1970, 9998
NOW = say("now")
"""What :func:`parse_moment` counts ``+2d3h`` from by default, in its error message."""
CURRENT_DEADLINE = say("the current deadline")
"""The other base a caller names (the deadline being moved)."""
_MOMENT_EXAMPLE = say("a date and time like 2026-12-05 18:00 (or 2026-12-05T18:00Z)")


def parse_date(text: str) -> date:
    """Read an ISO date, ``2026-12-05``; years outside 1970-9998 are refused as typos."""
    cleaned = text.strip()
    if not _ISO_DATE.fullmatch(cleaned):
        raise TimeInputError(say("expected a date like 2026-12-05, got {given}", given=_shown(text)))
    try:
        day = date.fromisoformat(cleaned)
    except ValueError as error:
        raise TimeInputError(say("{given} is not a real date ({why})", given=_shown(text), why=str(error))) from None
    if not MIN_YEAR <= day.year <= MAX_YEAR:
        raise TimeInputError(
            say(
                "the year {year} is out of range; expected {first} to {last}",
                year=day.year,
                first=MIN_YEAR,
                last=MAX_YEAR,
            )
        )
    return day


def parse_instant(text: str, zone: ZoneInfo) -> datetime:
    """Read an absolute ISO moment; a time without offset is in ``zone`` (see :func:`local_to_utc`).

    Years outside 1970-9998 are refused (see :func:`parse_date`; near the
    ends of ``datetime``'s range an offset would overflow).
    """
    return _parse_instant(text, zone, _MOMENT_EXAMPLE)


def _parse_instant(text: str, zone: ZoneInfo, example: Said) -> datetime:
    cleaned = text.strip().upper()
    match = _ISO_MOMENT.fullmatch(cleaned)
    if match is None:
        if _ISO_DATE.fullmatch(cleaned):
            raise TimeInputError(say("a time of day is missing; expected {example}", example=example))
        raise TimeInputError(say("expected {example}, got {given}", example=example, given=_shown(text)))
    day = parse_date(match["date"])
    clock = match["time"]
    try:
        moment_time = time.fromisoformat(clock if len(clock.split(":")[0]) == 2 else "0" + clock)
    except ValueError:
        raise TimeInputError(
            say("{clock} is not a time of day; expected hours 00-23 and minutes 00-59", clock=repr(clock))
        ) from None
    local = datetime.combine(day, moment_time)
    offset = match["offset"]
    if offset is None:
        return local_to_utc(local, zone)
    if offset in ("Z", "UTC"):
        return local.replace(tzinfo=UTC)
    sign = -1 if offset[0] == "-" else 1
    digits = offset[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if hours > 23 or minutes > 59:
        raise TimeInputError(say("{offset} is not a UTC offset; expected one like +01:00 or Z", offset=repr(offset)))
    shift = sign * timedelta(hours=hours, minutes=minutes)
    return (local - shift).replace(tzinfo=UTC)


def parse_moment(text: str, zone: ZoneInfo, base: datetime, counted_from: str = NOW) -> datetime:
    """Read a moment: ``+2d3h`` is that long after ``base``; anything else is :func:`parse_instant`.

    The caller chooses the base (the current deadline to move a deadline, the
    current time to pause until or to resume) and says which in ``counted_from``
    (:data:`NOW`, :data:`CURRENT_DEADLINE`: words said with ``say``), for the error message; ``base``
    must be aware.  The result is in UTC.
    """
    if base.tzinfo is None:
        raise ValueError("parse_moment needs an aware base time")
    cleaned = text.strip()
    if cleaned.startswith("+"):
        try:
            delta = parse_duration(cleaned[1:])
        except TimeInputError as error:
            raise TimeInputError(say("after '+', {reason}", reason=reason(error))) from None
        return (base + delta).astimezone(UTC)
    if cleaned.startswith("-"):
        raise TimeInputError(say("a relative time counts forward; expected +2d3h, or a date and time"))
    example = say("{example}, or +2d3h (counted from {base})", example=_MOMENT_EXAMPLE, base=counted_from)
    return _parse_instant(cleaned, zone, example)


_WEEKDAYS = (
    mark("weekday", "Mon"), mark("weekday", "Tue"), mark("weekday", "Wed"), mark("weekday", "Thu"),
    mark("weekday", "Fri"), mark("weekday", "Sat"), mark("weekday", "Sun"),
)  # fmt: skip
_MONTHS = (
    mark("month", "Jan"), mark("month", "Feb"), mark("month", "Mar"), mark("month", "Apr"), mark("month", "May"),
    mark("month", "Jun"), mark("month", "Jul"), mark("month", "Aug"), mark("month", "Sep"), mark("month", "Oct"),
    mark("month", "Nov"), mark("month", "Dec"),
)  # fmt: skip
"""The names of days and months in a message: English, or the reader's language while a message is rendered
(:mod:`bot.core.basics.translation`; at most three letters in every language, so widths hold)."""


def _weekday(moment: datetime) -> str:
    return pgettext("weekday", _WEEKDAYS[moment.weekday()])


def _month(moment: datetime) -> str:
    return pgettext("month", _MONTHS[moment.month - 1])


READER_LINE = 66
"""The widest moment :func:`format_moment` and :func:`format_moment_for_reader` write (``  Deadline: `` and
it fit 78 columns)."""


def format_moment(moment: datetime, zone: ZoneInfo) -> str:
    """A moment for a message, in UTC and in the game's zone ("shown in UTC and the game's zone").

    ``2026-12-05 18:00 UTC (Sat 18:00 GMT, Europe/London)``; the local day
    is written too when it is not the UTC one (``2026-12-05 18:00 UTC (Sun 6
    Dec 05:00 AEDT, Australia/Sydney)``), and only the weekday for a game
    kept in UTC (``2026-12-05 18:00 UTC (Sat)``).  The part before the
    bracket is text :func:`parse_instant` reads back.  Names are English
    whatever the host's locale (the reader's language in a message rendered
    for them).  At most :data:`READER_LINE` characters for every zone: where the zone's name would make it wider (the longest IANA
    names), the local time keeps its abbreviation or offset and drops the name,
    so ``Deadline: `` and the moment fit a mailed line of 78 columns.
    """
    if moment.tzinfo is None:
        raise ValueError("format_moment needs an aware moment")
    in_utc = moment.astimezone(UTC)
    shown = f"{in_utc:%Y-%m-%d %H:%M} UTC"
    local = moment.astimezone(zone)
    weekday = _weekday(local)
    if local.utcoffset() == timedelta(0) and zone.key in ("UTC", "Etc/UTC", "Etc/Zulu", "Zulu", "Universal"):
        return f"{shown} ({weekday})"
    day = weekday if local.date() == in_utc.date() else f"{weekday} {local.day} {_month(local)}"
    named = f"{shown} ({day} {local:%H:%M %Z}, {zone.key})"
    return named if len(named) <= READER_LINE else f"{shown} ({day} {local:%H:%M %Z})"


def format_moment_for_reader(moment: datetime, zone: ZoneInfo) -> str:
    """A moment for one reader who chose a zone of their own (``ZONE``): in that zone first, then UTC.

    ``Sun 2026-12-06 01:00 +07 Asia/Ho_Chi_Minh (2026-12-05 18:00 UTC)``; the weekday is left out
    where it would make the text wider than :data:`READER_LINE`, and for the longest zone names the
    name too (the abbreviation or offset stays), so it fits a line of 78 columns after ``Deadline: ``.  The part in brackets is text :func:`parse_instant` reads back.
    """
    if moment.tzinfo is None:
        raise ValueError("format_moment_for_reader needs an aware moment")
    local = moment.astimezone(zone)
    in_utc = f"({moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC)"
    weekday = _weekday(local)
    for form in (
        f"{weekday} {local:%Y-%m-%d %H:%M %Z} {zone.key} {in_utc}",
        f"{local:%Y-%m-%d %H:%M %Z} {zone.key} {in_utc}",
    ):
        if len(form) <= READER_LINE:
            return form
    return f"{weekday} {local:%Y-%m-%d %H:%M %Z} {in_utc}"  # the longest names: the offset says the zone
