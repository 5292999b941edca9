"""Engine construction for SQLite (WAL, FULL) and PostgreSQL, and the Alembic migration helpers."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
SQLITE_BUSY_TIMEOUT_MS = 30_000


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


def _sqlite_begin(conn: Any) -> None:
    # IMMEDIATE takes the write lock up front, so two writers never deadlock on a lock upgrade.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for `url`; SQLite gets WAL, synchronous=FULL, foreign keys and IMMEDIATE writes."""
    if is_sqlite(url):
        database = make_url(url).database
        if not database or database == ":memory:":
            raise ValueError("SQLite needs a file database: sqlite:///path/to/hindsight.db")
        Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False}, **kwargs)
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    kwargs.setdefault("pool_size", 10)
    return create_engine(url, **kwargs)


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision(url: str) -> str | None:
    return ScriptDirectory.from_config(alembic_config(url)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (idempotent)."""
    config = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "head")


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
