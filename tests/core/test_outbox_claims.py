"""Outbox leases (bot/core/messaging/outbox.py): several senders on one database never take the same row."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import select, update

from bot.core.messaging.outbox import OutboxDrain
from bot.core.model import commands as c
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
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


def _durability(connection) -> str:
    if connection.dialect.name == "sqlite":
        return str(connection.exec_driver_sql("PRAGMA synchronous").scalar())
    return str(connection.exec_driver_sql("SHOW synchronous_commit").scalar())


def test_the_sent_marker_commits_each_row_and_gives_its_connection_back_as_it_was(sessions):
    harness = Harness(sessions)
    harness.golden_strider_game("g1")
    now = harness.clock.now()
    drain = OutboxDrain(sessions)
    engine = sessions.kw["bind"]
    if engine.dialect.name == "postgresql":  # the test cluster runs with it off: make this database's default on
        with engine.connect() as connection:
            name = connection.exec_driver_sql("SELECT current_database()").scalar()
            connection.exec_driver_sql(f"ALTER DATABASE {name} SET synchronous_commit = on")
            connection.commit()
        engine.dispose()
    with engine.connect() as connection:
        before = _durability(connection)
    assert before in ("2", "on")  # the database's full durability (SQLite FULL, PostgreSQL on)
    rows = drain.due("email", now)
    assert len(rows) >= 2
    unsent = drain.unsent_count("email")
    marker = drain.marker().open()
    assert marker._connection is not None
    raw = marker._connection.connection.dbapi_connection  # the pooled connection itself
    try:
        assert _durability(marker._connection) in ("1", "off")  # NORMAL / off: see SentMarker
        marker.mark_sent(rows[0].id, now)
        marker.mark_sent(rows[0].id, now + timedelta(minutes=1))  # a second mark changes nothing
        # committed at once: another connection sees it while the marker is still open
        assert OutboxDrain(sessions).unsent_count("email") == unsent - 1
    finally:
        marker.close()
    cursor = raw.cursor()  # back in the pool as it was
    cursor.execute("PRAGMA synchronous" if engine.dialect.name == "sqlite" else "SHOW synchronous_commit")
    assert str(cursor.fetchone()[0]) == before
    cursor.close()
    with unit_of_work(sessions) as session:
        row = session.get_one(OutboxMessage, rows[0].id)
        assert (row.sent_at, row.attempts, row.claimed_until) == (now, 1, None)
        assert session.get_one(OutboxMessage, rows[1].id).sent_at is None


def test_a_claim_returns_the_same_rows_with_returning_and_without(sessions, monkeypatch):
    """The claim's ``UPDATE ... RETURNING`` gives the rows, in id order, as the update then a select
    does where the database has no RETURNING (SQLite before 3.35); rows sent or parked meanwhile,
    or leased to another sender, are in neither."""
    harness = Harness(sessions)
    harness.golden_strider_game("g1")
    for name in SEATS:
        harness.send(name, c.SubmitOrders("g1", "cards 10 8 6 4 2"))
    now = harness.clock.now()
    drain = OutboxDrain(sessions)
    with unit_of_work(sessions) as session:
        ids = sorted(
            session.scalars(
                select(OutboxMessage.id).where(
                    OutboxMessage.channel == "email",
                    OutboxMessage.sent_at.is_(None),
                    OutboxMessage.next_attempt_at <= now,
                )
            ).all()
        )
        assert len(ids) > 12
        session.execute(update(OutboxMessage).where(OutboxMessage.id == ids[0]).values(sent_at=now))
        session.execute(update(OutboxMessage).where(OutboxMessage.id == ids[1]).values(parked_at=now))
        session.execute(
            update(OutboxMessage).where(OutboxMessage.id == ids[2]).values(claimed_until=now + timedelta(minutes=1))
        )
    with unit_of_work(sessions) as session:
        engine = session.get_bind()
    dialect = engine.dialect
    returning = drain.due("email", now, limit=5)
    drain.release([row.id for row in returning])
    monkeypatch.setattr(dialect, "update_returning", False)
    selected = drain.due("email", now, limit=5)
    assert len(returning) == 5 and [row.id for row in returning] == sorted(row.id for row in returning)
    assert returning == selected  # every field: data, context, created_at as a select reads them
    rest = drain.due("email", now, limit=100)
    monkeypatch.setattr(dialect, "update_returning", True)
    assert drain.due("email", now) == []
    claimed = {row.id for row in (*selected, *rest)}
    assert claimed == set(ids[3:]) and len(rest) == len(ids) - 8  # not the sent, parked or leased row
