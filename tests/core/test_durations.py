"""Durations and moments as GMs and players type them (schedules, `gm deadline GAME +2d3h`, reminders)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.basics.durations import (
    MAX_DURATION,
    TimeInputError,
    format_duration,
    format_duration_list,
    format_moment,
    format_moment_for_reader,
    local_to_utc,
    parse_date,
    parse_duration,
    parse_duration_list,
    parse_instant,
    parse_moment,
    parse_zone,
)

LONDON = ZoneInfo("Europe/London")
H = timedelta(hours=1)
D = timedelta(days=1)
M = timedelta(minutes=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("48h", 48 * H),
        ("30m", 30 * M),
        ("2d 3h", 2 * D + 3 * H),
        ("2d3h", 2 * D + 3 * H),
        ("1h30m", 90 * M),
        ("90s", timedelta(seconds=90)),
        ("0", timedelta(0)),
        ("000", timedelta(0)),
        ("1w", 7 * D),
        ("  2D 3H ", 2 * D + 3 * H),
        ("2 days 3 hours", 2 * D + 3 * H),
        ("1 day", D),
        ("45 min", 45 * M),
        ("1d 0h 5m", D + 5 * M),
        ("366d", MAX_DURATION),
    ],
)
def test_durations_people_write(text, expected):
    """Numbers with units, largest first, spaces optional; long unit words too; 0 alone means none."""
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "got nothing"),
        ("48", "unit is missing"),
        ("1.5h", "whole numbers"),
        ("1,5h", "whole numbers"),
        ("-3h", "negative"),
        ("3x", "unknown unit 'x'"),
        ("30m1h", "largest first"),
        ("1h1h", "largest first"),
        ("h", "expected a duration"),
        ("2d 3h extra", "expected a duration"),
        ("2d 3h 5", "expected a duration"),
        ("two days", "expected a duration"),
        ("367d", "at most 366d"),
        ("9" * 40 + "d", "too long"),
        ("²h", "expected a duration"),
        ("١h", "expected a duration"),
    ],
)
def test_malformed_durations_say_what_was_expected(text, reason):
    """Every mistake is a TimeInputError (a ValueError) with one line naming what was wrong or expected."""
    with pytest.raises(TimeInputError) as caught:
        parse_duration(text)
    message = str(caught.value)
    assert reason in message
    assert "\n" not in message


def test_seconds_can_be_refused_and_the_maximum_lowered():
    with pytest.raises(TimeInputError, match="seconds are not allowed"):
        parse_duration("90s", allow_seconds=False)
    assert parse_duration("90m", allow_seconds=False) == 90 * M
    with pytest.raises(TimeInputError, match="at most 1d"):
        parse_duration("25h", maximum=D)


@pytest.mark.parametrize(
    ("duration", "text"),
    [
        (timedelta(0), "0"),
        (2 * D + 3 * H, "2d 3h"),
        (48 * H, "2d"),
        (90 * M, "1h 30m"),
        (timedelta(seconds=45), "45s"),
        (14 * D, "14d"),
        (D + timedelta(seconds=1), "1d 1s"),
        (timedelta(seconds=59, microseconds=999_999), "59s"),
    ],
)
def test_format_duration(duration, text):
    """Days are the largest unit shown; zero parts are left out; fractions of a second are dropped."""
    assert format_duration(duration) == text


def test_a_negative_duration_to_show_is_a_bug():
    with pytest.raises(ValueError, match="negative"):
        format_duration(-H)


@given(st.integers(min_value=0, max_value=int(MAX_DURATION.total_seconds())))
def test_format_then_parse_gives_the_same_duration(seconds):
    duration = timedelta(seconds=seconds)
    assert parse_duration(format_duration(duration)) == duration
    assert parse_duration(format_duration(duration).replace(" ", "")) == duration


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24h,1h", (24 * H, H)),
        ("1h, 24h", (24 * H, H)),
        ("24h,1h,24h", (24 * H, H)),
        ("30m", (30 * M,)),
        ("none", ()),
        (" None ", ()),
    ],
)
def test_duration_lists(text, expected):
    """Reminder lists: longest first, repeats dropped, `none` for no reminders."""
    assert parse_duration_list(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "separated by commas"), ("24h,,1h", "empty item"), ("24h,0", "0 is not allowed"), ("24h,1x", "unknown unit")],
)
def test_malformed_duration_lists(text, reason):
    with pytest.raises(TimeInputError, match=reason):
        parse_duration_list(text)


def test_format_duration_list_round_trips():
    for text in ("24h,1h", "2d 3h, 90m", "none", "45s"):
        items = parse_duration_list(text)
        assert parse_duration_list(format_duration_list(items)) == items
    assert format_duration_list([H, 24 * H]) == "1d,1h"
    assert format_duration_list([]) == "none"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Winter: London is on GMT, so a naive time is the same in UTC.
        ("2026-12-05T18:00", datetime(2026, 12, 5, 18, 0, tzinfo=UTC)),
        ("2026-12-05 18:00", datetime(2026, 12, 5, 18, 0, tzinfo=UTC)),
        ("2026-12-05 18:00:30", datetime(2026, 12, 5, 18, 0, 30, tzinfo=UTC)),
        ("2026-12-05 7:30", datetime(2026, 12, 5, 7, 30, tzinfo=UTC)),
        # Summer: BST is UTC+1.
        ("2026-07-05 18:00", datetime(2026, 7, 5, 17, 0, tzinfo=UTC)),
        # An explicit offset wins over the game's zone.
        ("2026-07-05T18:00Z", datetime(2026, 7, 5, 18, 0, tzinfo=UTC)),
        ("2026-07-05t18:00z", datetime(2026, 7, 5, 18, 0, tzinfo=UTC)),
        ("2026-07-05 18:00 UTC", datetime(2026, 7, 5, 18, 0, tzinfo=UTC)),
        ("2026-07-05T18:00+02:00", datetime(2026, 7, 5, 16, 0, tzinfo=UTC)),
        ("2026-07-05T18:00+0200", datetime(2026, 7, 5, 16, 0, tzinfo=UTC)),
        ("2026-07-05T18:00-05", datetime(2026, 7, 5, 23, 0, tzinfo=UTC)),
        ("2026-07-05T18:00-05:30", datetime(2026, 7, 5, 23, 30, tzinfo=UTC)),
    ],
)
def test_iso_moments(text, expected):
    """A naive ISO time is in the game's zone; with Z or an offset it is that; the result is UTC."""
    result = parse_instant(text, LONDON)
    assert result == expected
    assert result.tzinfo is UTC


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2026-12-05", "time of day is missing"),
        ("2026-13-05 10:00", "not a real date"),
        ("2026-02-30 10:00", "not a real date"),
        ("2026-12-05 24:00", "not a time of day"),
        ("2026-12-05 18:60", "not a time of day"),
        ("2026-12-05 18:00+25:00", "not a UTC offset"),
        ("0001-01-01 00:00+01:00", "out of range"),
        ("9999-12-31 23:00-05:00", "out of range"),
        ("05/12/2026 18:00", "expected a date and time"),
        ("tomorrow", "expected a date and time"),
        ("2026-12-05 18:00 BST", "expected a date and time"),
    ],
)
def test_malformed_moments(text, reason):
    with pytest.raises(TimeInputError) as caught:
        parse_instant(text, LONDON)
    assert reason in str(caught.value)
    assert "\n" not in str(caught.value)


def test_relative_moments_count_from_the_base_the_caller_gives():
    """`+2d3h` is counted from the base: the current time to set, the current deadline to extend."""
    base = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    assert parse_moment("+2d3h", LONDON, base) == datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
    assert parse_moment(" + 90m", LONDON, base) == base + 90 * M
    assert parse_moment("2026-12-05 18:00", LONDON, base) == datetime(2026, 12, 5, 18, 0, tzinfo=UTC)
    in_paris = datetime(2026, 12, 1, 10, 0, tzinfo=ZoneInfo("Europe/Paris"))
    result = parse_moment("+1h", LONDON, in_paris)
    assert result == datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    assert result.tzinfo is UTC


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("+", "after '+'"),
        ("+2x", "after '+'"),
        ("-2h", "counts forward"),
        ("soon", "or +2d3h (counted from now)"),
    ],
)
def test_malformed_relative_moments(text, reason):
    with pytest.raises(TimeInputError) as caught:
        parse_moment(text, LONDON, datetime(2026, 12, 1, tzinfo=UTC))
    assert reason in str(caught.value)


def test_a_naive_base_is_a_bug():
    with pytest.raises(ValueError, match="aware"):
        parse_moment("+1h", LONDON, datetime(2026, 12, 1))


@pytest.mark.parametrize(
    ("local", "expected_utc", "rule"),
    [
        (datetime(2026, 10, 25, 0, 30), datetime(2026, 10, 24, 23, 30), "before the change: BST"),
        (datetime(2026, 10, 25, 1, 30), datetime(2026, 10, 25, 0, 30), "shown twice: the first (BST)"),
        (datetime(2026, 10, 25, 2, 30), datetime(2026, 10, 25, 2, 30), "after the change: GMT"),
        (datetime(2027, 3, 28, 0, 30), datetime(2027, 3, 28, 0, 30), "before the change: GMT"),
        (datetime(2027, 3, 28, 1, 30), datetime(2027, 3, 28, 1, 30), "skipped: later by the jump (02:30 BST)"),
        (datetime(2027, 3, 28, 2, 30), datetime(2027, 3, 28, 1, 30), "after the change: BST"),
        (datetime(2026, 10, 25, 18, 0), datetime(2026, 10, 25, 18, 0), "18:00 is never ambiguous"),
        (datetime(2026, 10, 24, 18, 0), datetime(2026, 10, 24, 17, 0), "18:00 is never ambiguous"),
    ],
)
def test_local_times_around_london_clock_changes(local, expected_utc, rule):
    """PEP 495 fold=0: a skipped local time lands later by the jump; a repeated one is the first of the two."""
    assert local_to_utc(local, LONDON) == expected_utc.replace(tzinfo=UTC), rule


def test_a_skipped_time_reads_as_the_time_the_clocks_show_after_the_jump():
    moment = local_to_utc(datetime(2027, 3, 28, 1, 30), LONDON)
    assert moment.astimezone(LONDON).replace(tzinfo=None) == datetime(2027, 3, 28, 2, 30)


def test_local_to_utc_refuses_an_aware_time():
    with pytest.raises(ValueError, match="naive"):
        local_to_utc(datetime(2026, 1, 1, tzinfo=UTC), LONDON)


def test_zones_by_name_in_any_case():
    assert parse_zone("Europe/London") == LONDON
    assert parse_zone(" europe/london ") == LONDON
    assert parse_zone("utc") == ZoneInfo("UTC")


@pytest.mark.parametrize("name", ["Europe/Lodnon", "", "Europe", "../etc/passwd", "localtime", "BST", "zone.tab"])
def test_unknown_zones(name):
    """Only IANA names; `localtime` would mean a different zone on another host."""
    with pytest.raises(TimeInputError, match="unknown time zone"):
        parse_zone(name)


def test_dates():
    assert parse_date(" 2026-12-05 ") == date(2026, 12, 5)
    for text, reason in [
        ("2026-12-32", "not a real date"),
        ("5 Dec", "expected a date"),
        ("1066-10-14", "out of range"),
    ]:
        with pytest.raises(TimeInputError, match=reason):
            parse_date(text)


@pytest.mark.parametrize(
    ("moment", "zone", "text"),
    [
        (
            datetime(2026, 12, 5, 18, 0, tzinfo=UTC),
            "Europe/London",
            "2026-12-05 18:00 UTC (Sat 18:00 GMT, Europe/London)",
        ),
        (
            datetime(2026, 7, 5, 17, 0, tzinfo=UTC),
            "Europe/London",
            "2026-07-05 17:00 UTC (Sun 18:00 BST, Europe/London)",
        ),
        (
            datetime(2026, 12, 5, 18, 0, tzinfo=UTC),
            "Australia/Sydney",
            "2026-12-05 18:00 UTC (Sun 6 Dec 05:00 AEDT, Australia/Sydney)",
        ),
        (
            datetime(2026, 12, 5, 18, 0, tzinfo=UTC),
            "Asia/Tehran",
            "2026-12-05 18:00 UTC (Sat 21:30 +0330, Asia/Tehran)",
        ),
        (datetime(2026, 12, 5, 18, 0, tzinfo=UTC), "UTC", "2026-12-05 18:00 UTC (Sat)"),
        (datetime(2026, 12, 5, 19, 0, tzinfo=ZoneInfo("Europe/Paris")), "UTC", "2026-12-05 18:00 UTC (Sat)"),
    ],
)
def test_format_moment_shows_utc_and_the_game_zone(moment, zone, text):
    """The rule: "Times are stored in UTC and shown in UTC and the game's zone in every message"."""
    assert format_moment(moment, ZoneInfo(zone)) == text


def test_format_moment_fits_a_mailed_line_and_reads_back_in_every_zone():
    """Every zone this machine knows, at two moments either side of midnight UTC, summer and winter: the
    game's form and a reader's own fit after ``  Deadline: `` in 78 columns (READER_LINE), and read back."""
    problems = []
    for name in sorted(available_timezones() - {"localtime"}):
        zone = ZoneInfo(name)
        for moment in (datetime(2026, 12, 5, 0, 30, tzinfo=UTC), datetime(2026, 7, 5, 23, 30, tzinfo=UTC)):
            text = format_moment(moment, zone)
            if len("  Deadline: " + text) > 78 or parse_instant(text.split(" (")[0], zone) != moment:
                problems.append(text)
            reader = format_moment_for_reader(moment, zone)
            if len("  Deadline: " + reader) > 78 or f"({moment:%Y-%m-%d %H:%M} UTC)" not in reader:
                problems.append(reader)
    assert problems == []
