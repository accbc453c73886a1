"""The sender loop's promises under any mix of outcomes, batch sizes and sessions (hypothesis).

bot/core/messaging/sender_loop.py claims a pass's rows, deals them over sessions, marks each sent before
its session's next one, and, when a claim is full, claims and begins the next pass's rows while a pass
sends.  Whatever each send answers (taken, to retry, held, refused for good, the server away, a bug),
after enough passes: every row was taken once, superseded (a status row with a newer one for its
recipient) or parked, never twice; a recipient's rows that never failed arrived in the order written;
nothing is left leased, everything begun was ended, and each row settled for good is in exactly one
pass's report (a claim ahead given back reports the status rows it superseded).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.messaging.outbox import OutboxDrain, Outgoing, PendingMessage, enqueue
from bot.core.messaging.sender_loop import PARKED, SENT, SenderLoop
from bot.core.messaging.transport import Outcome, Refused, Retry, Sent, Unavailable
from bot.core.model.outcomes import REPLY, STATUS
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import START

CHANNEL = "dummy"
RECIPIENTS = ("ann", "ben", "cat")
MAX_ATTEMPTS = 3

_OUTCOMES = st.sampled_from(["sent", "retry", "hold", "refused", "away", "bug"])


class ScriptedTransport:
    """Answers each send with the next scripted outcome (taken once the script is used up); begins and ends
    passes as email does (what it built is kept by row until the pass ends)."""

    def __init__(self, script: list[str]) -> None:
        self.script = list(script)
        self.taken: list[PendingMessage] = []
        self.failed: set[int] = set()
        """Rows that were answered "to retry", "refused" or a bug at least once."""
        self.begun: set[int] = set()

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[ScriptedTransport]:
        yield self

    async def begin(self, rows: Sequence[PendingMessage]) -> None:
        assert not self.begun & {row.id for row in rows}, "a row begun twice before its pass ended"
        self.begun |= {row.id for row in rows}

    async def end(self, rows: Sequence[PendingMessage]) -> None:
        self.begun -= {row.id for row in rows}

    async def send(self, row: PendingMessage) -> Outcome:
        assert row.id in self.begun, "sent without being begun"
        await asyncio.sleep(0)  # another session, or the claim ahead, may run meanwhile
        answer = self.script.pop(0) if self.script else "sent"
        if answer == "away":
            raise Unavailable("the server is away")
        if answer == "bug":
            self.failed.add(row.id)
            raise RuntimeError("a bug in the transport")
        if answer in ("retry", "hold", "refused"):
            self.failed.add(row.id)
            return (
                Refused("no such recipient")
                if answer == "refused"
                else Retry("busy", 0.0 if answer == "hold" else None)
            )
        self.taken.append(row)
        return Sent()


def _write(sessions: sessionmaker[Session], clock: SimulatedClock, recipients: list[tuple[str, str]]) -> list[int]:
    with unit_of_work(sessions) as session:
        session.execute(delete(OutboxMessage).where(OutboxMessage.channel == CHANNEL))
    ids = []
    for number, (recipient, kind) in enumerate(recipients):
        with unit_of_work(sessions) as session:
            key = f"row-{number}"
            row = enqueue(session, Outgoing(CHANNEL, recipient, kind, "prerendered", {"subject": key, "body": key},
                                            key), clock.now())  # fmt: skip
            session.flush()
            ids.append(row.id)
    return ids


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    recipients=st.lists(
        st.tuples(st.sampled_from(RECIPIENTS), st.sampled_from([REPLY, STATUS])), min_size=1, max_size=12
    ),
    script=st.lists(_OUTCOMES, max_size=14),
    batch=st.integers(1, 4),
    connections=st.integers(1, 3),
)
def test_every_row_is_taken_once_or_parked_in_order_and_nothing_stays_leased(
    sessions, recipients, script, batch, connections
):
    clock = SimulatedClock(START)
    ids = _write(sessions, clock, recipients)
    transport = ScriptedTransport(script)
    loop = SenderLoop(OutboxDrain(sessions), transport, clock, (CHANNEL,), batch=batch, connections=connections,
                      max_attempts=MAX_ATTEMPTS)  # fmt: skip
    reported: Counter[tuple[int, str]] = Counter()
    for _ in range(len(script) + len(ids) + 2):
        report = asyncio.run(loop.drain_all())
        reported.update((s.row.id, s.status) for s in report.settled if s.status in (SENT, PARKED))
        assert loop._ahead is None, "no claim ahead outlives the passes"
        assert not transport.begun, "every row begun was ended with its pass"
        clock.advance(timedelta(hours=2))  # past any back-off or hold

    taken = [row.id for row in transport.taken]
    assert len(taken) == len(set(taken)), "a row was taken twice"
    with unit_of_work(sessions) as session:
        rows = session.execute(
            select(OutboxMessage.id, OutboxMessage.sent_at, OutboxMessage.parked_at, OutboxMessage.claimed_until,
                   ).where(OutboxMessage.channel == CHANNEL)
        ).all()  # fmt: skip
    superseded = {row_id for (row_id, outcome) in reported if outcome == SENT} - set(taken)
    assert max(reported.values(), default=1) == 1, "a row reported settled for good twice"
    for row_id, sent_at, parked_at, claimed_until in rows:
        assert (sent_at is not None) == (row_id in taken or row_id in superseded), "marked sent exactly when taken"
        assert reported[(row_id, SENT if sent_at is not None else PARKED)] == 1, f"#{row_id} not in a pass's report"
        assert (sent_at is None) == (parked_at is not None), "every row taken or parked, not both"
        assert claimed_until is None or sent_at is not None or parked_at is not None, "left leased"
    for recipient in RECIPIENTS:
        unfailed = [row.id for row in transport.taken if row.recipient == recipient and row.id not in transport.failed]
        assert unfailed == sorted(unfailed), f"{recipient}'s rows out of the order written: {unfailed}"
