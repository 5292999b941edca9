"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine

from ghapp.db import check_migrated
from ghapp.tables import METADATA


def test_migrated_schema_matches_the_models(engine: Engine) -> None:
    check_migrated(engine)
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), METADATA)
    assert differences == []
