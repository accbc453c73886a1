"""The outbox's queries find their rows through an index, not by reading every row ever sent.

The outbox keeps every row it ever sent, so a query that reads the whole table
grows with the bot's history.  Each query a sender, the intake or the status
board runs again and again is captured as SQLAlchemy sends it and explained on
the same database (SQLite's ``EXPLAIN QUERY PLAN``; PostgreSQL's ``EXPLAIN``
with its sequential scans priced out, since a test table is small enough to
read whole), with statistics and without: the plan must seek the index meant
for it by the column that narrows it to the rows wanted (the unsent rows, an
address, a game's place), not by the channel alone.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, insert, text

from bot.core.intake.reply_limit import ReplyBudget
from bot.core.messaging.delivery import public_recipient
from bot.core.messaging.outbox import OutboxDrain
from bot.core.messaging.status_board import STATUS, last_status_row
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage

NOW = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)


def _fill(sessions: Any, analyze: bool = True) -> None:
    """4,000 rows of history: replies and reports to 300 addresses, all sent but the last 10; and the
    status rows of 100 games."""
    rows = [
        {
            "message_id": f"<m{n}@test.invalid>", "channel": "email", "recipient": f"p{n % 300}@test.invalid",
            "kind": "reply" if n % 3 else "report", "template": "t", "data": {}, "context": {}, "game_id": None,
            "turn_number": None, "created_at": NOW - timedelta(minutes=3000 - n), "next_attempt_at": NOW,
            "attempts": 0, "last_error": None, "sent_at": NOW if n < 2990 else None,
        }
        for n in range(3000)
    ]  # fmt: skip
    rows += [
        {
            "message_id": f"<s{n}@test.invalid>", "channel": "discord", "recipient": public_recipient(f"g{n % 100}"),
            "kind": STATUS, "template": "t", "data": {}, "context": {}, "game_id": None, "turn_number": None,
            "created_at": NOW - timedelta(minutes=1000 - n), "next_attempt_at": NOW, "attempts": 0,
            "last_error": None, "sent_at": NOW,
        }
        for n in range(1000)
    ]  # fmt: skip
    with unit_of_work(sessions) as session:
        session.execute(insert(OutboxMessage), rows)
    if analyze:  # PostgreSQL's autovacuum does; on SQLite a host may
        with unit_of_work(sessions) as session:
            session.execute(text("ANALYZE"))


def _plans(sessions: Any, run: Callable[[], object], verb: str = "SELECT") -> list[str]:
    """What the database plans for each statement on ``outbox`` that ``run`` sends and ``verb`` begins."""
    engine = sessions.kw["bind"]
    sent: list[tuple[str, Any]] = []

    def capture(_connection: Any, _cursor: Any, statement: str, parameters: Any, *_rest: Any) -> None:
        if statement.lstrip().upper().startswith(verb) and ("FROM outbox" in statement or "UPDATE outbox" in statement):
            sent.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        run()
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    assert sent, "the query was not sent"
    plans = []
    with engine.connect() as connection:
        postgres = connection.dialect.name == "postgresql"
        if postgres:
            connection.execute(text("SET enable_seqscan = off"))
        cursor = connection.connection.cursor()
        for statement, parameters in sent:
            cursor.execute(("EXPLAIN " if postgres else "EXPLAIN QUERY PLAN ") + statement, parameters)
            plans.append("\n".join(str(row[0] if postgres else row[-1]) for row in cursor.fetchall()))
        cursor.close()
    return plans


def _seeks(plan: str, index: str, column: str) -> bool:
    """Whether ``plan`` finds the outbox's rows in ``index`` by a condition on ``column`` (and so
    does not read every row of a channel)."""
    lines = plan.splitlines()
    for number, line in enumerate(lines):
        if f"USING INDEX {index} (" in line or f"USING COVERING INDEX {index} (" in line:  # SQLite
            condition = line.split("(", 1)[1]
            return column in condition or (column == "recipient" and "<expr>=" in condition)
        if f"using {index} on outbox" in line or f"Index Scan on {index}" in line:  # PostgreSQL
            below = [text.strip() for text in lines[number + 1 : number + 3]]
            return any(text.startswith("Index Cond:") and column in text for text in below)
    return False


QUERIES: dict[str, tuple[Callable[[Any], object], str, str]] = {
    "the sender's due rows": (lambda sessions: OutboxDrain(sessions).due("email", NOW), "ix_outbox_unsent", "channel"),
    "whether anything waits on a channel": (
        lambda sessions: OutboxDrain(sessions).anything_waiting("email"), "ix_outbox_unsent", "channel"
    ),
    "the unsent count of a channel": (
        lambda sessions: OutboxDrain(sessions).unsent_count("email"), "ix_outbox_unsent", "channel"
    ),
    "the replies an address had lately (the reply rate limit, for every mail read)": (
        lambda sessions: ReplyBudget(sessions).replies_since("email", "P7@test.invalid", NOW - timedelta(hours=1)),
        "ix_outbox_replies", "recipient",
    ),
}  # fmt: skip


@pytest.mark.parametrize("analyze", [True, False], ids=["with statistics", "without"])
@pytest.mark.parametrize("query", QUERIES)
def test_the_outbox_query_seeks_its_rows_in_an_index(sessions, query, analyze):
    run, index, column = QUERIES[query]
    _fill(sessions, analyze)
    plans = _plans(sessions, lambda: run(sessions))
    assert _seeks(plans[0], index, column), plans[0]


def test_a_games_last_status_row_is_found_by_its_place(sessions, database_url):
    """On SQLite without statistics (the bot never runs ``ANALYZE``; with them it reads back from the
    newest row until the game's last status row, see :func:`last_status_row`)."""
    _fill(sessions, analyze=not database_url.endswith(".sqlite3"))

    def look_up() -> object:
        with unit_of_work(sessions) as session:
            return last_status_row(session, "discord", public_recipient("g1"))

    [plan] = _plans(sessions, look_up)
    assert _seeks(plan, "ix_outbox_replies", "recipient"), plan


@pytest.mark.parametrize("believed", ["every row unsent", "no row unsent"])
def test_the_waiting_rows_are_found_in_their_index_whatever_the_statistics_believe(sessions, believed):
    """Statistics gathered while a crunch's rows waited (autovacuum analyzes again only once a tenth
    of the table has changed) make the database believe most of the history unsent: with ``ORDER BY
    id`` PostgreSQL then walked the primary key through every row ever sent (27-48 ms a batch over
    19,000 rows).  Gathered while nothing waited, they make it believe ``ix_outbox_unsent`` empty:
    a claim that named the channel then read every waiting row of it in that index (20 ms a batch
    of 200 among 9,000).  Either way the due query, and whether anything waits, read that index's
    first rows, and the claim finds its rows by their ids."""
    _fill(sessions, analyze=False)
    with unit_of_work(sessions) as session:
        session.execute(
            text("UPDATE outbox SET sent_at = " + ("NULL" if believed == "every row unsent" else ":now")), {"now": NOW}
        )
        session.execute(text("ANALYZE"))
        session.execute(text("UPDATE outbox SET sent_at = CASE WHEN id % 10 = 0 THEN NULL ELSE :now END"), {"now": NOW})
    for ask in (
        lambda: OutboxDrain(sessions).due("email", NOW),
        lambda: OutboxDrain(sessions).anything_waiting("email"),
    ):
        [plan, *_] = _plans(sessions, ask)
        assert _seeks(plan, "ix_outbox_unsent", "channel"), plan
    [claim] = _plans(sessions, lambda: OutboxDrain(sessions).due("email", NOW), verb="UPDATE")
    assert "USING INTEGER PRIMARY KEY (rowid=?)" in claim or "using outbox_pkey on outbox" in claim, claim
