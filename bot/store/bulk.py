"""Writing many rows of one statement: ``COPY`` on PostgreSQL, the driver's executemany on SQLite.

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

On SQLite, SQLAlchemy's executemany builds every row's parameters through
its general machinery (500 rows, min of 20 runs: an outbox ``INSERT`` 30.3 us
a row against 23.6 us here, an ``UPDATE`` with an expression and typed
parameters 11.4 against 7.9 us; an intake batch writes some six rows a mail,
deploy/PERFORMANCE.md, eighth session).  There
:func:`execute_many` compiles the statement once for the rows' keys and hands
the driver's ``executemany`` the rows' values in the statement's order, each
through its bind's type processing (the same text for a JSON column, the
same stored form for a timestamp), for any ``INSERT``, ``UPDATE`` or
``DELETE`` without ``RETURNING`` whose every parameter is a row's value or
carries its own, and where nothing is computed in Python per row (no
column default, no ``IN`` list expanded); otherwise, and below
``COPY_MIN_ROWS`` rows, the statement is executed as before.  Neither path
fires SQLAlchemy's ``before_cursor_execute`` events: the rows go to the
driver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Delete, Dialect, Executable, Insert, Table, Update
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql.compiler import SQLCompiler

COPY_MIN_ROWS = 10
"""Fewer rows than this are inserted as before (an intake's reply or two)."""

_Processors = list[Callable[[Any], Any] | None]
_processors: dict[tuple[Table, str, tuple[str, ...]], _Processors] = {}


@dataclass(frozen=True)
class _Plan:
    """A statement compiled once for rows with given keys: its SQL, and where each parameter comes from."""

    sql: str
    sources: tuple[tuple[str | None, Any, Callable[[Any], Any] | None], ...]
    """For each parameter in order: the row's key and its value's processing, or (None, the bind's own
    value processed, None)."""


_plans: dict[tuple[Executable, str, tuple[str, ...]], _Plan | None] = {}
_PLANS_KEPT = 256
"""At most this many compiled statements are kept (the bot's are a few module constants)."""
_UNKNOWN = object()


def execute_many(connection: Connection, statement: Executable, rows: Sequence[dict[str, Any]]) -> None:
    """Execute ``statement`` for each of ``rows`` (in that order) on ``connection``: as ``COPY``
    where PostgreSQL's psycopg driver takes it and the copy writes what the INSERT would, as the
    driver's executemany where SQLite's pysqlite takes it the same way (see the module docstring),
    else ``connection.execute(statement, rows)``."""
    if _sqlite_executemany(connection, statement, rows):
        return
    table = _copyable(connection, statement, rows)
    if table is None:
        connection.execute(statement, list(rows))
        return
    columns = tuple(rows[0])
    processors = _column_processors(connection.dialect, table, columns)
    names = ", ".join(connection.dialect.identifier_preparer.quote(table.columns[key].name) for key in columns)
    target = connection.dialect.identifier_preparer.format_table(table)
    command = f"COPY {target} ({names}) FROM STDIN"
    with _driver_cursor(connection, command) as cursor, cursor.copy(command) as copy:
        for row in rows:
            values = (row[key] for key in columns)
            copy.write_row([v if p is None else p(v) for p, v in zip(processors, values, strict=True)])


def _sqlite_executemany(connection: Connection, statement: Executable, rows: Sequence[dict[str, Any]]) -> bool:
    """Execute ``statement`` for ``rows`` as one driver executemany where SQLite's pysqlite takes it
    the same way (module docstring); False, and nothing done, where it does not."""
    dialect = connection.dialect
    if len(rows) < COPY_MIN_ROWS or dialect.name != "sqlite" or dialect.driver != "pysqlite":
        return False
    if not _same_keys(rows):
        return False  # rows that differ: the statement's own error, or its own handling
    keys = tuple(rows[0])
    plan = _plan(dialect, statement, keys)
    if plan is None:
        return False
    sources = plan.sources
    values = [
        [
            fixed if key is None else row[key] if processor is None else processor(row[key])
            for key, fixed, processor in sources
        ]
        for row in rows
    ]
    with _driver_cursor(connection, plan.sql) as cursor:
        cursor.executemany(plan.sql, values)
    return True


def _plan(dialect: Dialect, statement: Executable, keys: tuple[str, ...]) -> _Plan | None:
    """``statement`` compiled for rows of ``keys``, built once; None when its rows cannot go to the
    driver as they are (``RETURNING``, a value computed in Python, an expanded or literal parameter,
    a parameter that neither a row nor the statement gives)."""
    cache_key = (statement, dialect.name, keys)
    known = _plans.get(cache_key, _UNKNOWN)  # one look-up: another thread may clear the cache meanwhile
    if known is not _UNKNOWN:
        return known  # type: ignore[return-value]
    plan: _Plan | None = None
    if isinstance(statement, Insert | Update | Delete) and not statement._returning:
        compiled = statement.compile(dialect=dialect, column_keys=list(keys))
        if isinstance(compiled, SQLCompiler):
            plan = _sources(compiled, set(keys))
    if len(_plans) >= _PLANS_KEPT:
        _plans.clear()
    _plans[cache_key] = plan
    return plan


def _sources(compiled: SQLCompiler, keys: set[str]) -> _Plan | None:
    if compiled.insert_prefetch or compiled.update_prefetch or compiled.literal_execute_params:
        return None  # defaults computed in Python, or values written into the SQL: only the statement does that
    if compiled.escaped_bind_names or compiled.positiontup is None:
        return None
    sources: list[tuple[str | None, Any, Callable[[Any], Any] | None]] = []
    for name in compiled.positiontup:
        bind = compiled.binds[name]
        if bind.expanding or bind.callable is not None:
            return None
        processor = bind.type._cached_bind_processor(compiled.dialect)
        if name in keys:
            sources.append((name, None, processor))
        elif not bind.required:
            sources.append((None, bind.value if processor is None else processor(bind.value), None))
        else:
            return None  # a parameter no row gives: the statement's own error
    return _Plan(compiled.string, tuple(sources))


def _same_keys(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether every row names the same keys as the first."""
    keys = set(rows[0])
    return all(row.keys() == keys for row in rows)


@contextmanager
def _driver_cursor(connection: Connection, command: str) -> Iterator[Any]:
    """The driver's cursor, in the transaction ``connection`` holds, closed after; the driver's error
    for ``command`` raised as SQLAlchemy raises it (:func:`_wrapped`)."""
    cursor = connection.connection.cursor()
    try:
        yield cursor
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
    if not _same_keys(rows) or not columns <= set(table.columns.keys()):
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
