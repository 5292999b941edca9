"""History lessons are handed as lessons, and a confirmed refusal is a suppression

Before, both were handed as memory items of the repository's history session; those items go
(an active lesson is now read from ``history_lessons`` at every hand-out). A refusal confirmed
before has no suppression behind it: it is a candidate again, so that a person's confirmation on
`/ledger` makes one (docs/history.md).

Revision ID: 0029_history_handed_as_lessons
Revises: 0028_github_sign_in
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029_history_handed_as_lessons"
down_revision = "0028_github_sign_in"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        sa.text(
            "DELETE FROM memory_items WHERE review_id LIKE 'history-%' AND "
            "(subject LIKE 'history-lesson:%' OR subject LIKE 'history-refusal:%')"
        )
    )
    op.execute(
        sa.text(
            "UPDATE history_refusals SET state = 'candidate', decided_by = NULL, decided_ms = NULL "
            "WHERE state = 'confirmed' AND NOT EXISTS (SELECT 1 FROM suggestions "
            "WHERE suggestions.id = 'history-refusal:' || CAST(history_refusals.id AS VARCHAR(20)))"
        )
    )


def downgrade() -> None:
    """Nothing to restore: the items are rebuilt by the next back-fill's publication, and a
    candidate waits for a person either way."""
