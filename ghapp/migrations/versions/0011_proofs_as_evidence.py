"""proofs are evidence: a proofs table; receipts a proof made become evidence rows

A receipt with source ``proven`` counted a seat's own proof as an acceptance. Each proven
suggestion now gets a row in ``proofs`` (its test, read back from the posted body where it can
be, ``proven``, the head commit), the ``proven`` receipts are deleted, and the entries they
belonged to are recomputed from the receipts that remain (confirmation, expiry, demotion), so a
lesson that only a proof had accepted is a candidate again. The downgrade drops the table and
does not bring the acceptances back.

Revision ID: 0010_proofs_as_evidence
Revises: 0016_resolved_threads
"""

from __future__ import annotations

import re
import time

import sqlalchemy as sa
from alembic import op

revision = "0010_proofs_as_evidence"
down_revision = "0016_resolved_threads"
branch_labels = None
depends_on = None

CONFIRMATION_TTL_MS = 30 * 86_400_000
DEMOTION_MIN_DISMISSALS = 2
PROVEN_NOTE = re.compile(r"\*\*Proven:\*\* `(?P<test>[^\n]*)` fails on this commit")
REASON = "the test failed on the head commit and passed with the fix (recorded before 0010)"

suggestions = sa.table(
    "suggestions",
    sa.column("id", sa.String),
    sa.column("account_id", sa.BigInteger),
    sa.column("repository_id", sa.BigInteger),
    sa.column("review_id", sa.String),
    sa.column("head_sha", sa.String),
    sa.column("body", sa.Text),
    sa.column("proven", sa.Boolean),
    sa.column("created_ms", sa.BigInteger),
)
receipts = sa.table(
    "receipts",
    sa.column("id", sa.Integer),
    sa.column("entry_id", sa.String),
    sa.column("suggestion_id", sa.String),
    sa.column("decision", sa.String),
    sa.column("source", sa.String),
    sa.column("at_ms", sa.BigInteger),
    sa.column("superseded", sa.Boolean),
)
entries = sa.table(
    "entries",
    sa.column("id", sa.String),
    sa.column("account_id", sa.BigInteger),
    sa.column("revision", sa.Integer),
    sa.column("demoted_ms", sa.BigInteger),
    sa.column("demoted_by", sa.String),
    sa.column("last_confirmed_ms", sa.BigInteger),
    sa.column("expires_ms", sa.BigInteger),
)
accounts = sa.table(
    "accounts", sa.column("id", sa.BigInteger), sa.column("store_generation", sa.BigInteger)
)


def _create_table() -> None:
    op.create_table(
        "proofs",
        sa.Column("suggestion_id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.BigInteger(), nullable=False),
        sa.Column("repository_id", sa.BigInteger(), nullable=False),
        sa.Column("review_id", sa.String(length=64), nullable=True),
        sa.Column("test", sa.Text(), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("head_sha", sa.String(length=40), nullable=False),
        sa.Column("sandbox", sa.String(length=16), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_proofs_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_proofs_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["suggestion_id"],
            ["suggestions.id"],
            name=op.f("fk_proofs_suggestion_id_suggestions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("suggestion_id", name=op.f("pk_proofs")),
    )
    with op.batch_alter_table("proofs", schema=None) as batch_op:
        for column in ("account_id", "repository_id", "review_id"):
            batch_op.create_index(batch_op.f(f"ix_proofs_{column}"), [column], unique=False)


def _evidence(conn: sa.Connection) -> None:
    """One ``proofs`` row per proven suggestion, timed by its proof's receipt where it had one."""
    proven_at = dict(
        conn.execute(
            sa.select(receipts.c.suggestion_id, sa.func.min(receipts.c.at_ms))
            .where(receipts.c.source == "proven")
            .group_by(receipts.c.suggestion_id)
        ).all()
    )
    rows = conn.execute(
        sa.select(suggestions).where(
            sa.or_(suggestions.c.proven.is_(True), suggestions.c.id.in_(list(proven_at)))
        )
    ).all()
    table = sa.table(
        "proofs",
        *(
            sa.column(name)
            for name in (
                "suggestion_id",
                "account_id",
                "repository_id",
                "review_id",
                "test",
                "outcome",
                "reason",
                "head_sha",
                "sandbox",
                "created_ms",
            )
        ),
    )
    values = []
    for row in rows:
        found = PROVEN_NOTE.search(row.body or "")
        values.append(
            {
                "suggestion_id": row.id,
                "account_id": row.account_id,
                "repository_id": row.repository_id,
                "review_id": row.review_id,
                "test": found.group("test") if found else "",
                "outcome": "proven",
                "reason": REASON,
                "head_sha": row.head_sha,
                "sandbox": "unsandboxed",  # they ran in a worktree as the app's own user
                "created_ms": proven_at.get(row.id, row.created_ms),
            }
        )
    if values:
        conn.execute(sa.insert(table), values)


def _refresh(conn: sa.Connection, entry_ids: set[str], now: int) -> None:
    """Recompute each entry from its remaining current receipts, as the write-back does."""
    touched: set[int] = set()
    for entry_id in sorted(entry_ids):
        entry = conn.execute(sa.select(entries).where(entries.c.id == entry_id)).one_or_none()
        if entry is None:
            continue
        current = conn.execute(
            sa.select(receipts.c.decision, receipts.c.at_ms).where(
                receipts.c.entry_id == entry_id, receipts.c.superseded.is_(False)
            )
        ).all()
        accepted = [at for decision, at in current if decision == "accepted"]
        dismissed = sum(1 for decision, _ in current if decision == "dismissed")
        last = max(accepted) if accepted else None
        changes: dict[str, object] = {
            "revision": entry.revision + 1,
            "last_confirmed_ms": last,
            "expires_ms": None if last is None else last + CONFIRMATION_TTL_MS,
        }
        if (
            entry.demoted_ms is None
            and dismissed >= DEMOTION_MIN_DISMISSALS
            and dismissed > len(accepted)
        ):
            changes.update(demoted_ms=now, demoted_by="rule")
        conn.execute(sa.update(entries).where(entries.c.id == entry_id).values(**changes))
        touched.add(entry.account_id)
    for account_id in sorted(touched):
        conn.execute(
            sa.update(accounts)
            .where(accounts.c.id == account_id)
            .values(store_generation=accounts.c.store_generation + 1)
        )


def upgrade() -> None:
    _create_table()
    conn = op.get_bind()
    _evidence(conn)
    entry_ids = set(
        conn.execute(
            sa.select(receipts.c.entry_id).where(receipts.c.source == "proven").distinct()
        ).scalars()
    )
    conn.execute(sa.delete(receipts).where(receipts.c.source == "proven"))
    _refresh(conn, entry_ids, now=int(time.time() * 1000))


def downgrade() -> None:
    with op.batch_alter_table("proofs", schema=None) as batch_op:
        for column in ("review_id", "repository_id", "account_id"):
            batch_op.drop_index(batch_op.f(f"ix_proofs_{column}"))
    op.drop_table("proofs")
