"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine

# Every module holding tables, as the migration environment loads them.
import continual.schema_people
import continual.schema_reviews  # noqa: F401
import ghapp.models  # noqa: F401
from continual.schema import Base
from ghapp.db import check_migrated


def test_migrated_schema_matches_the_models(engine: Engine) -> None:
    check_migrated(engine)
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert differences == []
