"""The stored memory summary of a repository: read it, rebuild it when its sources' fingerprint
changed (or on demand), and clear it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.dialects import postgresql, sqlite

from continual.injections import Target
from continual.memory import MemoryItem, recall_items
from continual.recall import Card, Snapshot
from continual.secrets import redact
from continual.summary.build import SUMMARY_ID, build_summary, fingerprint
from continual.suppression import refused_cards, suppressions, unrefused
from continual.tables import MemorySummaryRow


@dataclass(frozen=True, slots=True)
class StoredSummary:
    """A repository's summary as stored: empty text when cleared or when there is nothing yet."""

    repository_id: int
    repository: str
    text: str
    revision: int
    fingerprint: str
    lessons: int
    memories: int
    omitted: int
    built_ms: int
    cleared_ms: int | None = None
    cleared_by: str | None = None

    @property
    def id(self) -> str:
        return SUMMARY_ID.format(repository_id=self.repository_id)

    @property
    def chars(self) -> int:
        return len(self.text)


def sources(
    conn: Connection, target: Target, snapshot: Snapshot, *, now: int
) -> tuple[list[Card], list[MemoryItem]]:
    """What the summary is built from: the lessons a session here is handed (standing, not
    refused) and the repository's unexpired session memory (a refused mechanism's finding left
    out)."""
    found = suppressions(conn, target.repository_id, now_ms=now)
    refused = refused_cards(found)
    cards = [c for c in snapshot.standing(target.repository) if (c.id, c.revision) not in refused]
    items = recall_items(
        conn, account_id=target.account_id, repository_id=target.repository_id, now_ms=now
    )
    return cards, unrefused(items, found)


def _read(conn: Connection, target: Target) -> StoredSummary | None:
    row = conn.execute(
        select(MemorySummaryRow).where(MemorySummaryRow.repository_id == target.repository_id)
    ).one_or_none()
    if row is None:
        return None
    return StoredSummary(
        repository_id=row.repository_id,
        repository=target.repository,
        text=row.text,
        revision=row.revision,
        fingerprint=row.fingerprint,
        lessons=row.lessons,
        memories=row.memories,
        omitted=row.omitted,
        built_ms=row.built_ms,
        cleared_ms=row.cleared_ms,
        cleared_by=row.cleared_by,
    )


def _upsert(conn: Connection, target: Target, values: dict[str, Any]) -> StoredSummary:
    """Insert the repository's row or replace its content, bumping its revision."""
    if isinstance(values.get("text"), str):  # built from stored text; redacted again at the door
        values = {**values, "text": redact(values["text"])}
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(MemorySummaryRow).values(
        repository_id=target.repository_id, account_id=target.account_id, revision=1, **values
    )
    statement = statement.on_conflict_do_update(
        index_elements=[MemorySummaryRow.repository_id],
        set_={**values, "revision": MemorySummaryRow.revision + 1},
    )
    conn.execute(statement)
    stored = _read(conn, target)
    assert stored is not None
    return stored


def current_summary(
    conn: Connection, target: Target, snapshot: Snapshot, *, now: int, rebuild: bool = False
) -> StoredSummary:
    """The repository's summary now: the stored one while its sources' fingerprint is unchanged
    (a cleared one stays cleared), else rebuilt and stored; ``rebuild`` forces it."""
    cards, items = sources(conn, target, snapshot, now=now)
    digest = fingerprint(cards, items)
    stored = _read(conn, target)
    if stored is not None and stored.fingerprint == digest and not rebuild:
        return stored
    built = build_summary(target.repository, cards, items)
    return _upsert(
        conn,
        target,
        {
            "text": built.text,
            "fingerprint": digest,
            "lessons": built.lessons,
            "memories": built.memories,
            "omitted": built.omitted,
            "built_ms": now,
            "cleared_ms": None,
            "cleared_by": None,
        },
    )


def clear_summary(
    conn: Connection, target: Target, snapshot: Snapshot, *, now: int, actor: str
) -> StoredSummary:
    """Withdraw the summary: nothing is handed until its lessons or memory change, or a rebuild."""
    cards, items = sources(conn, target, snapshot, now=now)
    return _upsert(
        conn,
        target,
        {
            "text": "",
            "fingerprint": fingerprint(cards, items),
            "lessons": 0,
            "memories": 0,
            "omitted": 0,
            "built_ms": now,
            "cleared_ms": now,
            "cleared_by": actor,
        },
    )
