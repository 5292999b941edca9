"""judge_verdicts: each kept answer names the judge contract it was given under

The rows already kept were answered under `hindsight.judge/1` and say so; the judge now answers
`hindsight.judge/2` (a category beside its quote), and an answer of the old contract is never read
as one of the new: a reply revision is asked again under the new contract, which the widened
unique key allows beside the old row. `outcome` widens for `agreed-without-change`.

Revision ID: 0022_judge_contract
Revises: 0021_thread_evidence
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_judge_contract"
down_revision = "0021_thread_evidence"
branch_labels = None
depends_on = None

OLD_CONTRACT = "hindsight.judge/1"
KEY = ("repository_id", "reply_id", "reply_updated_ms", "body_sha256", "seat")


def upgrade() -> None:
    with op.batch_alter_table("judge_verdicts", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("contract", sa.String(length=40), nullable=False, server_default=OLD_CONTRACT)
        )
    with op.batch_alter_table("judge_verdicts", schema=None) as batch_op:
        batch_op.alter_column("contract", server_default=None)
        batch_op.alter_column(
            "outcome",
            existing_type=sa.String(length=20),
            type_=sa.String(length=32),
            existing_nullable=False,
        )
        batch_op.drop_constraint("uq_judge_verdicts_repository_id", type_="unique")
        batch_op.create_unique_constraint("uq_judge_verdicts_repository_id", [*KEY, "contract"])


def downgrade() -> None:
    judge_verdicts = sa.table("judge_verdicts", sa.column("contract", sa.String()))
    op.execute(judge_verdicts.delete().where(judge_verdicts.c.contract != OLD_CONTRACT))
    with op.batch_alter_table("judge_verdicts", schema=None) as batch_op:
        batch_op.drop_constraint("uq_judge_verdicts_repository_id", type_="unique")
        batch_op.create_unique_constraint("uq_judge_verdicts_repository_id", list(KEY))
        batch_op.alter_column(
            "outcome",
            existing_type=sa.String(length=32),
            type_=sa.String(length=20),
            existing_nullable=False,
        )
        batch_op.drop_column("contract")
