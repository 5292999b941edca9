"""Statements compiled once and run on SQLite's driver, for the paths that run them on every
webhook delivery (its inserts) or agent tool call (a context push's reads and record).

Through SQLAlchemy, a small statement's execution and result cost more CPU than SQLite takes to
run it: on a context push, the statements' execution was a fifth of the whole push and the
statements themselves a twelfth (docs/performance.md). On SQLite these run on the driver's
connection, in the caller's transaction; on any other database SQLAlchemy runs them as before. No
SQLAlchemy event sees a statement run on the driver.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from sqlalchemy import Connection
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import Executable

# SQLite's driver binds `:name` parameters from a mapping, so one row's dict serves as it is.
_SQLITE_NAMED = SQLiteDialect_pysqlite(paramstyle="named")


def _driver(conn: Connection) -> sqlite3.Connection:
    """The driver's connection under `conn`, in the caller's transaction (begun when none is)."""
    if not conn.in_transaction():
        conn.begin()
    driver = conn.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection), "a connection in a transaction has its driver's"
    return driver


def _raised(conn: Connection, sql: str, exc: sqlite3.Error) -> StatementError:
    """`exc` as SQLAlchemy raises it (`IntegrityError`, `OperationalError`, ...), without the
    parameters, which may be large bodies."""
    return DBAPIError.instance(
        sql, None, exc, sqlite3.Error, hide_parameters=True, dialect=conn.dialect
    )


class Prepared:
    """One statement, compiled for SQLite's driver once, and run there on SQLite; SQLAlchemy runs
    it on any other database. Rows come back as plain tuples on both.

    A statement is taken only when SQLAlchemy would change none of its values on SQLite (no type
    of a parameter or a column has a processor there: integers, strings, text), so the driver's
    tuples are the rows SQLAlchemy would have answered.
    """

    def __init__(self, statement: Executable) -> None:
        compiled = cast(ClauseElement, statement).compile(dialect=_SQLITE_NAMED)
        assert isinstance(compiled, SQLCompiler)
        types = [column[3] for column in compiled._result_columns]
        types += [param.type for param in compiled.binds.values()]
        on_sqlite = [kind.dialect_impl(_SQLITE_NAMED) for kind in types]
        processed = [
            kind
            for kind in on_sqlite
            if kind.bind_processor(_SQLITE_NAMED) or kind.result_processor(_SQLITE_NAMED, None)
        ]
        if processed:
            raise TypeError(f"SQLAlchemy processes values of {processed} on SQLite: not prepared")
        self.statement = statement
        self.sql = str(compiled)
        # The statement's own values (`state = 'active'`), bound beside the caller's.
        self._fixed = {
            name: param.value for param, name in compiled.bind_names.items() if not param.required
        }

    def _params(self, params: Mapping[str, object]) -> Mapping[str, object]:
        return {**self._fixed, **params} if self._fixed else params

    def rows(self, conn: Connection, params: Mapping[str, object]) -> list[tuple[Any, ...]]:
        """Every row the statement answers."""
        if conn.dialect.name != "sqlite":
            return [tuple(row) for row in conn.execute(self.statement, params)]
        driver = _driver(conn)
        try:
            return driver.execute(self.sql, self._params(params)).fetchall()
        except sqlite3.Error as exc:
            raise _raised(conn, self.sql, exc) from exc

    def batches(
        self, conn: Connection, params: Mapping[str, object], size: int
    ) -> Iterator[Sequence[Sequence[Any]]]:
        """The rows the statement answers, ``size`` at a time, each batch read when asked for
        (a caller that builds as it reads need not hold every row at once)."""
        if conn.dialect.name != "sqlite":
            yield from conn.execute(self.statement, params).partitions(size)
            return
        driver = _driver(conn)
        try:
            cursor = driver.execute(self.sql, self._params(params))
            while batch := cursor.fetchmany(size):
                yield batch
        except sqlite3.Error as exc:
            raise _raised(conn, self.sql, exc) from exc

    def scalar(self, conn: Connection, params: Mapping[str, object]) -> Any:
        """The first column of the first row; None when there is no row."""
        found = self.rows(conn, params)
        return found[0][0] if found else None

    def run_many(self, conn: Connection, rows: Sequence[Mapping[str, object]]) -> int:
        """Run a statement that answers no rows once a row (``executemany``); how many rows it
        changed. For the inserts of every webhook delivery, which may be 25 MiB bodies."""
        if conn.dialect.name != "sqlite":
            return int(conn.execute(self.statement, rows).rowcount)
        driver = _driver(conn)
        try:
            many = rows if not self._fixed else [self._params(row) for row in rows]
            return int(driver.executemany(self.sql, many).rowcount)
        except sqlite3.Error as exc:
            raise _raised(conn, self.sql, exc) from exc

    def run(self, conn: Connection, params: Mapping[str, object]) -> None:
        """Run a statement that answers no rows."""
        if conn.dialect.name != "sqlite":
            conn.execute(self.statement, params)
            return
        driver = _driver(conn)
        try:
            driver.execute(self.sql, self._params(params))
        except sqlite3.Error as exc:
            raise _raised(conn, self.sql, exc) from exc
