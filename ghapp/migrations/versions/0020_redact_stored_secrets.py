"""Redact the secrets already stored in text that came from pull requests, seats and replies.

Each column redacted at write time is rewritten in batches (by primary key), with the same rules
and placeholders (``continual.secrets``): suggestions, review drafts, entries, receipts' spans,
link names, the judge's kept answers, memory summaries and items, proofs' tests. Suggested code
holding a secret is cleared, as a new finding's is. Delivery bodies are left as GitHub sent them
(kept for replays for the retention period, then pruned).
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

from continual.secrets import find_secret, redact_json, redact_optional

revision = "0022_redact_stored_secrets"
down_revision = "0021_ledger_sessions"
branch_labels = None
depends_on = None

BATCH = 500


def _replacement(code: str | None) -> str | None:
    return None if code is not None and find_secret(code) is not None else code


TEXT = redact_optional
JSON = redact_json
# table: (primary key columns, {column: how it is cleaned})
COLUMNS: dict[str, tuple[tuple[str, ...], dict[str, Callable[[str | None], str | None]]]] = {
    "suggestions": (
        ("id",),
        {
            "path": TEXT,
            "title": TEXT,
            "body": TEXT,
            "lesson": TEXT,
            "replacement": _replacement,
            "anchors": JSON,
        },
    ),
    "reviews": (("id",), {"draft": JSON}),
    "entries": (("id",), {"title": TEXT, "text": TEXT, "associations": JSON}),
    "receipts": (("id",), {"span": TEXT}),
    "link_names": (("account_id", "number"), {"name": TEXT}),
    "judge_verdicts": (("id",), {"quote": TEXT, "detail": TEXT}),
    "memory_summaries": (("repository_id",), {"text": TEXT}),
    "memory_items": (("id",), {"subject": TEXT, "text": TEXT, "files": JSON}),
    "memory_hits": (("id",), {"subject": TEXT}),
    "proofs": (("suggestion_id",), {"test": TEXT, "reason": TEXT}),
    "review_calls": (("id",), {"message": TEXT}),
    "jobs": (("id",), {"last_error": TEXT}),
    "suppressed_findings": (("id",), {"title": TEXT, "path": TEXT}),
    "lesson_events": (("id",), {"before_text": TEXT, "after_text": TEXT}),
}


def _redact_table(
    conn: sa.Connection,
    name: str,
    keys: tuple[str, ...],
    columns: dict[str, Callable[[str | None], str | None]],
) -> None:
    table = sa.table(name, *(sa.column(c) for c in (*keys, *columns)))
    order = [table.c[k] for k in keys]
    after: tuple[object, ...] | None = None
    while True:
        query = sa.select(*order, *(table.c[c] for c in columns)).order_by(*order).limit(BATCH)
        if after is not None:
            query = query.where(sa.tuple_(*order) > sa.tuple_(*after))
        rows = conn.execute(query).all()
        if not rows:
            return
        for row in rows:
            changed = {}
            for column, clean in columns.items():
                value = getattr(row, column)
                cleaned = clean(value)
                if cleaned != value:
                    changed[column] = cleaned
            if changed:
                where = sa.and_(*(table.c[k] == getattr(row, k) for k in keys))
                conn.execute(sa.update(table).where(where).values(**changed))
        after = tuple(getattr(rows[-1], k) for k in keys)


def upgrade() -> None:
    conn = op.get_bind()
    for name, (keys, columns) in COLUMNS.items():
        _redact_table(conn, name, keys, columns)


def downgrade() -> None:
    """A redacted secret cannot come back."""
