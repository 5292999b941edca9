"""indexes for reading a repository's dismissed and demoted entries without a scan

Revision ID: 0009_suppression_indexes
Revises: 0008_wider_receipt_columns
"""

from __future__ import annotations

from alembic import op

revision = "0009_suppression_indexes"
down_revision = "0008_wider_receipt_columns"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_receipts_account_decision", "receipts", ["account_id", "decision", "entry_id"]
    )
    op.create_index("ix_entries_repository_demoted", "entries", ["repository_id", "demoted_ms"])


def downgrade() -> None:
    op.drop_index("ix_entries_repository_demoted", table_name="entries")
    op.drop_index("ix_receipts_account_decision", table_name="receipts")
