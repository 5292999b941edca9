"""What every command shares: one engine per command, ready to use and disposed at the end, and
what the configuration says about the lessons a command shows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from continual.suppression import DEFAULT_SUPPRESS_DAYS
from ghapp.db import ensure_ready, is_sqlite, make_engine
from ghapp.settings import Settings, SettingsError
from review.config import ConfigError, load_config


def _no_database(url: str) -> SettingsError:
    return SettingsError(
        f"no database at {make_url(url).database} (HINDSIGHT_DATABASE_URL={url}): nothing has "
        "been recorded here yet. Run this where `hindsight serve` keeps its database, or set "
        "HINDSIGHT_DATABASE_URL to it; `hindsight migrate` creates a new one"
    )


def unreachable(url: str, exc: DBAPIError) -> SettingsError:
    """The one-line message for a database that refused or could not be reached."""
    shown = make_url(url).render_as_string(hide_password=True)
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else type(exc).__name__
    return SettingsError(f"HINDSIGHT_DATABASE_URL: cannot use the database at {shown}: {reason}")


@contextmanager
def open_engine(
    settings: Settings, *, ready: bool = True, create: bool = False
) -> Iterator[Engine]:
    """An engine for one command, migrated (SQLite) or checked, and disposed at the end.

    Without ``create`` a SQLite file that does not exist yet is refused (read-only commands never
    leave an empty database behind); a database that cannot be reached is a SettingsError naming
    HINDSIGHT_DATABASE_URL.
    """
    url = settings.database_url
    if not create and is_sqlite(url) and not Path(make_url(url).database or "").is_file():
        raise _no_database(url)
    try:
        engine = make_engine(url)
    except OSError as exc:
        raise SettingsError(
            f"HINDSIGHT_DATABASE_URL: cannot create the folder of {make_url(url).database}: "
            f"{exc.strerror}"
        ) from None
    try:
        try:
            with engine.connect():
                pass
            if ready:
                ensure_ready(engine)
        except DBAPIError as exc:
            raise unreachable(url, exc) from None
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
