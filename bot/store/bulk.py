"""Writing many rows of one plain INSERT: ``COPY`` on PostgreSQL, an executemany elsewhere.

A deadline crunch writes nine outbox rows a game, a batch of games at a
time.  Written as an executemany, PostgreSQL runs each row as a statement of
its own (bind, execute, and an executor started and ended for one row), and
the driver builds each row's messages: about 53 us of the server's CPU and
60 us of the bot's a report row (SQLAlchemy's executemany), against 40 and
33 us as a copy (deploy/PERFORMANCE.md, fifth session).  ``COPY ... FROM STDIN`` streams the same rows into
the table in one command, in the order given (so ids rise in that order, as
they would row by row), with the columns' server defaults and every
constraint, index and trigger as for an INSERT, inside the caller's
transaction.

:func:`execute_many` takes the Core statement the caller would have executed
and copies only what an INSERT would write the same way: a plain
``insert(table)`` (no ``RETURNING``, no inline values) of rows that name the
same columns, where no column left out has a default computed in Python.
Each value goes through its column type's bind processing first (so a JSON
column gets the same text, a timestamp the same UTC instant).  Anything
else, any other database or driver, and batches below ``COPY_MIN_ROWS``
(where the statement's one round trip is cheaper than the copy's two), is
executed as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect, Executable, Insert, Table
from sqlalchemy.exc import DBAPIError, StatementError

COPY_MIN_ROWS = 10
"""Fewer rows than this are inserted as before (an intake's reply or two)."""

_Processors = list[Callable[[Any], Any] | None]
_processors: dict[tuple[Table, str, tuple[str, ...]], _Processors] = {}


def execute_many(connection: Connection, statement: Executable, rows: Sequence[dict[str, Any]]) -> None:
    """Execute ``statement`` for each of ``rows`` (in that order) on ``connection``: as ``COPY``
    where PostgreSQL's psycopg driver takes it and the copy writes what the INSERT would (see the
    module docstring), else ``connection.execute(statement, rows)``."""
    table = _copyable(connection, statement, rows)
    if table is None:
        connection.execute(statement, list(rows))
        return
    columns = tuple(rows[0])
    processors = _column_processors(connection.dialect, table, columns)
    names = ", ".join(connection.dialect.identifier_preparer.quote(table.columns[key].name) for key in columns)
    target = connection.dialect.identifier_preparer.format_table(table)
    command = f"COPY {target} ({names}) FROM STDIN"
    cursor = connection.connection.cursor()  # the driver's cursor, in the transaction the connection holds
    try:
        with cursor.copy(command) as copy:
            for row in rows:
                values = (row[key] for key in columns)
                copy.write_row([v if p is None else p(v) for p, v in zip(processors, values, strict=True)])
    except connection.dialect.loaded_dbapi.Error as exc:
        raise _wrapped(connection, command, exc, cursor) from exc
    finally:
        cursor.close()


def _wrapped(connection: Connection, command: str, error: Any, cursor: Any) -> StatementError:
    """The error SQLAlchemy raises for the INSERT (an ``IntegrityError`` for a key already taken, an
    ``OperationalError`` for a server gone, which also invalidates the connection, as it would)."""
    dialect = connection.dialect
    lost = dialect.is_disconnect(error, connection.connection.dbapi_connection, cursor)
    if lost:
        connection.invalidate(error)
    wrapped: StatementError = DBAPIError.instance(
        command, None, error, dialect.loaded_dbapi.Error, connection_invalidated=lost, dialect=dialect
    )
    return wrapped


def _copyable(connection: Connection, statement: Executable, rows: Sequence[dict[str, Any]]) -> Table | None:
    """The table ``statement`` inserts into if ``rows`` may be copied into it instead; else None."""
    if len(rows) < COPY_MIN_ROWS or connection.dialect.name != "postgresql" or connection.dialect.driver != "psycopg":
        return None
    if not isinstance(statement, Insert) or statement._returning or statement._values or statement._multi_values:
        return None
    if statement.select is not None or statement._post_values_clause is not None:
        return None  # INSERT ... SELECT, ON CONFLICT: only the statement says what to do
    table = statement.table
    if not isinstance(table, Table):
        return None
    columns = set(rows[0])
    if any(set(row) != columns for row in rows) or not columns <= set(table.columns.keys()):
        return None
    if any(column.default is not None for column in table.columns if column.key not in columns):
        return None  # a default computed in Python: only the INSERT fills it in
    return table


def _column_processors(dialect: Dialect, table: Table, columns: tuple[str, ...]) -> _Processors:
    """Each column's bind processing for ``dialect`` (None: the value goes as it is), built once."""
    key = (table, dialect.name, columns)
    found = _processors.get(key)
    if found is None:
        found = [table.columns[name].type._cached_bind_processor(dialect) for name in columns]
        _processors[key] = found
    return found
