"""A game's page shows every public report as it was sent, not rebuilt with today's header.

The attack: after a report went out, a game master moves the deadline and acts again; the page's copy
of that report must still say the deadline the report said, and announce only what it announced (the
later actions belong to the next report).  Each report on the page is compared with the public copy
the channels were sent, rendered the same way.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.core.messaging.rendering import render_message
from bot.core.model import commands as c
from bot.core.views.pages import Pages
from tests.core.harness import Harness

ROUND = "play 10/0 bank 0"


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def sent_copies(harness: Harness) -> dict[int, str]:
    """The body of the public copy of each turn's report, as the public place was sent it (last one wins)."""
    return {
        m.turn_number: render_message("email", "report", m.data).body
        for m in harness.outbox("report")
        if m.recipient == "public:gs1" and m.template == "report"
    }


def page_copies(harness: Harness) -> dict[int, str]:
    page = Pages(harness.sessions).game("gs1")
    assert page is not None
    return {r.turn: render_message("email", "report", r.data).body for r in page.reports}


def test_every_report_on_the_page_is_the_one_sent_whatever_happened_since(harness):
    harness.golden_strider_game()
    harness.send("GM", c.SetDeadline("gs1", "+30m", "a slow start"))
    harness.setup_all()
    harness.clock.advance(timedelta(minutes=95))
    harness.service.resolve_due(harness.clock.now())  # turn 0, 5 minutes late: the report says so
    harness.send("GM", c.SetDeadline("gs1", "+1d", "a holiday"))  # after the report: the next one's news
    harness.send("GM", c.EnterOrders("gs1", "Ann", ROUND, "by post"))
    sent = sent_copies(harness)
    assert list(sent) == [0] and "a holiday" not in sent[0]
    assert page_copies(harness) == sent
    for name in ("Ben", "Cat", "Dan", "Eve", "Fay"):
        harness.send(name, c.SubmitOrders("gs1", ROUND))
    harness.clock.advance(timedelta(days=1, hours=2))
    harness.service.resolve_due(harness.clock.now())
    harness.send("GM", c.PauseGame("gs1", "after turn 1"))
    sent = sent_copies(harness)
    assert list(sent) == [0, 1]
    assert page_copies(harness) == sent
