"""`/ledger` sign-in with GitHub: a session held by a person (no API token), and pending sign-ins

A row of ``ledger_sessions`` is now one of three: a session signed in with an API token
(``token_id``), a session signed in with GitHub (``person_id``), or a GitHub sign-in under way
(no account, token or person: its id is the sha256 of the state's nonce, deleted when GitHub sends the browser back,
so a state is used once).

Revision ID: 0028_github_sign_in
Revises: 0025_memory_settings
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028_github_sign_in"
down_revision = "0027_history_lessons"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ledger_sessions") as batch:
        batch.alter_column("account_id", existing_type=sa.BigInteger(), nullable=True)
        batch.alter_column("token_id", existing_type=sa.String(32), nullable=True)
        batch.add_column(sa.Column("person_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_ledger_sessions_person_id_persons",
            "persons",
            ["person_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch.create_index("ix_ledger_sessions_person_id", ["person_id"])


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM ledger_sessions WHERE token_id IS NULL"))
    with op.batch_alter_table("ledger_sessions") as batch:
        batch.drop_index("ix_ledger_sessions_person_id")
        batch.drop_constraint("fk_ledger_sessions_person_id_persons", type_="foreignkey")
        batch.drop_column("person_id")
        batch.alter_column("token_id", existing_type=sa.String(32), nullable=False)
        batch.alter_column("account_id", existing_type=sa.BigInteger(), nullable=False)
