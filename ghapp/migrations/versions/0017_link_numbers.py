"""link_names and entries.link_numbers: an entry's links numbered once, when it is written

A recall build parsed every entry's associations and looked up every name they hold, most of
a cold build at 100,000 entries. Each name an account's entries link to now has a number of
the account's, and each entry keeps its links' numbers beside the JSON they come from. The
entries already stored are numbered here.

Revision ID: 0019_link_numbers
Revises: 0018_entry_receipt_counts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from continual.recall.numbering import number_every_account

revision = "0019_link_numbers"
down_revision = "0018_entry_receipt_counts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "link_names",
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sa.SmallInteger(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("digest", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "number"),
        sa.UniqueConstraint("account_id", "digest"),
    )
    # A plain ADD COLUMN: a batch copy of entries on SQLite cascades into receipts.
    op.add_column("entries", sa.Column("link_numbers", sa.LargeBinary(), nullable=True))
    # Numbered as the store's writers number (the recall build reads nothing else), naming
    # only the columns that exist at this revision.
    number_every_account(op.get_bind())


def downgrade() -> None:
    op.drop_column("entries", "link_numbers")
    op.drop_table("link_names")
