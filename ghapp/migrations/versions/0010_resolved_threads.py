"""who resolved a suggestion's thread, kept as evidence beside the decisions

Revision ID: 0016_resolved_threads
Revises: 0009_suppression_indexes
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_resolved_threads"
down_revision = "0009_suppression_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("suggestions") as batch:
        batch.add_column(sa.Column("resolved_by", sa.String(100), nullable=True))
        batch.add_column(sa.Column("resolved_ms", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("suggestions") as batch:
        batch.drop_column("resolved_ms")
        batch.drop_column("resolved_by")
