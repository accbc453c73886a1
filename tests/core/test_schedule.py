"""Deadline schedules ("Deadline schedules people use" and "Deadlines people can trust")."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.core.basics.durations import TimeInputError
from bot.core.turns.schedule import (
    EveryDays,
    FixedLength,
    OnDays,
    Schedule,
    first_deadline,
    next_deadline,
    parse_schedule,
    scheduled_at,
)

LONDON = ZoneInfo("Europe/London")
H = timedelta(hours=1)
D = timedelta(days=1)
M = timedelta(minutes=1)
S = timedelta(seconds=1)


def london(*fields: int) -> datetime:
    """An aware London wall-clock time (fold=0), e.g. london(2026, 11, 30, 17, 50)."""
    return datetime(*fields, tzinfo=LONDON)  # type: ignore[misc]


def utc(*fields: int) -> datetime:
    return datetime(*fields, tzinfo=UTC)  # type: ignore[misc]


# 2026-11-30 is a Monday; London is on GMT then, so local time equals UTC.
@pytest.mark.parametrize(
    ("spec", "opened", "minimum", "expected", "rule"),
    [
        ("mon,thu at 20:00", london(2026, 11, 30, 17, 50), 24 * H, london(2026, 12, 3, 20, 0), "brief's example"),
        ("mon,thu at 20:00", london(2026, 11, 30, 17, 50), 0 * H, london(2026, 11, 30, 20, 0), "next listed day"),
        ("mon,thu at 20:00", london(2026, 11, 30, 17, 50), 2 * H, london(2026, 11, 30, 20, 0), "2h10m >= 2h"),
        ("mon,thu at 20:00", london(2026, 11, 30, 17, 50), 3 * H, london(2026, 12, 3, 20, 0), "2h10m < 3h"),
        ("mon,thu at 20:00", london(2026, 11, 30, 20, 0), 0 * H, london(2026, 12, 3, 20, 0), "strictly after"),
        ("mon,thu at 20:00", london(2026, 12, 3, 20, 0, 30), 0 * H, london(2026, 12, 7, 20, 0), "thu -> mon"),
        ("mon,thu at 20:00", london(2026, 12, 3, 20, 0, 30), 4 * D, london(2026, 12, 10, 20, 0), "past a slot"),
        ("weekdays at 18:00", london(2026, 12, 4, 18, 30), 0 * H, london(2026, 12, 7, 18, 0), "fri -> mon"),
        ("weekends at 12:00", london(2026, 12, 1, 9, 0), 0 * H, london(2026, 12, 5, 12, 0), "tue -> sat"),
        ("sun at 09:00", london(2026, 12, 6, 8, 0), 0 * H, london(2026, 12, 6, 9, 0), "same day"),
        ("sun at 09:00", london(2026, 12, 6, 8, 0), 2 * H, london(2026, 12, 13, 9, 0), "a week on"),
        ("every 3 days at 18:00", london(2026, 11, 30, 18, 0, 5), 0 * H, london(2026, 12, 3, 18, 0), "N days on"),
        ("every 3 days at 18:00", london(2026, 11, 30, 0, 5), 0 * H, london(2026, 12, 3, 18, 0), "any hour"),
        ("every 3 days at 18:00", london(2026, 11, 30, 23, 59), 0 * H, london(2026, 12, 3, 18, 0), "any hour"),
        ("every 3 days at 18:00", london(2026, 11, 30, 18, 0, 5), 72 * H, london(2026, 12, 4, 18, 0), "minimum"),
        ("every 3 days at 18:00", london(2026, 11, 30, 18, 0), 5 * D, london(2026, 12, 5, 18, 0), "day by day"),
        ("every day at 20:00", london(2026, 11, 30, 8, 0), 0 * H, london(2026, 12, 1, 20, 0), "next day"),
        ("every day at 20:00", london(2026, 11, 30, 19, 59), 0 * H, london(2026, 12, 1, 20, 0), "not 1 minute"),
        ("every day at 06:00", london(2026, 11, 30, 23, 0), 0 * H, london(2026, 12, 1, 6, 0), "short: 7h"),
        ("every day at 06:00", london(2026, 11, 30, 23, 0), 12 * H, london(2026, 12, 2, 6, 0), "minimum"),
        ("48h", utc(2026, 11, 30, 17, 50), 0 * H, utc(2026, 12, 2, 17, 50), "elapsed time"),
        ("48h", utc(2026, 11, 30, 17, 50), 24 * H, utc(2026, 12, 2, 17, 50), "minimum below length"),
        ("48h", utc(2026, 11, 30, 17, 50), 72 * H, utc(2026, 12, 3, 17, 50), "minimum above length"),
    ],
)
def test_next_deadline(spec, opened, minimum, expected, rule):
    """Fixed lengths are elapsed time; `every N days at T` is T on the N-th day after the opening day;
    day lists take the next listed day; then the first later slot that leaves the minimum (module docstring)."""
    result = next_deadline(parse_schedule(spec), opened, LONDON, minimum)
    assert result == expected, rule
    assert result.tzinfo is UTC


# The October change: 2026-10-25 (a Sunday) 02:00 BST -> 01:00 GMT.
# The March change: 2027-03-28 (a Sunday) 01:00 GMT -> 02:00 BST.
@pytest.mark.parametrize(
    ("spec", "opened", "expected"),
    [
        ("every day at 18:00", utc(2026, 10, 24, 17, 0, 30), utc(2026, 10, 25, 18, 0)),
        ("every day at 18:00", utc(2026, 10, 25, 18, 0, 30), utc(2026, 10, 26, 18, 0)),
        ("every day at 18:00", utc(2027, 3, 27, 18, 0, 30), utc(2027, 3, 28, 17, 0)),
        ("every day at 18:00", utc(2027, 3, 28, 17, 0, 30), utc(2027, 3, 29, 17, 0)),
        ("every 3 days at 18:00", utc(2026, 10, 23, 17, 0, 30), utc(2026, 10, 26, 18, 0)),
        ("every 3 days at 18:00", utc(2027, 3, 26, 18, 0, 30), utc(2027, 3, 29, 17, 0)),
        ("sat,sun at 18:00", utc(2026, 10, 24, 17, 0, 30), utc(2026, 10, 25, 18, 0)),
        ("sat,sun at 18:00", utc(2027, 3, 27, 18, 0, 30), utc(2027, 3, 28, 17, 0)),
        ("mon,thu at 18:00", utc(2026, 10, 22, 17, 0, 30), utc(2026, 10, 26, 18, 0)),
        ("mon,thu at 18:00", utc(2027, 3, 25, 18, 0, 30), utc(2027, 3, 29, 17, 0)),
    ],
)
def test_a_clock_change_does_not_move_a_scheduled_local_time(spec, opened, expected):
    """The rule: "A daylight-saving change in the game's zone does not move a scheduled local time"."""
    result = next_deadline(parse_schedule(spec), opened, LONDON)
    assert result == expected
    assert result.astimezone(LONDON).time() == time(18, 0)


def test_a_daily_game_across_both_london_changes_keeps_18_00():
    """A game at `every day at 18:00` from October to April, each turn opening 30 s after the last deadline."""
    schedule = parse_schedule("every day at 18:00")
    deadline = utc(2026, 10, 20, 17, 0)
    lengths = set()
    for _ in range(170):
        following = next_deadline(schedule, deadline + 30 * S, LONDON, 12 * H)
        assert following.astimezone(LONDON).time() == time(18, 0)
        assert following.astimezone(LONDON).date() == deadline.astimezone(LONDON).date() + D
        lengths.add(following - deadline)
        deadline = following
    assert deadline.astimezone(LONDON).date() == date(2027, 4, 8)
    assert lengths == {24 * H, 25 * H, 23 * H}


@pytest.mark.parametrize(
    ("opened", "expected", "local"),
    [
        (utc(2026, 10, 24, 17, 0), utc(2026, 10, 25, 17, 0), "17:00 GMT"),
        (utc(2027, 3, 27, 18, 0), utc(2027, 3, 28, 18, 0), "19:00 BST"),
        (utc(2026, 10, 25, 17, 0), utc(2026, 10, 26, 17, 0), "17:00 GMT"),
    ],
)
def test_a_fixed_length_is_elapsed_time_even_across_a_clock_change(opened, expected, local):
    """Decided: `24h` means 24 hours of elapsed time, so its local time moves with the clocks;
    a game that wants 18:00 every day says `every day at 18:00`."""
    result = next_deadline(parse_schedule("24h"), opened, LONDON)
    assert result == expected
    assert f"{result.astimezone(LONDON):%H:%M %Z}" == local


@pytest.mark.parametrize(
    ("spec", "opened", "expected", "rule"),
    [
        # 01:30 on 2026-10-25 is shown twice (BST, then GMT): the first counts.
        ("every day at 01:30", utc(2026, 10, 24, 0, 30), utc(2026, 10, 25, 0, 30), "first of the two"),
        ("sun at 01:30", utc(2026, 10, 20, 12, 0), utc(2026, 10, 25, 0, 30), "first of the two"),
        # Opened between the two 01:30s: the second one is not a slot, so next week's is next.
        ("sun at 01:30", utc(2026, 10, 25, 0, 45), utc(2026, 11, 1, 1, 30), "only the first is a slot"),
        # 01:30 on 2027-03-28 does not exist: it lands an hour later, at 02:30 BST.
        ("every day at 01:30", utc(2027, 3, 27, 1, 30), utc(2027, 3, 28, 1, 30), "later by the jump"),
        ("sun at 01:30", utc(2027, 3, 22, 12, 0), utc(2027, 3, 28, 1, 30), "later by the jump"),
        ("every day at 01:30", utc(2027, 3, 28, 1, 30, 5), utc(2027, 3, 29, 0, 30), "back to 01:30 BST"),
    ],
)
def test_local_times_a_clock_change_skips_or_repeats(spec, opened, expected, rule):
    """Rule (bot.core.basics.durations.local_to_utc, PEP 495 fold=0): a repeated local time is its first
    occurrence; a skipped one is read with the offset before the jump, so it lands later by the jump."""
    assert next_deadline(parse_schedule(spec), opened, LONDON) == expected, rule


def test_a_skipped_slot_shows_the_time_after_the_jump():
    deadline = next_deadline(parse_schedule("every day at 01:30"), utc(2027, 3, 27, 1, 30), LONDON)
    assert f"{deadline.astimezone(LONDON):%Y-%m-%d %H:%M %Z}" == "2027-03-28 02:30 BST"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("48h", FixedLength(48 * H)),
        ("2d 12h", FixedLength(60 * H)),
        ("30m", FixedLength(30 * M)),
        ("every day at 20:00", EveryDays(1, time(20, 0))),
        ("daily at 20:00", EveryDays(1, time(20, 0))),
        ("every 1 day at 20:00", EveryDays(1, time(20, 0))),
        ("Every 3 Days at 18:00", EveryDays(3, time(18, 0))),
        ("every   3 days   at 7:05", EveryDays(3, time(7, 5))),
        ("mon,thu at 20:00", OnDays(frozenset({0, 3}), time(20, 0))),
        ("Mon, Thu at 20:00", OnDays(frozenset({0, 3}), time(20, 0))),
        ("monday thursday at 20:00", OnDays(frozenset({0, 3}), time(20, 0))),
        ("weekdays at 18:00", OnDays(frozenset(range(5)), time(18, 0))),
        ("mon-fri at 18:00", OnDays(frozenset(range(5)), time(18, 0))),
        ("fri-mon at 18:00", OnDays(frozenset({4, 5, 6, 0}), time(18, 0))),
        ("weekends at 12:00", OnDays(frozenset({5, 6}), time(12, 0))),
        ("sun,weekdays at 00:00", OnDays(frozenset({6, 0, 1, 2, 3, 4}), time(0, 0))),
    ],
)
def test_parse_schedule(text, expected):
    schedule = parse_schedule(text)
    assert schedule == expected
    assert parse_schedule(str(schedule)) == schedule


@pytest.mark.parametrize(
    ("schedule", "text"),
    [
        (FixedLength(48 * H), "2d"),
        (FixedLength(90 * M), "1h 30m"),
        (EveryDays(1, time(20, 0)), "every day at 20:00"),
        (EveryDays(3, time(8, 5)), "every 3 days at 08:05"),
        (OnDays(frozenset({3, 0}), time(20, 0)), "mon,thu at 20:00"),
        (OnDays(frozenset(range(5)), time(18, 0)), "mon,tue,wed,thu,fri at 18:00"),
    ],
)
def test_schedules_as_stored_text(schedule, text):
    """The text a game stores; parse_schedule reads it back to an equal schedule."""
    assert str(schedule) == text
    assert parse_schedule(text) == schedule


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "got nothing"),
        ("soon", "expected a schedule like 48h"),
        ("0", "more than 0"),
        ("90s", "seconds are not allowed"),
        ("48", "unit is missing"),
        ("every 0 days at 10:00", "from 1 to 60"),
        ("every 61 days at 10:00", "from 1 to 60"),
        ("every 9999999999999999999999 days at 10:00", "from 1 to 60"),
        ("every week at 10:00", "every day or every N days"),
        ("mon at 25:00", "not a time of day"),
        ("mon at 18:60", "not a time of day"),
        ("mon at 6pm", "24-hour time"),
        ("mon at", "24-hour time"),
        ("at 18:00", "days are missing"),
        ("xyz at 10:00", "unknown day 'xyz'"),
        ("mon-xyz at 10:00", "unknown day 'xyz'"),
        ("mon,thu", "expected a schedule"),
    ],
)
def test_malformed_schedules(text, reason):
    with pytest.raises(TimeInputError) as caught:
        parse_schedule(text)
    assert reason in str(caught.value)
    assert "\n" not in str(caught.value)


def test_invalid_schedule_values_are_refused_when_built():
    with pytest.raises(TimeInputError):
        FixedLength(timedelta(0))
    with pytest.raises(TimeInputError):
        FixedLength(timedelta(seconds=90))
    with pytest.raises(TimeInputError):
        OnDays(frozenset(), time(18, 0))
    with pytest.raises(TimeInputError):
        OnDays(frozenset({7}), time(18, 0))
    with pytest.raises(TimeInputError):
        EveryDays(1, time(18, 0, 30))


def test_caller_bugs_raise_value_error():
    with pytest.raises(ValueError, match="aware"):
        next_deadline(FixedLength(H), datetime(2026, 12, 1), LONDON)
    with pytest.raises(ValueError, match="negative"):
        next_deadline(FixedLength(H), utc(2026, 12, 1), LONDON, -H)


# Zones with awkward clock changes: half-hour DST (Lord Howe), a whole skipped day (Apia,
# 2011-12-30), changes at midnight (Santiago, Havana), southern hemisphere, and none.
TRICKY_ZONES = [
    "Europe/London",
    "America/New_York",
    "Australia/Lord_Howe",
    "Pacific/Apia",
    "America/Santiago",
    "America/Havana",
    "Asia/Tehran",
    "Pacific/Chatham",
    "Africa/Casablanca",
    "UTC",
]
zones = st.one_of(st.sampled_from(TRICKY_ZONES).map(ZoneInfo), st.timezones())
clock_times = st.builds(time, st.integers(0, 23), st.sampled_from([0, 1, 15, 30, 45, 59]))
day_sets = st.frozensets(st.integers(0, 6), min_size=1)
schedules: st.SearchStrategy[Schedule] = st.one_of(
    st.integers(1, 10 * 24 * 60).map(lambda m: FixedLength(timedelta(minutes=m))),
    st.builds(EveryDays, st.integers(1, 60), clock_times),
    st.builds(OnDays, day_sets, clock_times),
)
openings = st.datetimes(min_value=datetime(2005, 1, 1), max_value=datetime(2040, 1, 1), timezones=st.just(UTC))
minimums = st.integers(0, 15 * 24 * 60).map(lambda m: timedelta(minutes=m))


def _allowed(schedule: EveryDays | OnDays, day: date, opened: datetime, zone: ZoneInfo) -> bool:
    if isinstance(schedule, EveryDays):
        return day >= opened.astimezone(zone).date() + timedelta(days=schedule.days)
    return day.weekday() in schedule.weekdays


@given(schedules, openings, zones, minimums)
@example(OnDays(frozenset({4}), time(12, 0)), utc(2011, 12, 29, 10, 0), ZoneInfo("Pacific/Apia"), timedelta(0))
# Apia skipped Friday 2011-12-30: its 12:00 lands on Saturday's 12:00, after this opening.
@example(OnDays(frozenset({4}), time(12, 0)), utc(2011, 12, 30, 19, 0), ZoneInfo("Pacific/Apia"), timedelta(0))
@example(EveryDays(1, time(0, 0)), utc(2026, 9, 5, 12, 0), ZoneInfo("America/Santiago"), timedelta(0))
@example(EveryDays(1, time(1, 30)), utc(2026, 10, 24, 0, 30), LONDON, timedelta(0))
def test_the_next_deadline_respects_the_minimum_and_is_the_first_scheduled_slot(schedule, opened, zone, minimum):
    """Always after the opening and at least the minimum after it; a clock schedule lands on its local
    time on an allowed day, and no allowed slot lies between the earliest allowed moment and it."""
    deadline = next_deadline(schedule, opened, zone, minimum)
    assert deadline.tzinfo is UTC
    assert deadline > opened
    assert deadline >= opened + minimum
    if isinstance(schedule, FixedLength):
        assert deadline == opened + max(schedule.length, minimum)
        return
    local_day = deadline.astimezone(zone).date()
    landing = [
        d
        for d in (local_day, local_day - D)
        if _allowed(schedule, d, opened, zone) and scheduled_at(d, schedule.at, zone) == deadline
    ]
    assert landing, "the deadline is not the scheduled local time of an allowed day"
    bound = max(opened + minimum, opened + timedelta(microseconds=1))
    for back in range(1, 9):
        earlier = landing[-1] - timedelta(days=back)
        if _allowed(schedule, earlier, opened, zone):
            slot = scheduled_at(earlier, schedule.at, zone)
            assert slot < bound or slot == deadline, f"{earlier} at {schedule.at} was allowed and sooner"


@given(schedules)
def test_every_schedule_round_trips_through_its_text(schedule):
    assert parse_schedule(str(schedule)) == schedule


@given(st.text(max_size=60))
@example("every 3 days at 18:00:00")
@example("mon,,thu at 20:00")
@example("every ١ days at 10:00")
def test_any_text_is_a_schedule_or_a_time_input_error(text):
    """A user's typo is a TimeInputError, never another exception."""
    try:
        schedule = parse_schedule(text)
    except TimeInputError as error:
        assert "\n" not in str(error)
    else:
        assert parse_schedule(str(schedule)) == schedule


@pytest.mark.parametrize(
    ("started", "minimum", "expected", "rule"),
    [
        (datetime(2026, 12, 3, 8, 0, tzinfo=UTC), timedelta(0), datetime(2026, 12, 3, 20, 0, tzinfo=UTC),
         "started at 08:00: today's 20:00, twelve hours away, not tomorrow's"),
        (datetime(2026, 12, 3, 8, 1, tzinfo=UTC), timedelta(0), datetime(2026, 12, 4, 20, 0, tzinfo=UTC),
         "less than half a day before today's 20:00: the rule's day"),
        (datetime(2026, 12, 3, 7, 0, tzinfo=UTC), timedelta(hours=14), datetime(2026, 12, 4, 20, 0, tzinfo=UTC),
         "today's 20:00 is nearer than the minimum gap"),
        (datetime(2026, 12, 3, 21, 0, tzinfo=UTC), timedelta(0), datetime(2026, 12, 4, 20, 0, tzinfo=UTC),
         "after today's time: tomorrow's"),
    ],
)  # fmt: skip
def test_the_first_deadline_takes_todays_time_when_half_a_period_away(started, minimum, expected, rule):
    schedule = parse_schedule("every day at 20:00")
    assert first_deadline(schedule, started, LONDON, minimum) == expected, rule
    assert next_deadline(schedule, started, LONDON, minimum) >= expected  # later turns keep their rule


def test_the_first_deadline_of_other_schedules_is_the_rules():
    started = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)  # a Thursday
    for spec in ("48h", "mon,thu at 20:00"):
        schedule = parse_schedule(spec)
        assert first_deadline(schedule, started, LONDON) == next_deadline(schedule, started, LONDON)
