"""Indexes for two reads on hot paths: expired injection rows, and merged fix-PR receipts

Every recorded hand-out drops the account's expired (incognito) injection rows; without an index
on the expiry that was a walk over every injection row the account ever had, growing with each
push. A recall snapshot's build reads the account's receipts from merged fix PRs (widening);
without the source in an index that was a walk over every accepted receipt.

Revision ID: 0017_hot_path_indexes
Revises: 0014_entry_changes
"""

from __future__ import annotations

from alembic import op

revision = "0017_hot_path_indexes"
down_revision = "0014_entry_changes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_injections_expiry", "injections", ["account_id", "expires_ms"])
    op.create_index("ix_receipts_account_source", "receipts", ["account_id", "source", "decision"])


def downgrade() -> None:
    op.drop_index("ix_receipts_account_source", table_name="receipts")
    op.drop_index("ix_injections_expiry", table_name="injections")
