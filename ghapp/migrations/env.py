"""Alembic environment: runs on the connection the caller hands over, or opens one from the URL."""

from __future__ import annotations

from alembic import context

# Every module holding tables, so the shared metadata knows them all.
import continual.schema_people
import continual.schema_reviews  # noqa: F401
import ghapp.models  # noqa: F401
from continual.schema import Base
from ghapp.db import make_engine

target_metadata = Base.metadata


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        context.configure(
            connection=connection, target_metadata=target_metadata, render_as_batch=True
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(context.config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run()
