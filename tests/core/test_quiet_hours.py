"""Quiet hours (bot/core/messaging/quiet_hours.py): held exactly while the player's clock shows a time inside
the range, and released at the first moment it shows one outside it, in every zone, across midnight and the
days the clocks change."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.basics.durations import TimeInputError
from bot.core.messaging.quiet_hours import QuietHours, began, can_wait, held_until, parse_quiet

ZONES = sorted(available_timezones() - {"localtime", "Factory"})
DST_ZONES = ["Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Asia/Ho_Chi_Minh"]


def _clock(moment: datetime, zone: ZoneInfo) -> time:
    return moment.astimezone(zone).replace(tzinfo=None).time()


minutes = st.integers(0, 24 * 60 - 1).map(lambda m: time(m // 60, m % 60))
ranges = st.tuples(minutes, minutes).filter(lambda r: r[0] != r[1]).map(lambda r: QuietHours(*r))
zones = st.one_of(st.sampled_from(ZONES), st.sampled_from(DST_ZONES)).map(ZoneInfo)
# around the clock changes of 2026 in the northern and southern hemispheres, and any time at all
changes = st.sampled_from([datetime(2026, 3, 29, tzinfo=UTC), datetime(2026, 10, 25, tzinfo=UTC),
                           datetime(2026, 3, 8, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC),
                           datetime(2026, 4, 5, tzinfo=UTC), datetime(2026, 9, 6, tzinfo=UTC)])  # fmt: skip
moments = st.one_of(
    st.datetimes(datetime(2020, 1, 1), datetime(2035, 1, 1)).map(lambda d: d.replace(tzinfo=UTC)),
    st.tuples(changes, st.integers(-36 * 3600, 36 * 3600)).map(lambda p: p[0] + timedelta(seconds=p[1])),
)


@settings(max_examples=400, deadline=None)
@given(zone=zones, quiet=ranges, moment=moments, where=st.floats(0, 1, exclude_max=True))
def test_held_exactly_while_the_clock_shows_a_quiet_time_and_released_when_it_does_not(
    zone: ZoneInfo, quiet: QuietHours, moment: datetime, where: float
) -> None:
    release = held_until(moment, quiet, zone)
    inside = quiet.covers(_clock(moment, zone))
    assert (release is not None) == inside
    if release is None:
        return
    assert release > moment
    # a day at most with a clock change; two when the change skips every time outside the range (found by
    # this test: Santiago, 2026-09-06, midnight skipped, quiet 00:01-00:00)
    assert release - moment <= timedelta(hours=50)
    assert not quiet.covers(_clock(release, zone)), (release, release.astimezone(zone))
    # every moment before the release is quiet (a fraction near 1 may round up to the release itself)
    between = min(moment + (release - moment) * where, release - timedelta(microseconds=1))
    assert quiet.covers(_clock(between, zone)), (between, between.astimezone(zone))


def test_a_range_across_midnight_in_hanoi() -> None:
    quiet, zone = QuietHours(time(22), time(7)), ZoneInfo("Asia/Ho_Chi_Minh")  # UTC+7, no clock changes
    at_23 = datetime(2026, 3, 1, 16, 0, tzinfo=UTC)  # 23:00 there
    assert held_until(at_23, quiet, zone) == datetime(2026, 3, 2, 0, 0, tzinfo=UTC)  # 07:00 there
    assert held_until(datetime(2026, 3, 1, 23, 59, tzinfo=UTC), quiet, zone) == datetime(2026, 3, 2, 0, tzinfo=UTC)
    assert held_until(datetime(2026, 3, 2, 0, 0, tzinfo=UTC), quiet, zone) is None  # 07:00: over
    assert held_until(datetime(2026, 3, 1, 14, 59, tzinfo=UTC), quiet, zone) is None  # 21:59: not yet


def test_a_jump_into_the_range_holds_until_the_next_end_shown() -> None:
    """Santiago, 2026-09-06: 00:00 becomes 01:00; quiet 00:01-00:00 shows no time outside it that day."""
    quiet, zone = QuietHours(time(0, 1), time(0, 0)), ZoneInfo("America/Santiago")
    release = held_until(datetime(2026, 9, 6, 0, 0, tzinfo=UTC), quiet, zone)
    assert release == datetime(2026, 9, 7, 3, 0, tzinfo=UTC)  # 2026-09-07 00:00 there (-03)


def test_the_hour_the_clocks_skip_releases_at_the_jump() -> None:
    # Paris, 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00 UTC); quiet until 02:30, a time never shown
    quiet, zone = QuietHours(time(1), time(2, 30)), ZoneInfo("Europe/Paris")
    assert held_until(datetime(2026, 3, 29, 0, 30, tzinfo=UTC), quiet, zone) == datetime(2026, 3, 29, 1, tzinfo=UTC)


@pytest.mark.parametrize(("text", "written"), [("22:00-07:00", "22:00-07:00"), ("2200-0700", "22:00-07:00"),
                                               ("7.30 - 9.00", "07:30-09:00"), ("off", None)])  # fmt: skip
def test_quiet_hours_are_read_as_written(text: str, written: str | None) -> None:
    quiet = parse_quiet(text)
    assert (None if quiet is None else str(quiet)) == written


@pytest.mark.parametrize("text", ["22-7", "22:00", "25:00-07:00", "22:00-22:00", "night", "22:00 to 07:00"])
def test_a_malformed_range_is_answered_with_the_form(text: str) -> None:
    with pytest.raises(TimeInputError, match="QUIET 22:00-07:00"):
        parse_quiet(text)


def test_what_may_wait() -> None:
    assert can_wait("report", "report") and can_wait("notice", "press")
    assert not can_wait("reply", "reply") and not can_wait("notice", "seat_offer")
    assert not can_wait("status", "status") and not can_wait("notice", "late_notice")
    # only the last reminder before their own deadline never waits; an earlier one does
    assert can_wait("notice", "reminder", {"before_minutes": 1440})
    assert not can_wait("notice", "reminder", {"before_minutes": 60, "last_reminder": True})


def test_when_the_quiet_hours_began_in_hanoi() -> None:
    hanoi, quiet = ZoneInfo("Asia/Ho_Chi_Minh"), QuietHours(time(22), time(7))
    evening = datetime(2026, 3, 1, 15, 0, tzinfo=UTC)  # 22:00 in Hanoi
    assert began(evening, quiet, hanoi) == evening
    assert began(evening + timedelta(hours=8, minutes=59), quiet, hanoi) == evening  # 06:59 next morning
    assert began(evening + timedelta(hours=9), quiet, hanoi) is None  # 07:00: no longer quiet
    assert began(evening - timedelta(minutes=1), quiet, hanoi) is None


@settings(max_examples=300, deadline=None)
@given(zone=zones, quiet=ranges, moment=moments)
def test_quiet_hours_began_before_a_quiet_moment_and_not_a_day_before(zone: ZoneInfo, quiet: QuietHours,
                                                                     moment: datetime) -> None:  # fmt: skip
    start = began(moment, quiet, zone)
    assert (start is None) == (not quiet.covers(_clock(moment, zone)))
    if start is not None:
        assert start <= moment and moment - start < timedelta(hours=27)
        if held_until(start, quiet, zone) is not None:  # the start was shown (not skipped by a change)
            assert held_until(start, quiet, zone) == held_until(moment, quiet, zone)
