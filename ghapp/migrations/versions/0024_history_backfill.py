"""The history back-fill: a run per repository, the merged pull requests it read, the comments kept

A back-fill reads a repository's merged pull requests and their maintainers' review comments
within GitHub's rate limit, and resumes where it stopped: its cursor and budget live in
`history_runs`, what it read in `history_pulls` and `history_comments`.

Revision ID: 0024_history_backfill
Revises: 0023_fix_pulls
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024_history_backfill"
down_revision = "0023_fix_pulls"
branch_labels = None
depends_on = None


def _fk(table: str) -> sa.ForeignKey:
    return sa.ForeignKey(f"{table}.id", ondelete="CASCADE")


def upgrade() -> None:
    big, num, text = sa.BigInteger(), sa.Integer(), sa.Text()
    op.create_table(
        "history_runs",
        sa.Column("repository_id", big, _fk("repositories"), primary_key=True),
        sa.Column("account_id", big, _fk("accounts"), nullable=False),
        sa.Column("installation_id", big, nullable=False),
        sa.Column("generation", num, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("days", num, nullable=False),
        sa.Column("max_prs", num, nullable=False),
        sa.Column("since_ms", big, nullable=False),
        sa.Column("page", num, nullable=False),
        sa.Column("prs_read", num, nullable=False),
        sa.Column("prs_seen", num, nullable=False),
        sa.Column("comments_kept", num, nullable=False),
        sa.Column("addressed", num, nullable=False),
        sa.Column("facts", num, nullable=False),
        sa.Column("requests", num, nullable=False),
        sa.Column("pauses", num, nullable=False),
        sa.Column("paused_until_ms", big, nullable=True),
        sa.Column("window_reset_ms", big, nullable=True),
        sa.Column("window_spent", num, nullable=False),
        sa.Column("lease_token", sa.String(32), nullable=True),
        sa.Column("lease_expires_ms", big, nullable=True),
        sa.Column("last_error", text, nullable=True),
        sa.Column("requested_ms", big, nullable=False),
        sa.Column("started_ms", big, nullable=True),
        sa.Column("updated_ms", big, nullable=False),
        sa.Column("finished_ms", big, nullable=True),
    )
    op.create_index("ix_history_runs_account_id", "history_runs", ["account_id"])
    op.create_table(
        "history_pulls",
        sa.Column("repository_id", big, _fk("repositories"), primary_key=True),
        sa.Column("number", num, primary_key=True, autoincrement=False),
        sa.Column("account_id", big, _fk("accounts"), nullable=False),
        sa.Column("generation", num, nullable=False),
        sa.Column("merged_ms", big, nullable=False),
        sa.Column("merged_by", sa.String(100), nullable=True),
        sa.Column("comments", num, nullable=False),
        sa.Column("requests", num, nullable=False),
        sa.Column("evidence_missing", sa.String(32), nullable=True),
        sa.Column("read_ms", big, nullable=False),
    )
    op.create_index("ix_history_pulls_account_id", "history_pulls", ["account_id"])
    op.create_table(
        "history_comments",
        sa.Column("id", big, primary_key=True, autoincrement=False),
        sa.Column("account_id", big, _fk("accounts"), nullable=False),
        sa.Column("repository_id", big, _fk("repositories"), nullable=False),
        sa.Column("pr", num, nullable=False),
        sa.Column("generation", num, nullable=False),
        sa.Column("author", sa.String(100), nullable=False),
        sa.Column("association", sa.String(32), nullable=False),
        sa.Column("path", text, nullable=False),
        sa.Column("line", num, nullable=True),
        sa.Column("commit_sha", sa.String(40), nullable=False),
        sa.Column("body", text, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("addressed_sha", sa.String(40), nullable=True),
        sa.Column("merged_by", sa.String(100), nullable=True),
        sa.Column("author_reply", text, nullable=True),
        sa.Column("url", text, nullable=False),
        sa.Column("published", sa.Boolean(), nullable=False),
        sa.Column("created_ms", big, nullable=False),
    )
    op.create_index("ix_history_comments_account_id", "history_comments", ["account_id"])
    op.create_index(
        "ix_history_comments_repository", "history_comments", ["repository_id", "outcome"]
    )


def downgrade() -> None:
    op.drop_table("history_comments")
    op.drop_table("history_pulls")
    op.drop_table("history_runs")
