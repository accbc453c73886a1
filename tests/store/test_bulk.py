"""Many rows of one statement (bot/store/bulk.py): a COPY on PostgreSQL and the driver's executemany on
SQLite write what the statement writes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Column, Engine, Integer, MetaData, String, Table, bindparam, event, insert, select
from sqlalchemy.exc import IntegrityError, OperationalError, StatementError

from bot.store import bulk
from bot.store.db import make_engine
from bot.store.models import OutboxMessage
from tests.support.database import fresh_postgres_database

OUTBOX: Table = OutboxMessage.__table__  # type: ignore[assignment]
NOW = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)


def _row(number: int, **changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "message_id": f"<m{number}@test.invalid>", "channel": "email", "recipient": f"p{number}@test.invalid",
        "kind": "report", "template": "report",
        "data": {"game": "g1", "turn": number, "text": "é\t\"quoted\"\\ and\nnew line", "none": None, "list": [1, 2.5]},
        "context": {}, "game_id": None, "turn_number": number,
        # a SQL NULL for most rows, a redacted copy (a message with a secret) for every other
        "redacted_data": {"game": "g1", "secret": "(removed once sent)"} if number % 2 == 0 else None,
        "created_at": NOW + timedelta(seconds=number), "next_attempt_at": NOW, "attempts": 0, "last_error": None,
        "sent_at": None,
    }  # fmt: skip
    return row | changes


@pytest.fixture
def engine(database_url: str) -> Any:
    made = make_engine(database_url)
    yield made
    made.dispose()


def _statements(engine: Engine) -> list[str]:
    """The statements SQLAlchemy sends from now on (a COPY or a driver's executemany is not among them)."""
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, statement, *_rest: seen.append(statement))
    return seen


def _stored(engine: Engine) -> list[dict[str, Any]]:
    with engine.connect() as connection:
        rows = connection.execute(select(OUTBOX).order_by(OUTBOX.c.id)).mappings().all()
    return [dict(row) for row in rows]


def test_the_rows_read_back_as_an_insert_writes_them_in_the_order_given(engine, database_url):
    count = bulk.COPY_MIN_ROWS + 5
    inserted = [_row(n) for n in range(count)]
    copied = [_row(n, message_id=f"<c{n}@test.invalid>", last_error="é, twice" if n % 2 else None)
              for n in reversed(range(count))]  # fmt: skip
    statements = _statements(engine)
    with engine.begin() as connection:
        connection.execute(insert(OUTBOX), inserted)  # what the INSERT writes, to compare with
    before = len(statements)
    with engine.begin() as connection:
        bulk.execute_many(connection, insert(OUTBOX), copied)
    assert len(statements) == before  # to the driver: a COPY, or SQLite's executemany
    stored = _stored(engine)
    assert len(stored) == 2 * count
    first, second = stored[:count], stored[count:]
    assert [row["message_id"] for row in second] == [row["message_id"] for row in copied]  # ids rise in order
    for written, given in zip(second, copied, strict=True):
        assert written == {**given, "id": written["id"], "parked_at": None, "claimed_until": None, "claimed_by": None}
    same = {key for key in first[0] if key not in ("id", "message_id", "last_error")}
    by_turn = {row["turn_number"]: row for row in first}
    for row in second:
        assert {key: row[key] for key in same} == {key: by_turn[row["turn_number"]][key] for key in same}
    assert second[0]["created_at"].tzinfo is not None


def test_a_copy_is_part_of_the_callers_transaction(engine):
    with pytest.raises(RuntimeError), engine.begin() as connection:
        bulk.execute_many(connection, insert(OUTBOX), [_row(n) for n in range(bulk.COPY_MIN_ROWS)])
        raise RuntimeError("the caller fails after the copy")
    assert _stored(engine) == []


def test_a_key_already_taken_raises_what_the_insert_raises(engine):
    rows = [_row(n) for n in range(bulk.COPY_MIN_ROWS)]
    with engine.begin() as connection:
        bulk.execute_many(connection, insert(OUTBOX), rows)
    with pytest.raises(IntegrityError), engine.begin() as connection:
        bulk.execute_many(connection, insert(OUTBOX), [_row(100 + n) for n in range(bulk.COPY_MIN_ROWS)] + rows[:1])
    assert len(_stored(engine)) == bulk.COPY_MIN_ROWS  # nothing of the failed batch is kept
    with engine.begin() as connection:  # and the connection works on
        bulk.execute_many(connection, insert(OUTBOX), [_row(200 + n) for n in range(bulk.COPY_MIN_ROWS)])
    assert len(_stored(engine)) == 2 * bulk.COPY_MIN_ROWS


@pytest.mark.parametrize("case", ["few rows", "returning", "a Python default left out", "inline values"])
def test_what_a_copy_would_not_write_the_same_way_is_executed_as_the_statement(engine, database_url, case):
    """Each of these goes to SQLAlchemy as the statement (its INSERT is seen); on SQLite, inline values
    go to the driver's executemany with the rows (and are written: see the test after this one)."""
    metadata = MetaData()
    with_default = Table(
        "bulk_defaults", metadata, Column("id", Integer, primary_key=True), Column("name", String(20)),
        Column("kind", String(20), default="made in Python"),
    )  # fmt: skip
    metadata.create_all(engine)
    rows = [_row(n) for n in range(bulk.COPY_MIN_ROWS)]
    statement: Any = insert(OUTBOX)
    if case == "few rows":
        rows = rows[: bulk.COPY_MIN_ROWS - 1]
    elif case == "returning":
        statement = insert(OUTBOX).returning(OUTBOX.c.id)
    elif case == "a Python default left out":
        statement, rows = insert(with_default), [{"name": f"n{n}"} for n in range(bulk.COPY_MIN_ROWS)]
    elif case == "inline values":
        statement = insert(OUTBOX).values(kind="notice")
    statements = _statements(engine)
    with engine.begin() as connection:
        bulk.execute_many(connection, statement, rows)
    seen = any(text.lstrip().upper().startswith("INSERT") for text in statements)
    assert seen == (case != "inline values" or database_url.startswith("postgresql"))
    if case == "a Python default left out":
        with engine.connect() as connection:
            kinds = connection.execute(select(with_default.c.kind)).scalars().all()
        assert kinds == ["made in Python"] * bulk.COPY_MIN_ROWS
    else:
        assert len(_stored(engine)) == len(rows)


def test_rows_that_name_other_columns_get_the_statements_own_error(engine):
    rows = [_row(n) for n in range(bulk.COPY_MIN_ROWS)]
    rows[-1] = {key: value for key, value in rows[-1].items() if key != "last_error"}
    with pytest.raises(StatementError, match="last_error"), engine.begin() as connection:
        bulk.execute_many(connection, insert(OUTBOX), rows)
    assert _stored(engine) == []


def _unkind(row: dict[str, Any]) -> dict[str, Any]:
    """The row without its kind (a row's value would take the place of the statement's own)."""
    return {key: value for key, value in row.items() if key != "kind"}


def test_a_statements_own_values_and_expressions_are_written_as_the_statement_writes_them(engine, database_url):
    """An UPDATE with an expression, a value of its own and a typed parameter (as the inbox's "done"
    mark), and an INSERT with a value of its own: the same rows whether executed by SQLAlchemy or by
    execute_many (on SQLite the driver's executemany: SQLAlchemy sees no statement)."""
    count = bulk.COPY_MIN_ROWS
    with engine.begin() as connection:
        connection.execute(insert(OUTBOX).values(kind="notice"), [_unkind(_row(n)) for n in range(count)])
        bulk.execute_many(
            connection, insert(OUTBOX).values(kind="notice"), [_unkind(_row(n + count)) for n in range(count)]
        )
    mark = (
        OUTBOX.update()
        .where(OUTBOX.c.turn_number == bindparam("turn"))
        .values(attempts=OUTBOX.c.attempts + 1, last_error="é: given by the statement",
                sent_at=bindparam("at", type_=OUTBOX.c.sent_at.type), data=bindparam("data", type_=OUTBOX.c.data.type))
    )  # fmt: skip

    def marks(numbers: range) -> list[dict[str, Any]]:
        return [{"turn": n, "at": NOW + timedelta(minutes=n % count), "data": {"n": n % count, "é": [None]}}
                for n in numbers]  # fmt: skip

    statements = _statements(engine)
    with engine.begin() as connection:
        connection.execute(mark, marks(range(count)))
    executed = len(statements)
    with engine.begin() as connection:
        bulk.execute_many(connection, mark, marks(range(count, 2 * count)))
    assert (len(statements) == executed) == (not database_url.startswith("postgresql"))
    stored = _stored(engine)
    assert len(stored) == 2 * count
    different = ("id", "message_id", "recipient", "turn_number", "created_at")
    for by_statement, by_many in zip(stored[:count], stored[count:], strict=True):
        assert by_many["kind"] == "notice" and by_many["attempts"] == 1 and by_many["sent_at"].tzinfo is not None
        assert {k: v for k, v in by_many.items() if k not in different} == {
            k: v for k, v in by_statement.items() if k not in different
        }
    with engine.connect() as connection:  # the stored form compares as SQLAlchemy's does
        later = connection.execute(select(OUTBOX.c.turn_number).where(OUTBOX.c.sent_at > NOW)).scalars().all()
    assert sorted(later) == sorted(n for n in range(2 * count) if n % count)


def test_an_expanded_in_list_gets_the_statements_own_error(engine):
    """SQLAlchemy refuses an executemany with an IN list: execute_many leaves it to SQLAlchemy."""
    statement = OUTBOX.update().where(OUTBOX.c.turn_number.in_(bindparam("turns", expanding=True)))
    with pytest.raises(StatementError, match="expanding"), engine.begin() as connection:
        bulk.execute_many(
            connection, statement.values(attempts=bindparam("n")),
            [{"turns": [n, n + 1], "n": n} for n in range(bulk.COPY_MIN_ROWS)],
        )  # fmt: skip


def test_a_statement_other_than_an_insert_is_executed_as_it_is(engine):
    with engine.begin() as connection:
        bulk.execute_many(connection, insert(OUTBOX), [_row(n) for n in range(bulk.COPY_MIN_ROWS)])
    statement = OUTBOX.update().where(OUTBOX.c.turn_number == bindparam("turn")).values(attempts=bindparam("tries"))
    with engine.begin() as connection:
        bulk.execute_many(connection, statement, [{"turn": n, "tries": n + 1} for n in range(bulk.COPY_MIN_ROWS)])
    assert [row["attempts"] for row in _stored(engine)] == [n + 1 for n in range(bulk.COPY_MIN_ROWS)]


def test_a_server_gone_during_a_copy_raises_what_the_insert_raises_and_the_connection_is_dropped(
    postgres, postgres_template
):
    engine = make_engine(fresh_postgres_database(postgres, postgres_template))
    try:
        with engine.connect() as connection:
            backend = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            connection.commit()
            postgres.execute(f"SELECT pg_terminate_backend({backend})")
            with pytest.raises(OperationalError):
                bulk.execute_many(connection, insert(OUTBOX), [_row(n) for n in range(bulk.COPY_MIN_ROWS)])
            assert connection.invalidated  # the pool will not hand this connection out again
        with engine.begin() as connection:  # a new connection works
            bulk.execute_many(connection, insert(OUTBOX), [_row(n) for n in range(bulk.COPY_MIN_ROWS)])
        assert len(_stored(engine)) == bulk.COPY_MIN_ROWS
    finally:
        engine.dispose()
