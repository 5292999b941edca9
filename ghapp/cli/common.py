"""What every command shares: one engine per command, ready to use and disposed at the end, and
what the configuration says about the lessons a command shows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

from continual.suppression import DEFAULT_SUPPRESS_DAYS
from ghapp.db import ensure_ready, make_engine
from ghapp.settings import Settings
from review.config import ConfigError, load_config


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


def suppress_days(settings: Settings) -> int:
    """How long a dismissal keeps its mechanism out: `[writeback] suppress_days` of the
    configuration when there is one, the default otherwise. A broken file raises ConfigError."""
    if not settings.config.is_file():
        return DEFAULT_SUPPRESS_DAYS
    return load_config(settings.config).writeback.suppress_days


__all__ = ["ConfigError", "open_engine", "suppress_days"]
