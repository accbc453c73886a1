"""A receipt is 32 bits of a hash of the envelope's source id (bot/core/commands/replies.py), for a person to
quote: two envelopes may share one (even odds near 77,000 stored), and both are applied (migration 0024; the
source id is the key that makes a second copy of the same message a no-op)."""

from __future__ import annotations

import itertools

from sqlalchemy import select

from bot.core.commands.replies import receipt_for
from bot.core.model import commands as c
from bot.store.db import unit_of_work
from bot.store.models import ProcessedEnvelope
from tests.core.harness import Harness


def _two_sources_with_one_receipt() -> tuple[str, str]:
    """The first two source ids ``mail:<n>`` whose receipts are the same (a birthday search)."""
    seen: dict[str, str] = {}
    for n in itertools.count():
        source = f"mail:{n}"
        receipt = receipt_for(source)
        if receipt in seen:
            return seen[receipt], source
        seen[receipt] = source
    raise AssertionError("unreachable")


def test_two_envelopes_whose_receipts_repeat_are_both_applied(sessions):
    first, second = _two_sources_with_one_receipt()
    assert first != second and receipt_for(first) == receipt_for(second)
    h = Harness(sessions)
    one = h.send("Ann", c.ListGames(), source=first)
    two = h.send("Ben", c.ListGames(), source=second)
    assert not one.duplicate and not two.duplicate
    assert one.receipt == two.receipt and two.reply is not None and two.receipt in two.reply
    again = h.send("Ben", c.ListGames(), source=second)
    assert again.duplicate  # the same message twice is still one
    with unit_of_work(sessions) as session:
        stored = session.scalars(
            select(ProcessedEnvelope.source_id).where(ProcessedEnvelope.source_id.in_([first, second]))
        )
        assert sorted(stored.all()) == sorted([first, second])
