"""people, tokens, injections

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "persons",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("login", sa.String(length=100), nullable=False),
        sa.Column("recording", sa.String(length=16), nullable=False),
        sa.Column("surfacing", sa.Integer(), nullable=False),
        sa.Column("lesson_cap", sa.Integer(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_persons_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_persons")),
        sa.UniqueConstraint("account_id", "login", name=op.f("uq_persons_account_id")),
    )
    with op.batch_alter_table("persons", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_persons_account_id"), ["account_id"], unique=False)

    op.create_table(
        "tokens",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_used_ms", sa.BigInteger(), nullable=True),
        sa.Column("revoked_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_tokens_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["person_id"],
            ["persons.id"],
            name=op.f("fk_tokens_person_id_persons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tokens")),
        sa.UniqueConstraint("sha256", name=op.f("uq_tokens_sha256")),
    )
    with op.batch_alter_table("tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tokens_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_tokens_person_id"), ["person_id"], unique=False)

    op.create_table(
        "injections",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("surface", sa.String(length=16), nullable=False),
        sa.Column("set_sha256", sa.String(length=64), nullable=False),
        sa.Column("entries", sa.Text(), nullable=False),
        sa.Column("chars", sa.Integer(), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.Column("expires_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_injections_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["person_id"],
            ["persons.id"],
            name=op.f("fk_injections_person_id_persons"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_injections_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_injections")),
    )
    with op.batch_alter_table("injections", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_injections_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_injections_person_id"), ["person_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_injections_repository_id"), ["repository_id"], unique=False
        )
        batch_op.create_index("ix_injections_session", ["account_id", "session_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_injections_set_sha256"), ["set_sha256"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("injections", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_injections_set_sha256"))
        batch_op.drop_index("ix_injections_session")
        batch_op.drop_index(batch_op.f("ix_injections_repository_id"))
        batch_op.drop_index(batch_op.f("ix_injections_person_id"))
        batch_op.drop_index(batch_op.f("ix_injections_account_id"))
    op.drop_table("injections")
    with op.batch_alter_table("tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tokens_person_id"))
        batch_op.drop_index(batch_op.f("ix_tokens_account_id"))
    op.drop_table("tokens")
    with op.batch_alter_table("persons", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_persons_account_id"))
    op.drop_table("persons")
