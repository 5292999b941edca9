"""A per-repository memory switch (off unless a person turns it on), and merged paraphrases listed

``memory_settings`` holds one row per repository a person switched; no row is off, so memory is
disabled by default. Paraphrases consolidation merged away before merges were recorded get their
``merged`` lesson event, so they are listed with the retired lessons and can be deleted.

Revision ID: 0025_memory_settings
Revises: 0024_history_backfill
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025_memory_settings"
down_revision = "0024_history_backfill"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "memory_settings",
        sa.Column("repository_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("changed_ms", sa.BigInteger(), nullable=False),
        sa.Column("changed_by", sa.String(length=100), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_memory_settings_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_memory_settings_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("repository_id", name=op.f("pk_memory_settings")),
    )
    with op.batch_alter_table("memory_settings", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_memory_settings_account_id"), ["account_id"], unique=False
        )
    op.execute(
        sa.text(
            "INSERT INTO lesson_events (account_id, repository_id, entry_id, action, reason, "
            "commit_sha, revision, before_text, after_text, actor, at_ms) "
            "SELECT e.account_id, e.repository_id, e.id, 'merged', "
            "'merged into ' || e.replaced_by, NULL, e.revision, e.text, NULL, 'consolidation', "
            "e.deleted_ms FROM entries e WHERE e.replaced_by IS NOT NULL AND e.text <> '' "
            "AND e.deleted_ms IS NOT NULL AND NOT EXISTS (SELECT 1 FROM lesson_events x "
            "WHERE x.entry_id = e.id AND x.action = 'merged')"
        )
    )


def downgrade() -> None:
    with op.batch_alter_table("memory_settings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_memory_settings_account_id"))
    op.drop_table("memory_settings")
