"""memory_items.source and .reporters: a seat's report is a claim until the app observes it

Tool paths were kept active for 90 days on the word of the seat that reported them. An item now
records who vouches for it (``source``: reported, corroborated by seats of two labs, or observed
by the app in its proof sandbox) and every seat that reported it, with its lab. Nothing stored
was ever observed or corroborated: every active item becomes a candidate, reported by its seat
(lab unknown, so it never counts towards two labs), expiring at the latest 30 days after it was
recorded, as a candidate does.

Revision ID: 0020_memory_sources
Revises: 0019_link_numbers
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020_memory_sources"
down_revision = "0019_link_numbers"
branch_labels = None
depends_on = None

CANDIDATE_MS = 30 * 86_400_000


def upgrade() -> None:
    # Plain ADD COLUMNs, not a batch copy of the table.
    op.add_column(
        "memory_items",
        sa.Column("source", sa.String(length=16), nullable=False, server_default="reported"),
    )
    op.add_column(
        "memory_items", sa.Column("reporters", sa.Text(), nullable=False, server_default="[]")
    )
    items = sa.table(
        "memory_items",
        sa.column("state", sa.String),
        sa.column("expires_ms", sa.BigInteger),
        sa.column("created_ms", sa.BigInteger),
    )
    latest = items.c.created_ms + CANDIDATE_MS
    op.get_bind().execute(
        items.update()
        .where(items.c.state == "active")
        .values(
            state="candidate",
            expires_ms=sa.case((items.c.expires_ms > latest, latest), else_=items.c.expires_ms),
        )
    )


def downgrade() -> None:
    op.drop_column("memory_items", "reporters")
    op.drop_column("memory_items", "source")
