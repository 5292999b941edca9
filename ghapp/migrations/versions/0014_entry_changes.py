"""entry_changes: the log recall indexes read to follow entry changes as deltas

Revision ID: 0014_entry_changes
Revises: 0013_memory_summary
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_entry_changes"
down_revision = "0013_memory_summary"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "entry_changes",
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.Column("entry_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "generation"),
    )


def downgrade() -> None:
    op.drop_table("entry_changes")
