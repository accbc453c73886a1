"""Reading budgets per sender across mails (bot.core.intake.sender_budgets), through the real reader process.

The attack: many mails that are genuinely slow to read (a multipart nested 100
deep with 120,000 empty lines: about 1 s of CPU each, see
:func:`tests.email.test_prescreen.slow_to_read`), from many new addresses, just
before a seated player's orders.  A budget per mail alone lets them hold the
intake for their number times the budget; with the strangers' budget the pass
spends at most that budget on them, parks and answers the rest unread (the
host can requeue them), and reads the seated player's mail.
"""

from __future__ import annotations

import time

from bot.core.intake.inbox import DONE, PARKED
from bot.core.intake.sender_budgets import KnownAddresses, SenderBudgetLimits, SenderBudgets, known_addresses
from bot.core.intake.watermarks import Watermarks
from bot.email.intake import Intake
from bot.email.mail_reader import MailReader, ReadingBudget
from bot.email.prescreen import MailLimits
from bot.store.db import unit_of_work
from tests.email.pipeline import POLICY, message, processor_for
from tests.email.test_inbox import _ListMailbox
from tests.email.test_prescreen import slow_to_read
from tests.email.world import GM, PLAYERS, build_world, outbox_rows
from tests.support.rendering import rendered

LIMITS_OUT_OF_THE_WAY = MailLimits(
    header_bytes=10**8, header_fields=10**8, addresses=10**8, multiparts=10**8, nested_lines=10**12
)
STRANGERS = 20


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_strangers_share_one_budget_a_known_sender_keeps_a_floor_and_the_window_slides():
    clock = _Clock()
    limits = SenderBudgetLimits(per_sender_seconds=10, unknown_seconds=5, floor_seconds=2, window_seconds=600)
    budgets = SenderBudgets(limits, lambda: frozenset({"ann@example.org"}), clock)
    assert budgets.allowance("x1@evil.test", 20) == 5
    budgets.spend("x1@evil.test", 3)
    assert budgets.allowance("x2@evil.test", 20) == 2, "a new address shares what the others spent"
    budgets.spend("x2@evil.test", 2)
    assert budgets.allowance("x3@evil.test", 20) == 0, "the strangers' budget is spent"
    assert budgets.allowance(None, 20) == 0, "a sender not read cheaply is a stranger"
    assert budgets.allowance("ann@example.org", 20) == 10, "a known sender is not a stranger"
    budgets.spend("ann@example.org", 30)  # a forger spent Ann's budget
    assert budgets.allowance("ann@example.org", 20) == 2, "Ann's own mail still gets the floor"
    clock.now += 601
    assert budgets.allowance("x3@evil.test", 20) == 5, "the window slid past what was spent"
    assert budgets.allowance("ann@example.org", 20) == 10


def test_the_known_addresses_are_the_seated_players_and_game_masters_of_live_games(sessions):
    build_world(sessions, ("demo",))
    with unit_of_work(sessions) as session:
        assert known_addresses(session, "email") == frozenset({*PLAYERS.values(), GM})
        assert known_addresses(session, "discord") == frozenset()


def test_twenty_slow_mails_from_new_addresses_do_not_hold_back_a_seated_players_mail(sessions):
    build_world(sessions, ("demo",))
    processor = processor_for(sessions)
    limits = SenderBudgetLimits(unknown_seconds=2.0)
    senders = SenderBudgets(limits, KnownAddresses(sessions, "email"))
    reader = MailReader(POLICY, 1, LIMITS_OUT_OF_THE_WAY, ReadingBudget(seconds=20.0), senders)
    hostile = [
        slow_to_read(100, 120_000, sender=f"x{n}@evil.test", message_id=f"<slow{n}@evil.test>")
        for n in range(STRANGERS)
    ]
    mailbox = _ListMailbox([*hostile, message("STATUS demo\n", subject="ann's")])
    intake = Intake(processor, Watermarks(sessions), reader=reader)
    try:
        reader.warm_up()
        started = time.monotonic()
        result = intake.run_once(mailbox)
        took = time.monotonic() - started
    finally:
        reader.close()
    print(f"\n{STRANGERS} slow mails from new addresses and a seated player's: the pass took {took:.1f} s")
    # A budget per mail alone: about 20 x 1 s.  With the strangers' 2 s: about 2 s, and a reader restart.
    assert took < 8.0, f"the pass took {took:.1f} s"
    statuses = {row.source_key: row.status for row in processor.inbox.summaries()}
    assert statuses[f"list:{STRANGERS}"] == DONE, "the seated player's mail was read and applied"
    parked = [key for key, status in statuses.items() if status == PARKED]
    assert len(parked) >= STRANGERS - 3 and result.stored == STRANGERS + 1, "nothing is dropped: stored, parked"
    assert senders.refused >= STRANGERS - 3
    replies = {rendered(row).recipient: rendered(row).body for row in outbox_rows(sessions)}
    assert "ann@example.org" in replies
    answered = [n for n in range(STRANGERS) if f"x{n}@evil.test" in replies]
    assert len(answered) >= STRANGERS - 3, "a mail parked unread is answered when its From reads cheaply"
    assert "could not be read" in " ".join(replies["x19@evil.test"].split())


def test_a_forged_from_line_cannot_spend_a_players_own_mail(sessions):
    """Slow mails forged as Ann's spend her budget; her own mail still gets the floor, and is read."""
    build_world(sessions, ("demo",))
    processor = processor_for(sessions)
    limits = SenderBudgetLimits(per_sender_seconds=1.0, floor_seconds=0.5)
    reader = MailReader(
        POLICY,
        1,
        LIMITS_OUT_OF_THE_WAY,
        ReadingBudget(seconds=20.0),
        SenderBudgets(limits, KnownAddresses(sessions, "email")),
    )
    forged = [
        slow_to_read(100, 300_000, sender="Ann <ann@example.org>", message_id=f"<forged{n}@evil.test>")
        for n in range(3)
    ]
    mailbox = _ListMailbox([*forged, message("STATUS demo\n", subject="ann's own")])
    try:
        Intake(processor, Watermarks(sessions), reader=reader).run_once(mailbox)
    finally:
        reader.close()
    statuses = {row.source_key: row.status for row in processor.inbox.summaries()}
    assert statuses["list:3"] == DONE
    assert [statuses[f"list:{n}"] for n in range(3)] == [PARKED] * 3
    assert reader.over_budget == 3
