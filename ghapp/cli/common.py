"""What every command shares: one engine per command, ready to use and disposed at the end; the
repository a command is about; the errors a person can fix; and what the configuration says about
the lessons a command shows."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from continual import persons
from continual.injections import Target, target_of
from continual.suppression import DEFAULT_SUPPRESS_DAYS
from continual.tables import Repository
from continual.times import from_ms
from ghapp.cli.base import CliError, Subparsers, current_repo, repo_from_remote
from ghapp.db import ensure_ready, is_sqlite, make_engine, reading
from ghapp.settings import Settings, SettingsError
from review.config import ConfigError, load_config


def guarded(action: Callable[[], int]) -> int:
    """Run ``action``; a problem the user can fix is printed on one line and exits 1."""
    try:
        code: int = action()
    except (CliError, ConfigError, persons.NotFound) as exc:
        print(f"hindsight: {exc}", file=sys.stderr)
        return 1
    return code


def minute(ms: int | None) -> str:
    """A stored time to the minute, UTC; ``-`` for none."""
    if ms is None:
        return "-"
    return from_ms(ms).strftime("%Y-%m-%d %H:%M")


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
    leave an empty database behind); with it, a SQLite file whose folder does not exist is
    refused too (a mistyped path never becomes a new empty database). A database that cannot be
    reached is a SettingsError naming HINDSIGHT_DATABASE_URL.
    """
    url = settings.database_url
    if is_sqlite(url):
        database = Path(make_url(url).database or "")
        if not create and not database.is_file():
            raise _no_database(url)
        if not database.parent.is_dir():
            raise SettingsError(
                f"HINDSIGHT_DATABASE_URL: no folder {database.parent} for the database "
                f"{database.name}: create it, or fix the URL ({url})"
            )
    engine = make_engine(url)
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


def unknown_repository(command: str, repo: str) -> int:
    """Say that no installed repository has this name; exit 1."""
    print(
        f"hindsight {command}: no repository named {repo!r} is installed here "
        "(give it as owner/name)",
        file=sys.stderr,
    )
    return 1


def repository_target(conn: Connection, full_name: str) -> Target | None:
    """The target of the repository named ``owner/name``, in whichever account holds it."""
    row = conn.execute(
        select(Repository.account_id, Repository.id).where(Repository.full_name == full_name)
    ).one_or_none()
    return None if row is None else target_of(conn, row.account_id, row.id)


def known_repository(engine: Engine, repo: str) -> Target:
    """The target of the repository ``owner/name``; a CliError when the store has none."""
    with reading(engine) as conn:
        target = repository_target(conn, repo)
    if target is None:
        raise CliError(f"no repository {repo} in the database: is the app installed on it?")
    return target


__all__ = [
    "CliError",
    "ConfigError",
    "Subparsers",
    "current_repo",
    "guarded",
    "known_repository",
    "minute",
    "open_engine",
    "repo_from_remote",
    "repository_target",
    "suppress_days",
    "unknown_repository",
]
