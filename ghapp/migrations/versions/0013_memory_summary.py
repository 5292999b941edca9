"""memory summaries; consolidated entries; one comment per finding; tombstoned sources

Revision ID: 0013_memory_summary
Revises: 0012_lesson_provenance
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0013_memory_summary"
down_revision = "0012_lesson_provenance"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("replaced_by", sa.String(length=64), nullable=True))
        batch_op.create_index(batch_op.f("ix_entries_replaced_by"), ["replaced_by"], unique=False)
    with op.batch_alter_table("suggestions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("comment_of", sa.String(length=64), nullable=True))
        batch_op.create_index(batch_op.f("ix_suggestions_comment_of"), ["comment_of"], unique=False)

    op.create_table(
        "tombstoned_sources",
        sa.Column("suggestion_id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("entry_id", sa.String(length=64), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_tombstoned_sources_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("suggestion_id", name=op.f("pk_tombstoned_sources")),
    )
    with op.batch_alter_table("tombstoned_sources", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_tombstoned_sources_account_id"), ["account_id"], unique=False
        )
    _backfill_tombstoned_sources()

    op.create_table(
        "memory_summaries",
        sa.Column("repository_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("lessons", sa.Integer(), nullable=False),
        sa.Column("memories", sa.Integer(), nullable=False),
        sa.Column("omitted", sa.Integer(), nullable=False),
        sa.Column("built_ms", sa.BigInteger(), nullable=False),
        sa.Column("cleared_ms", sa.BigInteger(), nullable=True),
        sa.Column("cleared_by", sa.String(length=100), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_memory_summaries_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_memory_summaries_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("repository_id", name=op.f("pk_memory_summaries")),
    )
    with op.batch_alter_table("memory_summaries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_memory_summaries_account_id"), ["account_id"], unique=False
        )


def _backfill_tombstoned_sources() -> None:
    """Every source of an existing tombstone is a tombstoned source from now on."""
    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            "SELECT id, account_id, deleted_ms, tombstone_sources FROM entries "
            "WHERE deleted_ms IS NOT NULL AND tombstone_sources IS NOT NULL"
        )
    ).all()
    seen: set[str] = set()
    values = []
    for row in rows:
        for suggestion_id in json.loads(row.tombstone_sources or "[]"):
            if suggestion_id in seen:
                continue
            seen.add(suggestion_id)
            values.append(
                {
                    "suggestion_id": suggestion_id,
                    "account_id": row.account_id,
                    "entry_id": row.id,
                    "created_ms": row.deleted_ms,
                }
            )
    if values:
        conn.execute(
            sa.text(
                "INSERT INTO tombstoned_sources (suggestion_id, account_id, entry_id, created_ms) "
                "VALUES (:suggestion_id, :account_id, :entry_id, :created_ms)"
            ),
            values,
        )


def downgrade() -> None:
    with op.batch_alter_table("memory_summaries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_memory_summaries_account_id"))
    op.drop_table("memory_summaries")
    with op.batch_alter_table("tombstoned_sources", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tombstoned_sources_account_id"))
    op.drop_table("tombstoned_sources")
    with op.batch_alter_table("suggestions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_suggestions_comment_of"))
        batch_op.drop_column("comment_of")
    with op.batch_alter_table("entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_entries_replaced_by"))
        batch_op.drop_column("replaced_by")
