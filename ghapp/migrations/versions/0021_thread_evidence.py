"""what a reply claimed that has not bound yet, and the evidence that bound a decision

Revision ID: 0021_thread_evidence
Revises: 0022_redact_stored_secrets
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021_thread_evidence"
down_revision = "0022_redact_stored_secrets"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("suggestions") as batch:
        batch.add_column(sa.Column("claim", sa.Text(), nullable=True))
    with op.batch_alter_table("receipts") as batch:
        batch.add_column(sa.Column("evidence", sa.String(32), nullable=True))
        batch.add_column(sa.Column("evidence_commit", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("receipts") as batch:
        batch.drop_column("evidence_commit")
        batch.drop_column("evidence")
    with op.batch_alter_table("suggestions") as batch:
        batch.drop_column("claim")
