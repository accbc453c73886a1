"""Reminders and quiet hours (bot/core/turns/reminder_pass.py, reminder_times.early_reminder): a reminder that
would fall in a player's quiet hours is sent before they begin; the last before the deadline never waits, an
earlier one does; none is doubled or lost."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from bot.core.model import commands as c
from bot.core.turns.reminder_times import QUIET_LEAD, Reminder, early_reminder
from bot.store.db import unit_of_work
from bot.store.models import DigestItem, Game, OutboxMessage
from tests.core.harness import Harness

H = timedelta(hours=1)
DEADLINE = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)  # 08:00 in Hanoi
EVE = datetime(2026, 3, 1, 15, 0, tzinfo=UTC)  # 22:00 in Hanoi: Ann's quiet hours begin


def _hanoi_quiet(moment: datetime) -> datetime | None:
    """22:00-07:00 in Hanoi (UTC+7, no clock changes): 15:00-24:00 UTC."""
    return moment.replace(hour=15, minute=0) if moment.hour >= 15 else None


def test_the_last_of_the_reminders_moved_to_the_same_eve_is_due_then_and_only_then():
    offsets = (12 * H, 3 * H, 2 * H)  # 13:00 (not quiet), 22:00 and 23:00 UTC (both quiet)
    lead = EVE - QUIET_LEAD
    assert early_reminder(DEADLINE, offsets, set(), lead, _hanoi_quiet) == Reminder(lead, 2 * H)
    assert early_reminder(DEADLINE, offsets, set(), lead - timedelta(minutes=1), _hanoi_quiet) is None
    assert early_reminder(DEADLINE, offsets, set(), EVE, _hanoi_quiet) is None  # the quiet hours have begun
    assert early_reminder(DEADLINE, offsets, {2 * H, 3 * H}, lead, _hanoi_quiet) is None  # already recorded
    assert early_reminder(DEADLINE, offsets, set(), lead, _hanoi_quiet, opened_at=lead) is None  # at the opening
    assert early_reminder(DEADLINE, offsets, set(), lead, lambda _m: None) is None  # no quiet hours


def _reminders(h: Harness) -> dict[str, list[tuple[int, datetime, datetime, bool]]]:
    """Each recipient's reminders: (minutes before, written at, due at, last)."""
    with unit_of_work(h.sessions) as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.template == "reminder")).all()
        found: dict[str, list[tuple[int, datetime, datetime, bool]]] = {}
        for row in rows:
            found.setdefault(row.recipient.split("@")[0], []).append(
                (row.data["before_minutes"], row.created_at, row.next_attempt_at, bool(row.data.get("last_reminder")))
            )
        return found


def test_a_reminder_in_quiet_hours_is_sent_before_they_begin_once_per_seat(sessions):
    h = Harness(sessions)  # 2026-03-01 12:00 UTC: 19:00 in Hanoi
    h.send("Ann", c.SetZone("Asia/Ho_Chi_Minh"), c.SetQuiet("22:00-07:00"))
    h.send("Dan", c.SetZone("Asia/Ho_Chi_Minh"), c.SetQuiet("22:00-07:00"), c.SetDigest("DAILY 08:00"))
    h.golden_strider_game()
    with unit_of_work(sessions) as session:
        session.execute(update(Game).values(reminders="12h,3h,2h", deadline_at=DEADLINE, resolve_at=DEADLINE))
    moment = h.clock.now()
    while moment < DEADLINE:  # a worker that looks every 5 minutes
        moment += timedelta(minutes=5)
        if moment == EVE + 7 * H:  # 05:00 in Hanoi: Cat sets quiet hours after theirs began
            h.clock.set(moment)
            h.send("Cat", c.SetZone("Asia/Ho_Chi_Minh"), c.SetQuiet("22:00-07:00"))
        h.service.remind_due(moment)
    got = _reminders(h)
    nominal = {720: DEADLINE - 12 * H, 180: DEADLINE - 3 * H, 120: DEADLINE - 2 * H}
    # Ben set nothing: each reminder at its moment, the last one marked so
    assert sorted(got["ben"]) == [(m, at, at, m == 120) for m, at in sorted(nominal.items())]
    # Ann: the 12h one at its moment (19:00 hers); the 3h and 2h fall in her quiet hours: the last of them
    # before they begin (21:45 hers), and nothing inside them
    assert sorted(got["ann"]) == [
        (120, EVE - QUIET_LEAD, EVE - QUIET_LEAD, True),
        (720, nominal[720], nominal[720], False),
    ]
    # Cat's quiet hours came too late to move hers: the 3h one waits till 07:00 hers, the last does not
    cat = sorted(got["cat"])
    assert cat[1] == (180, nominal[180], EVE + 9 * H, False), cat
    assert cat[0] == (120, nominal[120], nominal[120], True) and len(cat) == 3
    # Dan's digest gathers his reminders, each once at its moment; none is moved or mailed on its own
    assert "dan" not in got
    with unit_of_work(sessions) as session:
        gathered = session.execute(select(DigestItem.data, DigestItem.created_at)).all()
    assert sorted((d["before_minutes"], at) for d, at in gathered) == sorted((m, at) for m, at in nominal.items())
