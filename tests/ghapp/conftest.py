"""Fixtures of the app's tests: a database brought to the migration before a module's REVISION."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from tests.support.migrations import at_migration_before


@pytest.fixture
def engine_before(database_url: str, request: pytest.FixtureRequest) -> Iterator[Engine]:
    """A database at the migration before the one the test module names (``REVISION``)."""
    engine = at_migration_before(database_url, request.module.REVISION)
    yield engine
    engine.dispose()
