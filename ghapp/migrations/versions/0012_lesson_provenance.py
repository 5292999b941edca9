"""a lesson's provenance and anchors, the anchors of a suggestion, and the lesson event log

Revision ID: 0012_lesson_provenance
Revises: 0010_proofs_as_evidence
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_lesson_provenance"
down_revision = "0010_proofs_as_evidence"
branch_labels = None
depends_on = None


def _tenant_keys(table: str) -> list[sa.ForeignKeyConstraint]:
    return [
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f(f"fk_{table}_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["entry_id"],
            ["entries.id"],
            name=op.f(f"fk_{table}_entry_id_entries"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f(f"fk_{table}_repository_id_repositories"),
            ondelete="CASCADE",
        ),
    ]


def upgrade() -> None:
    with op.batch_alter_table("suggestions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("anchors", sa.Text(), nullable=True))

    op.create_table(
        "lesson_provenance",
        sa.Column("entry_id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("pr", sa.Integer(), nullable=False),
        sa.Column("head_sha", sa.String(length=40), nullable=False),
        sa.Column("merge_sha", sa.String(length=40), nullable=True),
        sa.Column("basis_sha", sa.String(length=40), nullable=False),
        sa.Column("anchors", sa.Text(), nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
        *_tenant_keys("lesson_provenance"),
        sa.PrimaryKeyConstraint("entry_id", name=op.f("pk_lesson_provenance")),
    )
    op.create_index(
        op.f("ix_lesson_provenance_account_id"), "lesson_provenance", ["account_id"], unique=False
    )
    op.create_index(
        "ix_lesson_provenance_repository",
        "lesson_provenance",
        ["repository_id", "basis_sha"],
        unique=False,
    )

    op.create_table(
        "lesson_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("entry_id", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("commit_sha", sa.String(length=40), nullable=True),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("before_text", sa.Text(), nullable=False),
        sa.Column("after_text", sa.Text(), nullable=True),
        sa.Column("actor", sa.String(length=100), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        *_tenant_keys("lesson_events"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lesson_events")),
    )
    op.create_index(
        op.f("ix_lesson_events_account_id"), "lesson_events", ["account_id"], unique=False
    )
    op.create_index(op.f("ix_lesson_events_entry_id"), "lesson_events", ["entry_id"], unique=False)
    op.create_index(
        "ix_lesson_events_repository", "lesson_events", ["repository_id", "at_ms"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_lesson_events_repository", table_name="lesson_events")
    op.drop_index(op.f("ix_lesson_events_entry_id"), table_name="lesson_events")
    op.drop_index(op.f("ix_lesson_events_account_id"), table_name="lesson_events")
    op.drop_table("lesson_events")
    op.drop_index("ix_lesson_provenance_repository", table_name="lesson_provenance")
    op.drop_index(op.f("ix_lesson_provenance_account_id"), table_name="lesson_provenance")
    op.drop_table("lesson_provenance")
    with op.batch_alter_table("suggestions", schema=None) as batch_op:
        batch_op.drop_column("anchors")
