"""Shared fixtures: a migrated database per test (SQLite, or PostgreSQL when configured)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import Engine, create_engine, text

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


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    """A fresh empty database: a SQLite file, or a new schema on the test PostgreSQL server."""
    if not POSTGRES_URL:
        yield f"sqlite:///{tmp_path / 'hindsight.db'}"
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in POSTGRES_URL else "?"
    yield f"{POSTGRES_URL}{separator}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    migrate(engine)
    yield engine
    engine.dispose()
