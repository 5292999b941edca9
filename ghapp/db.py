"""Engine construction for SQLite (WAL, FULL) and PostgreSQL, and the Alembic migration helpers."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

if TYPE_CHECKING:  # alembic is imported when a migration is read or run, not by every command
    from alembic.config import Config

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
SQLITE_BUSY_TIMEOUT_MS = 30_000
READONLY_OPTION = "hindsight_readonly"


class NotMigrated(Exception):
    """The database schema is behind the code; `hindsight migrate` brings it up to date."""


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event decide how transactions start (see _sqlite_begin).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


def _writer_connection_class(lock: threading.Lock) -> type[sqlite3.Connection]:
    """A sqlite3 connection class whose write transactions take `lock` first.

    Within one process, writers queue on the lock (woken at once when it is released) instead of
    in SQLite's busy handler, which sleeps for growing intervals; other processes still meet the
    busy handler. The lock is released when the transaction commits, rolls back or closes.
    """

    class WriterConnection(sqlite3.Connection):
        holds_lock = False

        def begin_write(self) -> None:
            if not lock.acquire(timeout=SQLITE_BUSY_TIMEOUT_MS / 1000):
                raise sqlite3.OperationalError(
                    "database is locked: waited for this process's writer"
                )
            self.holds_lock = True
            try:
                self.execute("BEGIN IMMEDIATE")
            except BaseException:
                self._release()
                raise

        def _release(self) -> None:
            if self.holds_lock:
                self.holds_lock = False
                lock.release()

        def commit(self) -> None:
            try:
                super().commit()
            finally:
                self._release()

        def rollback(self) -> None:
            try:
                super().rollback()
            finally:
                self._release()

        def close(self) -> None:
            try:
                super().close()
            finally:
                self._release()

    return WriterConnection


def _sqlite_begin(conn: Any) -> None:
    # Writes start IMMEDIATE, taking the write lock up front, so two writers never deadlock on a
    # lock upgrade; a connection opened with `reading()` starts a DEFERRED one (WAL: no lock).
    if conn.get_execution_options().get(READONLY_OPTION, False):
        conn.exec_driver_sql("BEGIN")
    else:
        conn.connection.dbapi_connection.begin_write()


def reading(engine: Engine) -> Connection:
    """A connection for reads only: on SQLite it takes no write lock, so it never blocks writers.

    Writing through it is a mistake SQLite reports as `database is locked` under contention.
    """
    return engine.connect().execution_options(**{READONLY_OPTION: True})


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets WAL, synchronous=FULL, foreign keys and IMMEDIATE writes."""
    if is_sqlite(url):
        database = make_url(url).database
        if not database or database == ":memory:":
            raise ValueError("SQLite needs a file database: sqlite:///path/to/hindsight.db")
        Path(database).parent.mkdir(parents=True, exist_ok=True)
        factory = _writer_connection_class(threading.Lock())
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "factory": factory}, **kwargs
        )
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    kwargs.setdefault("pool_size", 10)
    return create_engine(url, **kwargs)


class Checkpointer:
    """Copies the SQLite WAL back into the database from a thread of its own, every `interval_s`.

    SQLite otherwise checkpoints inside whichever commit pushes the WAL past 1,000 pages, and that
    commit (and every delivery waiting behind it) stalls for the copy and its fsync. A PASSIVE
    checkpoint never blocks writers, so doing it here keeps the commits on the request path short.
    """

    def __init__(self, url: str, *, interval_s: float = 0.1) -> None:
        self.path = make_url(url).database or ""
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            connection.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            while not self._stop.wait(self.interval_s):
                try:
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as exc:
                    log.warning("checkpoint failed", extra={"error": str(exc)})
        finally:
            connection.close()


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision(url: str) -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config(url)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def migrate(engine: Engine) -> int:
    """Bring the schema to the newest migration (idempotent); answers how many were applied."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    config = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as conn:
        before = MigrationContext.configure(conn).get_current_revision()
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
    script = ScriptDirectory.from_config(config)
    head = script.get_current_head()
    if head is None or before == head:
        return 0
    return len(list(script.iterate_revisions(head, before or "base")))


def check_migrated(engine: Engine) -> None:
    url = engine.url.render_as_string(hide_password=False)
    current, head = current_revision(engine), head_revision(url)
    if current != head:
        raise NotMigrated(
            f"the database is at migration {current or 'none'}, the code needs {head}: "
            "run `hindsight migrate`"
        )


def ensure_ready(engine: Engine) -> None:
    """Refuse to run on an unmigrated database; the embedded SQLite default migrates itself."""
    url = engine.url.render_as_string(hide_password=False)
    if is_sqlite(url):
        migrate(engine)
        return
    check_migrated(engine)
