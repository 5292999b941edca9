"""Alembic environment: runs on the connection the caller hands over, or opens one from the URL."""

from __future__ import annotations

from alembic import context

from ghapp.db import make_engine
from ghapp.tables import METADATA

target_metadata = METADATA


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
