"""An entry's receipt counts on its own row, kept by the write that changes its receipts

A recall snapshot's build counted every entry's current receipts with a GROUP BY over the
account's receipts: at 100,000 entries a tenth of the build. The counts (acceptances,
dismissals, acceptances from a seat with a lab) now sit beside ``last_confirmed_ms``, which is
already derived from the same receipts and written by the same refresh.

Revision ID: 0018_entry_receipt_counts
Revises: 0017_hot_path_indexes
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_entry_receipt_counts"
down_revision = "0017_hot_path_indexes"
branch_labels = None
depends_on = None

COUNTS = ("accepted_count", "dismissed_count", "labelled_count")


def upgrade() -> None:
    # A plain ADD COLUMN, not a batch copy: SQLite would rebuild the table, and dropping the old
    # one cascades into every receipt.
    for name in COUNTS:
        op.add_column(
            "entries", sa.Column(name, sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
    receipts = sa.table(
        "receipts",
        sa.column("entry_id", sa.String),
        sa.column("decision", sa.String),
        sa.column("lab", sa.String),
        sa.column("superseded", sa.Boolean),
    )
    entries = sa.table("entries", sa.column("id", sa.String), *(sa.column(n) for n in COUNTS))
    accepted = receipts.c.decision == "accepted"

    def current(*where: sa.ColumnElement[bool]) -> sa.ScalarSelect[int]:
        return (
            sa.select(sa.func.count())
            .where(
                receipts.c.entry_id == entries.c.id,
                receipts.c.superseded.is_(False),
                *where,
            )
            .scalar_subquery()
        )

    op.get_bind().execute(
        entries.update().values(
            accepted_count=current(accepted),
            dismissed_count=current(~accepted),
            labelled_count=current(accepted, receipts.c.lab.is_not(None), receipts.c.lab != ""),
        )
    )


def downgrade() -> None:
    for name in reversed(COUNTS):
        op.drop_column("entries", name)
