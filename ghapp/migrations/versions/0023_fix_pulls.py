"""Fix PRs: the one fix PR the app opened for a suggestion, and how it stands

A maintainer's `/fix` opens a pull request carrying exactly the suggestion's change. One row per
suggestion keeps it: asking again links the same fix PR, and its close finds its suggestion.

Revision ID: 0023_fix_pulls
Revises: 0022_judge_contract
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023_fix_pulls"
down_revision = "0022_judge_contract"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fix_pulls",
        sa.Column(
            "suggestion_id",
            sa.String(64),
            sa.ForeignKey("suggestions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "account_id",
            sa.BigInteger(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "repository_id",
            sa.BigInteger(),
            sa.ForeignKey("repositories.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("pr", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=True),
        sa.Column("branch", sa.String(255), nullable=False),
        sa.Column("base_ref", sa.String(255), nullable=False),
        sa.Column("commit_sha", sa.String(40), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("asked_by", sa.String(64), nullable=False),
        sa.Column("asked_comment_id", sa.BigInteger(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_fix_pulls_account_id", "fix_pulls", ["account_id"])
    op.create_index("ix_fix_pulls_number", "fix_pulls", ["repository_id", "number"])


def downgrade() -> None:
    op.drop_table("fix_pulls")
