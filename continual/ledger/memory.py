"""The ledger's counts of session memory: items by state and hits, per repository."""

from __future__ import annotations

from collections import Counter, defaultdict

from sqlalchemy import Connection, func, select

from continual.tables import MemoryHitRow, MemoryItemRow

EXPIRED = "expired"


def memory_counts(
    conn: Connection, account_id: int, *, now: int
) -> tuple[dict[int, dict[str, int]], dict[int, int]]:
    """Per repository: memory items by state (past their expiry: expired), and memory hits."""
    states: defaultdict[int, Counter[str]] = defaultdict(Counter)
    for repository_id, state, expires_ms in conn.execute(
        select(MemoryItemRow.repository_id, MemoryItemRow.state, MemoryItemRow.expires_ms).where(
            MemoryItemRow.account_id == account_id
        )
    ).all():
        states[repository_id][EXPIRED if expires_ms <= now else state] += 1
    hits = {
        repository_id: count
        for repository_id, count in conn.execute(
            select(MemoryHitRow.repository_id, func.count())
            .where(MemoryHitRow.account_id == account_id)
            .group_by(MemoryHitRow.repository_id)
        ).all()
    }
    return {r: dict(sorted(tally.items())) for r, tally in states.items()}, hits
