"""a proof keeps its proven fix's patch, shown with a finding that has no replacement block

A fix PR for such a finding applies exactly that patch (continual.fix_patches). Proofs recorded
before keep none: their fix PRs have nothing to apply, as before.

Revision ID: 0026_proven_fix_patches
Revises: 0025_memory_settings
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026_proven_fix_patches"
down_revision = "0025_memory_settings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("proofs") as batch:
        batch.add_column(sa.Column("fix_patch", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("proofs") as batch:
        batch.drop_column("fix_patch")
