"""Reminders ("each sent once per turn ... Moving the deadline moves the reminders", and
"reminders that are no longer useful are not sent late")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.basics.durations import TimeInputError
from bot.core.turns.reminder_times import (
    DEFAULT_LATENESS,
    DEFAULT_REMINDERS,
    OPENING_WINDOW,
    Reminder,
    check_reminders,
    format_reminders,
    parse_reminders,
    reminder_moments,
)

H = timedelta(hours=1)
M = timedelta(minutes=1)
DEADLINE = datetime(2026, 12, 5, 18, 0, tzinfo=UTC)


def at(delta: timedelta) -> datetime:
    """A moment relative to DEADLINE (negative: before it)."""
    return DEADLINE + delta


def test_defaults_are_24h_and_1h():
    assert DEFAULT_REMINDERS == (24 * H, H)
    assert reminder_moments(DEADLINE, DEFAULT_REMINDERS) == (
        Reminder(at(-24 * H), 24 * H),
        Reminder(at(-H), H),
    )


def test_moving_the_deadline_moves_the_reminders():
    later = DEADLINE + 2 * 24 * H
    assert [r.at for r in reminder_moments(later, DEFAULT_REMINDERS)] == [later - 24 * H, later - H]


@pytest.mark.parametrize(
    ("now", "sent", "due", "stale", "pending", "rule"),
    [
        (at(-30 * H), set(), None, [], [24, 1], "both to come"),
        (at(-24 * H), set(), 24, [], [1], "due at its moment"),
        (at(-24 * H + 30 * 1 / 60 * M), set(), 24, [], [1], "a poll 30 s late still sends it"),
        (at(-24 * H + 10 * M), set(), 24, [], [1], "up to the lateness"),
        (at(-24 * H + 11 * M), set(), None, [24], [1], "more than the lateness: stale"),
        (at(-24 * H + 5 * M), {24}, None, [], [1], "already sent"),
        (at(-5 * H), {24}, None, [], [1], "between the two"),
        (at(-H + M), {24}, 1, [], [], "the 1h one"),
        (at(-H + M), set(), 1, [24], [], "down across the 24h moment: only the 1h one"),
        (at(-H + 20 * M), set(), None, [24, 1], [], "down across both: neither"),
        (at(-M), {24, 1}, None, [], [], "all sent"),
        (at(0 * H), set(), None, [24, 1], [], "the deadline has come: none"),
        (at(5 * M), set(), None, [24, 1], [], "past the deadline: none"),
    ],
)
def test_check_reminders(now, sent, due, stale, pending, rule):
    """Only the most recent passed reminder can be due, within the lateness and before the deadline;
    other passed ones are stale; sent ones are left out."""
    result = check_reminders(DEADLINE, DEFAULT_REMINDERS, {n * H for n in sent}, now)
    assert (result.due.offset if result.due else None) == (due * H if due else None), rule
    assert [r.offset for r in result.stale] == [n * H for n in stale], rule
    assert [r.offset for r in result.pending] == [n * H for n in pending], rule


def test_a_deadline_moved_closer_does_not_send_the_reminders_it_skipped():
    """The GM sets the deadline to 3h from now: the 24h reminder is already 21h past, so it is stale."""
    now = datetime(2026, 12, 5, 15, 0, tzinfo=UTC)
    result = check_reminders(now + 3 * H, DEFAULT_REMINDERS, set(), now)
    assert result.due is None
    assert [r.offset for r in result.stale] == [24 * H]
    assert [r.offset for r in result.pending] == [H]
    assert result.next_at == now + 2 * H


def test_a_reminder_from_before_the_turn_opened_is_not_sent():
    """A 24h reminder in a 23h55m turn would arrive with the report that opened the turn."""
    opened = DEADLINE - (23 * H + 55 * M)
    without_opening = check_reminders(DEADLINE, DEFAULT_REMINDERS, set(), opened)
    assert without_opening.due is not None and without_opening.due.offset == 24 * H
    result = check_reminders(DEADLINE, DEFAULT_REMINDERS, set(), opened, opened_at=opened)
    assert result.due is None
    assert [r.offset for r in result.stale] == [24 * H]


def test_a_reminder_due_minutes_after_the_turn_opened_is_not_sent():
    """The report that opened the turn has just said the deadline: a reminder a few minutes later is noise."""
    opened = DEADLINE - 24 * H - 5 * M
    result = check_reminders(DEADLINE, DEFAULT_REMINDERS, set(), at(-24 * H), opened_at=opened)
    assert result.due is None and [r.offset for r in result.stale] == [24 * H]
    later = DEADLINE - 24 * H - OPENING_WINDOW - M
    assert check_reminders(DEADLINE, DEFAULT_REMINDERS, set(), at(-24 * H), opened_at=later).due is not None


def test_the_lateness_is_a_parameter():
    now = at(-24 * H + 30 * M)
    assert check_reminders(DEADLINE, DEFAULT_REMINDERS, set(), now).due is None
    assert check_reminders(DEADLINE, DEFAULT_REMINDERS, set(), now, lateness=H).due == Reminder(at(-24 * H), 24 * H)
    exact = check_reminders(DEADLINE, DEFAULT_REMINDERS, set(), at(-24 * H + 1 * M), lateness=timedelta(0))
    assert exact.due is None and exact.stale


def test_next_at_is_the_earliest_pending():
    result = check_reminders(DEADLINE, (H, 24 * H, 6 * H), set(), at(-30 * H))
    assert result.next_at == at(-24 * H)
    assert check_reminders(DEADLINE, DEFAULT_REMINDERS, set(), at(H)).next_at is None


def test_caller_bugs_raise_value_error():
    with pytest.raises(ValueError, match="positive"):
        reminder_moments(DEADLINE, [timedelta(0)])
    with pytest.raises(ValueError, match="aware"):
        reminder_moments(datetime(2026, 12, 5), [H])
    with pytest.raises(ValueError, match="aware"):
        check_reminders(DEADLINE, [H], set(), datetime(2026, 12, 5))
    with pytest.raises(ValueError, match="negative"):
        check_reminders(DEADLINE, [H], set(), DEADLINE, lateness=-M)


def test_reminder_settings_as_text():
    assert parse_reminders("24h,1h") == (24 * H, H)
    assert parse_reminders("1h, 2d") == (48 * H, H)
    assert parse_reminders("none") == ()
    assert format_reminders(DEFAULT_REMINDERS) == "1d,1h"
    assert parse_reminders(format_reminders((36 * H, 90 * M))) == (36 * H, 90 * M)
    for text in ("0", "24h,0", "30s", "1x", ""):
        with pytest.raises(TimeInputError):
            parse_reminders(text)


offsets = st.frozensets(st.integers(1, 7 * 24 * 60).map(lambda m: timedelta(minutes=m)), max_size=5)
polls = st.lists(st.integers(-8 * 24 * 60 * 60, 60 * 60).map(lambda s: DEADLINE + timedelta(seconds=s)), max_size=60)


@given(offsets, polls)
def test_a_worker_polling_in_any_rhythm_sends_each_reminder_at_most_once_and_never_late(offs, moments):
    """Polling at any moments (then once after the deadline), recording due and stale ones as done,
    as the worker does: each reminder is in one group, sent at most once, never late, never after the deadline."""
    done: set[timedelta] = set()
    sent: list[tuple[Reminder, datetime]] = []
    for now in [*sorted(moments), DEADLINE + H]:
        before = set(done)
        result = check_reminders(DEADLINE, offs, before, now)
        found = [r.offset for r in (*result.stale, *result.pending)] + ([result.due.offset] if result.due else [])
        assert sorted(found) == sorted(offs - before), "every reminder not done is in exactly one group"
        if result.due:
            sent.append((result.due, now))
            done.add(result.due.offset)
        done.update(r.offset for r in result.stale)
    offsets_sent = [r.offset for r, _ in sent]
    assert len(offsets_sent) == len(set(offsets_sent))
    for reminder, when in sent:
        assert reminder.at <= when <= reminder.at + DEFAULT_LATENESS
        assert when < DEADLINE
    assert done == set(offs)


@given(offsets, st.integers(1, 7 * 24 * 60), st.data())
def test_a_worker_that_polls_within_a_minute_of_each_moment_sends_every_reminder_inside_the_turn(
    offs, turn_minutes, data
):
    """Offsets are whole minutes apart, so a poll under a minute late is never overtaken: every
    reminder whose moment is more than the opening window after the opening is sent, in order; the
    others are stale."""
    opened = DEADLINE - timedelta(minutes=turn_minutes)
    done: set[timedelta] = set()
    sent: list[timedelta] = []
    moments = [opened] + [DEADLINE - o + timedelta(seconds=data.draw(st.integers(0, 59))) for o in offs]
    for now in sorted(m for m in moments if m >= opened):
        result = check_reminders(DEADLINE, offs, done, now, opened_at=opened)
        if result.due:
            sent.append(result.due.offset)
            done.add(result.due.offset)
        done.update(r.offset for r in result.stale)
    assert sent == sorted((o for o in offs if o < DEADLINE - opened - OPENING_WINDOW), reverse=True)
