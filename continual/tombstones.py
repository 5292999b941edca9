"""The sources a deleted entry held: recorded at deletion, they never decide anything again."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from sqlalchemy import Connection, delete, insert, select

from continual.batches import in_lists
from continual.tables import TombstonedSource


def is_tombstoned_source(conn: Connection, source_id: str) -> bool:
    """True when an entry made from `source_id` was deleted: that source never decides anything
    again, whatever entry its key holds now (a new source may have re-created it)."""
    found = conn.execute(
        select(TombstonedSource.suggestion_id).where(TombstonedSource.suggestion_id == source_id)
    ).first()
    return found is not None


def hold_sources(
    conn: Connection, account_id: int, entry_id: str, sources: Collection[str], *, now: int
) -> None:
    """Record each source of a deleted entry as tombstoned (once: the first deletion holds)."""
    hold_sources_of(conn, account_id, {entry_id: sources}, now=now)


def hold_sources_of(
    conn: Connection, account_id: int, by_entry: Mapping[str, Collection[str]], *, now: int
) -> None:
    """``hold_sources`` for many deleted entries of one account: one read, one insert."""
    holder: dict[str, str] = {}
    for entry_id, sources in by_entry.items():
        for sid in sources:
            holder.setdefault(sid, entry_id)
    for chunk in in_lists(list(holder)):
        known = conn.execute(
            select(TombstonedSource.suggestion_id).where(TombstonedSource.suggestion_id.in_(chunk))
        ).scalars()
        for sid in known:
            holder.pop(sid, None)
    if holder:
        conn.execute(
            insert(TombstonedSource),
            [
                {
                    "suggestion_id": sid,
                    "account_id": account_id,
                    "entry_id": entry_id,
                    "created_ms": now,
                }
                for sid, entry_id in holder.items()
            ],
        )


def release_sources(conn: Connection, entry_id: str) -> None:
    """A retired lesson a person restored is live again: its sources decide for it again."""
    conn.execute(delete(TombstonedSource).where(TombstonedSource.entry_id == entry_id))
