"""What every command shares: one engine per command, ready to use and disposed at the end."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

from ghapp.db import ensure_ready, make_engine
from ghapp.settings import Settings


@contextmanager
def open_engine(settings: Settings, *, ready: bool = True) -> Iterator[Engine]:
    """An engine for one command, migrated (SQLite) or checked, and disposed at the end."""
    engine = make_engine(settings.database_url)
    try:
        if ready:
            ensure_ready(engine)
        yield engine
    finally:
        engine.dispose()
