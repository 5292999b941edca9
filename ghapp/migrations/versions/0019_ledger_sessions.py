"""Signed-in `/ledger` sessions kept server-side, so signing out ends a session at once

Before, the session cookie alone said who was signed in, so a copy of it stayed good for its
12 hours after sign-out. Each sign-in now writes a row (the sha256 of the cookie's session id);
sign-out deletes it, and a cookie without a live row is signed out. Rows past their expiry are
pruned at each sign-in.

Revision ID: 0021_ledger_sessions
Revises: 0020_memory_sources
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021_ledger_sessions"
down_revision = "0020_memory_sources"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ledger_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.BigInteger(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "token_id",
            sa.String(32),
            sa.ForeignKey("tokens.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("expires_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_ledger_sessions_account_id", "ledger_sessions", ["account_id"])
    op.create_index("ix_ledger_sessions_token_id", "ledger_sessions", ["token_id"])
    op.create_index("ix_ledger_sessions_expires_ms", "ledger_sessions", ["expires_ms"])


def downgrade() -> None:
    op.drop_table("ledger_sessions")
