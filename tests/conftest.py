"""Shared fixtures: a migrated database per test (SQLite, or PostgreSQL when configured)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import Engine, create_engine, make_url, text

from ghapp.db import make_engine, migrate
from tests.support.browser import browser  # noqa: F401  (the headless Chromium fixture)
from tests.support.ledger_page import ledger_url, seeded_ledger  # noqa: F401  (/ledger fixtures)
from tests.support.simulator import WEBHOOK_SECRET  # noqa: F401  (re-exported: one secret)

# Real GitHub webhook payloads (octokit's examples, MIT: see fixtures/webhooks/SOURCE.md).
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "webhooks"


POSTGRES_URL = os.environ.get("HINDSIGHT_TEST_DATABASE_URL")
# A hook run in a test answers from the store itself: no warm helper outlives the test (the
# helper's own tests start theirs, each in a folder of its own, and stop it).
os.environ.setdefault("HINDSIGHT_HOOK_HELPER_IDLE_S", "0")

# Property tests check what holds, not how fast one example runs: on a machine shared with other
# work (two test workers, CI) a 200 ms deadline per example fails tests that are right.
settings.register_profile("hindsight", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("hindsight")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="run the longer variants too")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="longer variant: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine | None]:
    """A connection to the test PostgreSQL server that creates and drops databases (None on
    SQLite)."""
    if not POSTGRES_URL:
        yield None
        return
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


@pytest.fixture(scope="session")
def migrated_template(
    tmp_path_factory: pytest.TempPathFactory, postgres_admin: Engine | None
) -> Iterator[str]:
    """A database migrated once per test process, which each test's database is copied from:
    a SQLite file, or a PostgreSQL database that `CREATE DATABASE … TEMPLATE` copies. Running
    every migration for every test cost a third of a second or more a test."""
    if postgres_admin is None:
        path = tmp_path_factory.mktemp("template") / "hindsight.db"
        template = make_engine(f"sqlite:///{path}")
        migrate(template)
        template.dispose()  # the last connection closed folds the WAL into the one file
        assert not path.with_name(f"{path.name}-wal").exists(), "the template is not one file"
        yield str(path)
        return
    name = f"hindsight_template_{uuid.uuid4().hex[:12]}"
    with postgres_admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    template = make_engine(database_in(name))
    migrate(template)
    template.dispose()  # a template database is copied only while no one is connected to it
    yield name
    with postgres_admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def database_in(name: str) -> str:
    """The test server's URL with the database `name` in place of its own."""
    return make_url(POSTGRES_URL or "").set(database=name).render_as_string(hide_password=False)


@pytest.fixture
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, postgres_admin: Engine | None
) -> Iterator[str]:
    """A fresh database: a SQLite file, or on the test PostgreSQL server a new database. A test
    that uses `engine` gets it migrated already, a copy of `migrated_template`; any other test
    gets it empty (on PostgreSQL, a new schema of the server's own database)."""
    migrated = "engine" in request.fixturenames
    if postgres_admin is None:
        path = tmp_path / "hindsight.db"
        if migrated:
            shutil.copyfile(request.getfixturevalue("migrated_template"), path)
        yield f"sqlite:///{path}"
        return
    if migrated:
        name = f"t_{uuid.uuid4().hex[:12]}"
        template = request.getfixturevalue("migrated_template")
        with postgres_admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
        yield database_in(name)
        with postgres_admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with postgres_admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = POSTGRES_URL or ""
    yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
    with postgres_admin.connect() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on the test's database, migrated to the newest migration (`database_url`)."""
    engine = make_engine(database_url)
    yield engine
    engine.dispose()
