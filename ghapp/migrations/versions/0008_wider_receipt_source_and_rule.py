"""receipts.source and receipts.rule wide enough for every signal and judge seat

Revision ID: 0008_wider_receipt_columns
Revises: 0007_suppressions
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_wider_receipt_columns"
down_revision = "0007_suppressions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # "merged_author_fix" is 17 characters; a judge's rule is "judge:" + a seat name (≤ 100).
    with op.batch_alter_table("receipts", schema=None) as batch_op:
        batch_op.alter_column(
            "source", existing_type=sa.String(length=16), type_=sa.String(length=32), nullable=False
        )
        batch_op.alter_column(
            "rule", existing_type=sa.String(length=64), type_=sa.String(length=128), nullable=True
        )


def downgrade() -> None:
    with op.batch_alter_table("receipts", schema=None) as batch_op:
        batch_op.alter_column(
            "rule", existing_type=sa.String(length=128), type_=sa.String(length=64), nullable=True
        )
        batch_op.alter_column(
            "source", existing_type=sa.String(length=32), type_=sa.String(length=16), nullable=False
        )
