"""Outbox leases (bot/core/outbox.py): several senders on one database never take the same row."""

from __future__ import annotations

import threading
from datetime import timedelta

from bot.core import commands as c
from bot.core.outbox import OutboxDrain
from tests.core.harness import SEATS, Harness


def test_two_senders_claim_disjoint_rows_and_a_dead_senders_lease_runs_out(sessions):
    harness = Harness(sessions)
    for slug in ("g1", "g2", "g3"):
        harness.golden_strider_game(slug)
        for name in SEATS:
            harness.send(name, c.SubmitOrders(slug, "cards 10 8 6 4 2"))
    now = harness.clock.now()
    total = OutboxDrain(sessions).unsent_count("email")
    assert total > 60
    taken: list[list[int]] = [[], []]
    errors: list[BaseException] = []

    def sender(index: int) -> None:
        drain = OutboxDrain(sessions)
        try:
            while True:
                try:
                    rows = drain.due("email", now, limit=7)
                except Exception as exc:  # SQLite: a writer that lost the race retries (one writer at a time)
                    if "locked" in str(exc) or "busy" in str(exc).lower():
                        continue
                    raise
                if not rows:
                    return
                for row in rows:
                    taken[index].append(row.id)
                    drain.mark_sent(row.id, now)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=sender, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert not set(taken[0]) & set(taken[1]), "a row was claimed by both senders"
    assert len(taken[0]) + len(taken[1]) == total

    # A sender that claimed rows and died: nobody else takes them until the lease runs out.
    harness.send("Ann", c.ShowStatus("g1"))
    claimed = OutboxDrain(sessions).due("email", now)
    assert len(claimed) == 1
    assert OutboxDrain(sessions).due("email", now) == []
    assert [r.id for r in OutboxDrain(sessions).due("email", now + timedelta(minutes=3))] == [claimed[0].id]
