"""What an engine's events hand their listeners while a test watches."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event


@contextmanager
def heard(engine: Engine, name: str) -> Iterator[list[tuple[object, ...]]]:
    """The arguments of each `name` event of `engine` (a commit, a checkout, a statement about
    to run, ...) while inside, in order."""
    calls: list[tuple[object, ...]] = []

    def listener(*args: object) -> None:
        calls.append(args)

    event.listen(engine, name, listener)
    try:
        yield calls
    finally:
        event.remove(engine, name, listener)


@contextmanager
def statements_run(engine: Engine) -> Iterator[list[Any]]:
    """What the database is asked to run meanwhile: on SQLite every statement it runs, as SQLite
    reports it (one a row of an `executemany`, with its values); on PostgreSQL every statement
    SQLAlchemy sends (one for all the rows of an `executemany`; its event's arguments)."""
    if engine.dialect.name != "sqlite":
        with heard(engine, "before_cursor_execute") as sent:
            yield sent
        return
    statements: list[str] = []

    def traced(dbapi_connection: sqlite3.Connection, *_args: object) -> None:
        dbapi_connection.set_trace_callback(statements.append)

    def untraced(dbapi_connection: sqlite3.Connection, *_args: object) -> None:
        dbapi_connection.set_trace_callback(None)

    event.listen(engine, "checkout", traced)
    event.listen(engine, "checkin", untraced)
    try:
        yield statements
    finally:
        event.remove(engine, "checkout", traced)
        event.remove(engine, "checkin", untraced)
