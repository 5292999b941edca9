"""reviews, calls, session memory

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("pr", sa.Integer(), nullable=False),
        sa.Column("head_sha", sa.String(length=40), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("github_review_id", sa.BigInteger(), nullable=True),
        sa.Column("set_sha256", sa.String(length=64), nullable=True),
        sa.Column("lessons", sa.Integer(), nullable=False),
        sa.Column("shards", sa.Integer(), nullable=False),
        sa.Column("calls_ok", sa.Integer(), nullable=False),
        sa.Column("calls_failed", sa.Integer(), nullable=False),
        sa.Column("calls_skipped", sa.Integer(), nullable=False),
        sa.Column("suggestions", sa.Integer(), nullable=False),
        sa.Column("draft", sa.Text(), nullable=True),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("finished_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_reviews_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_reviews_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reviews")),
        sa.UniqueConstraint(
            "repository_id", "pr", "head_sha", name=op.f("uq_reviews_repository_id")
        ),
    )

    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_reviews_account_id"), ["account_id"], unique=False)

    op.create_table(
        "review_calls",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("review_id", sa.String(length=64), nullable=False),
        sa.Column("call_id", sa.String(length=200), nullable=False),
        sa.Column("seat", sa.String(length=100), nullable=False),
        sa.Column("lab", sa.String(length=100), nullable=False),
        sa.Column("lens", sa.String(length=100), nullable=False),
        sa.Column("shard", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("set_sha256", sa.String(length=64), nullable=True),
        sa.Column("findings", sa.Integer(), nullable=False),
        sa.Column("dropped", sa.Integer(), nullable=False),
        sa.Column("memory_omitted", sa.Integer(), nullable=False),
        sa.Column("cross_omitted", sa.Integer(), nullable=False),
        sa.Column("prompt_chars", sa.Integer(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_review_calls_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["review_id"],
            ["reviews.id"],
            name=op.f("fk_review_calls_review_id_reviews"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_calls")),
    )

    with op.batch_alter_table("review_calls", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_review_calls_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_review_calls_review_id"), ["review_id"], unique=False)

    op.create_table(
        "review_agreements",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("review_id", sa.String(length=64), nullable=False),
        sa.Column("suggestion_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.String(length=100), nullable=False),
        sa.Column("lab", sa.String(length=100), nullable=False),
        sa.Column("lens", sa.String(length=100), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_review_agreements_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["review_id"],
            ["reviews.id"],
            name=op.f("fk_review_agreements_review_id_reviews"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["suggestion_id"],
            ["suggestions.id"],
            name=op.f("fk_review_agreements_suggestion_id_suggestions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_agreements")),
    )

    with op.batch_alter_table("review_agreements", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_review_agreements_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_review_agreements_review_id"), ["review_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_review_agreements_suggestion_id"), ["suggestion_id"], unique=False
        )

    op.create_table(
        "memory_items",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("review_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("seat", sa.String(length=100), nullable=False),
        sa.Column("lens", sa.String(length=100), nullable=False),
        sa.Column("commit", sa.String(length=40), nullable=False),
        sa.Column("files", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("expires_ms", sa.BigInteger(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_memory_items_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_memory_items_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_items")),
    )

    with op.batch_alter_table("memory_items", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_memory_items_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(
            "ix_memory_items_recall", ["repository_id", "expires_ms"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_memory_items_review_id"), ["review_id"], unique=False)

    op.create_table(
        "memory_hits",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("review_id", sa.String(length=64), nullable=False),
        sa.Column("recalled_review_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("subject_sha256", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.String(length=100), nullable=False),
        sa.Column("call_id", sa.String(length=200), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_memory_hits_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_memory_hits_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_hits")),
        sa.UniqueConstraint("review_id", "subject_sha256", name=op.f("uq_memory_hits_review_id")),
    )

    with op.batch_alter_table("memory_hits", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_memory_hits_account_id"), ["account_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_memory_hits_repository_id"), ["repository_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_memory_hits_review_id"), ["review_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("memory_hits", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_memory_hits_review_id"))
        batch_op.drop_index(batch_op.f("ix_memory_hits_repository_id"))
        batch_op.drop_index(batch_op.f("ix_memory_hits_account_id"))

    op.drop_table("memory_hits")

    with op.batch_alter_table("memory_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_memory_items_review_id"))
        batch_op.drop_index("ix_memory_items_recall")
        batch_op.drop_index(batch_op.f("ix_memory_items_account_id"))

    op.drop_table("memory_items")

    with op.batch_alter_table("review_agreements", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_review_agreements_suggestion_id"))
        batch_op.drop_index(batch_op.f("ix_review_agreements_review_id"))
        batch_op.drop_index(batch_op.f("ix_review_agreements_account_id"))

    op.drop_table("review_agreements")

    with op.batch_alter_table("review_calls", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_review_calls_review_id"))
        batch_op.drop_index(batch_op.f("ix_review_calls_account_id"))

    op.drop_table("review_calls")

    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_reviews_account_id"))

    op.drop_table("reviews")
