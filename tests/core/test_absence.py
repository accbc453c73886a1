"""Absences ("a deadline that falls inside it moves to its end, within a limit per player
per game that the GM sets (default 14 days, 0 turns it off)")."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.basics.durations import TimeInputError, local_to_utc
from bot.core.turns.absences import (
    DEFAULT_ABSENCE_LIMIT_DAYS,
    Absence,
    AbsenceAccepted,
    AbsenceRefused,
    absent_days,
    declare_absence,
    parse_absence,
    postpone_deadline,
)

LONDON = ZoneInfo("Europe/London")
TODAY = date(2026, 12, 1)


def days(first: str, last: str) -> Absence:
    return parse_absence(first, last)


def london(*fields: int) -> datetime:
    return datetime(*fields, tzinfo=LONDON).astimezone(UTC)  # type: ignore[misc]


def test_an_absence_is_whole_days_in_the_game_zone():
    absence = days("2026-12-05", "2026-12-07")
    assert absence.days == 3
    assert str(absence) == "2026-12-05 to 2026-12-07"
    summer = days("2026-07-05", "2026-07-05")
    assert summer.start(LONDON) == datetime(2026, 7, 4, 23, 0, tzinfo=UTC)
    assert summer.end(LONDON) == datetime(2026, 7, 5, 23, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("first", "last", "reason"),
    [
        ("2026-12-07", "2026-12-05", "ends on or after its first day"),
        ("2026-12-05", "7 Dec", "expected a date"),
        ("2026-02-30", "2026-03-02", "not a real date"),
    ],
)
def test_malformed_absences(first, last, reason):
    with pytest.raises(TimeInputError, match=reason):
        parse_absence(first, last)


@pytest.mark.parametrize(
    ("deadline", "absences", "expected", "rule"),
    [
        (
            london(2026, 12, 6, 18),
            [("2026-12-05", "2026-12-07")],
            london(2026, 12, 8, 18),
            "inside: day after, same time",
        ),
        (london(2026, 12, 5, 0), [("2026-12-05", "2026-12-07")], london(2026, 12, 8, 0), "its first moment is inside"),
        (london(2026, 12, 8, 0), [("2026-12-05", "2026-12-07")], london(2026, 12, 8, 0), "its end is outside"),
        (london(2026, 12, 4, 23, 59), [("2026-12-05", "2026-12-07")], london(2026, 12, 4, 23, 59), "before"),
        (london(2026, 12, 7, 23, 59), [("2026-12-07", "2026-12-07")], london(2026, 12, 8, 23, 59), "one day"),
        (
            london(2026, 12, 6, 18),
            [("2026-12-05", "2026-12-07"), ("2026-12-08", "2026-12-09")],
            london(2026, 12, 10, 18),
            "moved into another absence: moves again",
        ),
        (
            london(2026, 12, 6, 18),
            [("2026-12-08", "2026-12-09"), ("2026-12-05", "2026-12-07")],
            london(2026, 12, 10, 18),
            "in any order",
        ),
        (
            london(2026, 12, 6, 18),
            [("2026-12-05", "2026-12-07"), ("2026-12-09", "2026-12-09")],
            london(2026, 12, 8, 18),
            "a later absence it does not reach",
        ),
        # London's clocks go back on 2026-10-25: 18:00 BST on the 24th moves to 18:00 GMT on the 26th.
        (london(2026, 10, 24, 18), [("2026-10-24", "2026-10-25")], london(2026, 10, 26, 18), "clock time kept"),
        (london(2027, 3, 27, 18), [("2027-03-27", "2027-03-28")], london(2027, 3, 29, 18), "clock time kept"),
        (london(2026, 12, 6, 18), [], london(2026, 12, 6, 18), "no absence"),
    ],
)
def test_postpone_deadline(deadline, absences, expected, rule):
    """A deadline inside an absence moves to the same local time on the day after its last day."""
    result = postpone_deadline(deadline, [days(*a) for a in absences], LONDON)
    assert result == expected, rule
    assert result.astimezone(LONDON).time() == deadline.astimezone(LONDON).time()


def test_a_clock_time_skipped_on_the_return_day_lands_later_by_the_jump():
    """01:30 does not exist on 2027-03-28 in London (bot.core.basics.durations.local_to_utc's rule)."""
    moved = postpone_deadline(london(2027, 3, 27, 1, 30), [days("2027-03-27", "2027-03-27")], LONDON)
    assert f"{moved.astimezone(LONDON):%Y-%m-%d %H:%M %Z}" == "2027-03-28 02:30 BST"


@pytest.mark.parametrize(
    ("absences", "total"),
    [
        ([], 0),
        ([("2026-12-05", "2026-12-07")], 3),
        ([("2026-12-05", "2026-12-07"), ("2026-12-10", "2026-12-10")], 4),
        ([("2026-12-05", "2026-12-07"), ("2026-12-06", "2026-12-09")], 5),
        ([("2026-12-05", "2026-12-20"), ("2026-12-06", "2026-12-09")], 16),
        ([("2026-12-05", "2026-12-07"), ("2026-12-08", "2026-12-08")], 4),
        ([("2026-12-05", "2026-12-07"), ("2026-12-05", "2026-12-07")], 3),
    ],
)
def test_absent_days_count_each_day_once(absences, total):
    assert absent_days(days(*a) for a in absences) == total


@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 20)), max_size=6))
def test_absent_days_is_the_size_of_the_union(spans):
    start = date(2026, 1, 1)
    absences = [Absence(start + timedelta(days=a), start + timedelta(days=a + n)) for a, n in spans]
    covered = {a.first_day + timedelta(days=i) for a in absences for i in range(a.days)}
    assert absent_days(absences) == len(covered)


def test_declaring_an_absence_moves_the_deadline_inside_it():
    """The case the design names: "An absence that moves a deadline"."""
    result = declare_absence(
        days("2026-12-05", "2026-12-07"), [], today=TODAY, zone=LONDON, deadline=london(2026, 12, 6, 18)
    )
    assert result == AbsenceAccepted(
        absence=days("2026-12-05", "2026-12-07"), days_left=11, deadline=london(2026, 12, 8, 18), moved=True
    )


def test_an_absence_that_misses_the_deadline_leaves_it():
    result = declare_absence(
        days("2026-12-10", "2026-12-12"), [], today=TODAY, zone=LONDON, deadline=london(2026, 12, 6, 18)
    )
    assert isinstance(result, AbsenceAccepted)
    assert result.deadline == london(2026, 12, 6, 18)
    assert not result.moved
    assert declare_absence(days("2026-12-10", "2026-12-12"), [], today=TODAY, zone=LONDON).deadline is None


@pytest.mark.parametrize(
    ("new", "earlier", "limit", "reason"),
    [
        (("2026-12-02", "2026-12-16"), [], 14, "that is 15 more day(s) of absence; you have 14 of this game's 14 left"),
        (
            ("2026-12-20", "2026-12-24"),
            [("2026-12-02", "2026-12-11")],
            14,
            "that is 5 more day(s) of absence; you have 4 of this game's 14 left",
        ),
        (("2026-12-02", "2026-12-02"), [], 0, "absences are turned off in this game"),
        (("2026-11-30", "2026-12-02"), [], 14, "cannot start before today (2026-12-01"),
        (("2028-01-01", "2028-01-02"), [], 14, "at most 366 days ahead"),
    ],
)
def test_refused_absences(new, earlier, limit, reason):
    """The case the design names: "one past the limit that is refused"; 0 turns absences off."""
    result = declare_absence(
        days(*new),
        [days(*e) for e in earlier],
        today=TODAY,
        zone=LONDON,
        deadline=london(2026, 12, 6, 18),
        limit_days=limit,
    )
    assert isinstance(result, AbsenceRefused)
    assert reason in result.reason
    assert len(result.reason) <= 78


@pytest.mark.parametrize(
    ("new", "earlier", "days_left"),
    [
        (("2026-12-02", "2026-12-15"), [], 0),
        (("2026-12-20", "2026-12-23"), [("2026-12-02", "2026-12-11")], 0),
        (("2026-12-05", "2026-12-07"), [("2026-12-05", "2026-12-07")], 11),
        (("2026-12-06", "2026-12-12"), [("2026-12-02", "2026-12-09")], 3),
        (("2026-12-01", "2026-12-01"), [], 13),
    ],
)
def test_accepted_absences_count_overlaps_once(new, earlier, days_left):
    """The limit counts days declared in this game, once each; today may be the first day."""
    result = declare_absence(days(*new), [days(*e) for e in earlier], today=TODAY, zone=LONDON)
    assert isinstance(result, AbsenceAccepted)
    assert result.days_left == days_left


def test_the_default_limit_is_14_days():
    assert DEFAULT_ABSENCE_LIMIT_DAYS == 14
    assert isinstance(declare_absence(days("2026-12-02", "2026-12-15"), [], today=TODAY, zone=LONDON), AbsenceAccepted)
    assert isinstance(declare_absence(days("2026-12-02", "2026-12-16"), [], today=TODAY, zone=LONDON), AbsenceRefused)


def test_a_negative_limit_is_a_bug():
    with pytest.raises(ValueError, match="negative"):
        declare_absence(days("2026-12-02", "2026-12-02"), [], today=TODAY, zone=LONDON, limit_days=-1)


@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 10)), max_size=5),
    st.integers(0, 50 * 24 * 60),
    st.sampled_from(["Europe/London", "America/Santiago", "Pacific/Apia", "Australia/Lord_Howe"]),
)
def test_a_postponed_deadline_is_in_no_absence_and_keeps_its_clock_time(spans, minutes, zone_name):
    zone = ZoneInfo(zone_name)
    start = date(2026, 9, 1)
    absences = [Absence(start + timedelta(days=a), start + timedelta(days=a + n)) for a, n in spans]
    deadline = datetime(2026, 9, 1, tzinfo=UTC) + timedelta(minutes=minutes)
    moved = postpone_deadline(deadline, absences, zone)
    assert moved >= deadline
    assert not any(a.covers(moved, zone) for a in absences)
    if moved != deadline:
        wanted = deadline.astimezone(zone).time()
        assert any(
            moved == local_to_utc(datetime.combine(a.last_day + timedelta(days=1), wanted), zone) for a in absences
        ), "a moved deadline is its clock time on the day after one of the absences"
