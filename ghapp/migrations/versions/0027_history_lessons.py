"""History lessons, bots' refused suggestions and publication receipts

A discovery seat's lessons from the back-fill's addressed maintainer comments live in
`history_lessons`; other review bots' suggestions a maintainer refused, seeded as suppression
candidates a person confirms, in `history_refusals`; each publication's receipt in
`history_publications`.

Revision ID: 0027_history_lessons
Revises: 0025_memory_settings
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027_history_lessons"
down_revision = "0026_proven_fix_patches"
branch_labels = None
depends_on = None


def _fk(table: str) -> sa.ForeignKey:
    return sa.ForeignKey(f"{table}.id", ondelete="CASCADE")


def _owner() -> list[sa.Column[int]]:
    return [
        sa.Column("account_id", sa.BigInteger(), _fk("accounts"), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), _fk("repositories"), nullable=False),
    ]


def upgrade() -> None:
    big, num, text, word = sa.BigInteger(), sa.Integer(), sa.Text(), sa.String(100)
    op.create_table(
        "history_lessons",
        sa.Column("id", num, primary_key=True, autoincrement=True),
        *_owner(),
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("title", text, nullable=False),
        sa.Column("text", text, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("comment_ids", text, nullable=False),
        sa.Column("prs", text, nullable=False),
        sa.Column("quotes", text, nullable=False),
        sa.Column("seat", word, nullable=False),
        sa.Column("publication_id", num, nullable=False),
        sa.Column("created_ms", big, nullable=False),
        sa.Column("deleted_ms", big, nullable=True),
        sa.Column("deleted_by", word, nullable=True),
    )
    op.create_index("ix_history_lessons_account_id", "history_lessons", ["account_id"])
    op.create_index(
        "uq_history_lessons_key", "history_lessons", ["repository_id", "key"], unique=True
    )
    op.create_table(
        "history_refusals",
        sa.Column("id", big, primary_key=True, autoincrement=False),
        *_owner(),
        sa.Column("pr", num, nullable=False),
        sa.Column("generation", num, nullable=False),
        sa.Column("bot", word, nullable=False),
        sa.Column("path", text, nullable=False),
        sa.Column("line", num, nullable=True),
        sa.Column("body", text, nullable=False),
        sa.Column("url", text, nullable=False),
        sa.Column("maintainer", word, nullable=False),
        sa.Column("association", sa.String(32), nullable=False),
        sa.Column("reply_id", big, nullable=False),
        sa.Column("reply_url", text, nullable=False),
        sa.Column("quote", text, nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("rule", sa.String(128), nullable=False),
        sa.Column("evidence", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("decided_by", word, nullable=True),
        sa.Column("decided_ms", big, nullable=True),
        sa.Column("created_ms", big, nullable=False),
    )
    op.create_index("ix_history_refusals_account_id", "history_refusals", ["account_id"])
    op.create_index(
        "ix_history_refusals_repository", "history_refusals", ["repository_id", "state"]
    )
    op.create_table(
        "history_publications",
        sa.Column("id", num, primary_key=True, autoincrement=True),
        *_owner(),
        sa.Column("generation", num, nullable=False),
        sa.Column("facts", num, nullable=False),
        sa.Column("lessons_active", num, nullable=False),
        sa.Column("lessons_candidate", num, nullable=False),
        sa.Column("refusals", num, nullable=False),
        sa.Column("seat", word, nullable=True),
        sa.Column("proposals", num, nullable=False),
        sa.Column("rejected", text, nullable=False),
        sa.Column("seat_failure", text, nullable=True),
        sa.Column("at_ms", big, nullable=False),
    )
    op.create_index("ix_history_publications_account_id", "history_publications", ["account_id"])
    op.create_index(
        "ix_history_publications_repository", "history_publications", ["repository_id", "at_ms"]
    )


def downgrade() -> None:
    op.drop_table("history_publications")
    op.drop_table("history_refusals")
    op.drop_table("history_lessons")
