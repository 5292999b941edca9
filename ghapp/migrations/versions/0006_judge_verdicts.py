"""judge_verdicts: the judge's answers per reply revision

Revision ID: 0006_judge_verdicts
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_judge_verdicts"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "judge_verdicts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("reply_id", sa.BigInteger(), nullable=False),
        sa.Column("reply_updated_ms", sa.BigInteger(), nullable=False),
        sa.Column("body_sha256", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.String(length=100), nullable=False),
        sa.Column("outcome", sa.String(length=20), nullable=False),
        sa.Column("reason", sa.String(length=40), nullable=True),
        sa.Column("quote", sa.Text(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("asked_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_judge_verdicts_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_judge_verdicts_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judge_verdicts")),
        sa.UniqueConstraint(
            "repository_id",
            "reply_id",
            "reply_updated_ms",
            "body_sha256",
            "seat",
            name=op.f("uq_judge_verdicts_repository_id"),
        ),
    )
    with op.batch_alter_table("judge_verdicts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_judge_verdicts_account_id"), ["account_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("judge_verdicts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_judge_verdicts_account_id"))
    op.drop_table("judge_verdicts")
