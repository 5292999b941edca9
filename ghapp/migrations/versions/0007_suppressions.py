"""suppressed findings; a person's lift of an entry's suppression

Revision ID: 0007_suppressions
Revises: 0006_judge_verdicts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_suppressions"
down_revision = "0006_judge_verdicts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("suppression_lifted_ms", sa.BigInteger(), nullable=True))
        batch_op.add_column(
            sa.Column("suppression_lifted_by", sa.String(length=100), nullable=True)
        )

    op.create_table(
        "suppressed_findings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("review_id", sa.String(length=64), nullable=False),
        sa.Column("entry_id", sa.String(length=64), nullable=False),
        sa.Column("receipt_id", sa.Integer(), nullable=True),
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=True),
        sa.Column("seat", sa.String(length=100), nullable=False),
        sa.Column("lens", sa.String(length=100), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("repository_wide", sa.Boolean(), nullable=False),
        sa.Column("actor", sa.String(length=100), nullable=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_suppressed_findings_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["entry_id"],
            ["entries.id"],
            name=op.f("fk_suppressed_findings_entry_id_entries"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_suppressed_findings_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["review_id"],
            ["reviews.id"],
            name=op.f("fk_suppressed_findings_review_id_reviews"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_suppressed_findings")),
    )
    with op.batch_alter_table("suppressed_findings", schema=None) as batch_op:
        for column in ("account_id", "repository_id", "review_id"):
            batch_op.create_index(
                batch_op.f(f"ix_suppressed_findings_{column}"), [column], unique=False
            )


def downgrade() -> None:
    with op.batch_alter_table("suppressed_findings", schema=None) as batch_op:
        for column in ("review_id", "repository_id", "account_id"):
            batch_op.drop_index(batch_op.f(f"ix_suppressed_findings_{column}"))
    op.drop_table("suppressed_findings")
    with op.batch_alter_table("entries", schema=None) as batch_op:
        batch_op.drop_column("suppression_lifted_by")
        batch_op.drop_column("suppression_lifted_ms")
