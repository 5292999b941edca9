"""The memory switch of a repository (off by default), and clearing all of its memory data."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, delete, insert, select, update

from continual.memory.files import SCRATCH_SUFFIX, SESSION_FILE, SESSIONS_DIR, repository_dir
from continual.tables import MemoryHitRow, MemoryItemRow, MemorySettingRow, MemorySummaryRow


@dataclass(frozen=True, slots=True)
class MemorySwitch:
    """Whether the repository keeps and hands memory, and who last switched it (None: never)."""

    repository_id: int
    enabled: bool
    changed_ms: int | None = None
    changed_by: str | None = None


@dataclass(frozen=True, slots=True)
class MemoryCleared:
    """What clearing a repository's memory deleted, counted."""

    items: int
    hits: int
    summaries: int
    files: int

    def as_json(self) -> dict[str, int]:
        return {
            "memory_items": self.items,
            "memory_hits": self.hits,
            "summaries": self.summaries,
            "memory_files": self.files,
        }


def memory_switch(conn: Connection, repository_id: int) -> MemorySwitch:
    row = conn.execute(
        select(MemorySettingRow).where(MemorySettingRow.repository_id == repository_id)
    ).one_or_none()
    if row is None:
        return MemorySwitch(repository_id, False)
    return MemorySwitch(repository_id, bool(row.enabled), row.changed_ms, row.changed_by)


def memory_enabled(conn: Connection, repository_id: int) -> bool:
    """True only when a person turned the repository's memory on: no memory is kept, recalled,
    summarised or handed otherwise."""
    return memory_switch(conn, repository_id).enabled


def set_memory(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    enabled: bool,
    actor: str,
    now: int,
) -> MemorySwitch:
    """Turn the repository's memory on or off (turning it off keeps what is stored: clear it)."""
    values = {"enabled": enabled, "changed_ms": now, "changed_by": actor[:100]}
    done = conn.execute(
        update(MemorySettingRow)
        .where(MemorySettingRow.repository_id == repository_id)
        .values(**values)
    ).rowcount
    if not done:
        conn.execute(
            insert(MemorySettingRow).values(
                repository_id=repository_id, account_id=account_id, **values
            )
        )
    return MemorySwitch(repository_id, enabled, now, actor[:100])


def _remove_files(store_dir: Path, repository: str) -> int:
    """Every session-memory file of the repository (and each session folder left empty)."""
    try:
        sessions = repository_dir(store_dir, repository) / SESSIONS_DIR
    except ValueError:
        return 0
    removed = 0
    scratch = Path(SESSION_FILE).with_suffix(SCRATCH_SUFFIX).name
    for folder in sorted(sessions.glob("*")) if sessions.is_dir() else []:
        for name in (SESSION_FILE, scratch):
            with contextlib.suppress(FileNotFoundError):
                (folder / name).unlink()
                removed += 1
        with contextlib.suppress(OSError):
            folder.rmdir()
    with contextlib.suppress(OSError):
        sessions.rmdir()
    return removed


def clear_memory(
    engine: Engine, store_dir: Path, *, account_id: int, repository_id: int, repository: str
) -> MemoryCleared:
    """Delete all of the repository's memory data: its items, hits and summary, then its
    session-memory files. The switch stays as it is."""
    with engine.begin() as conn:
        counts = [
            conn.execute(
                delete(table).where(
                    table.account_id == account_id, table.repository_id == repository_id
                )
            ).rowcount
            for table in (MemoryItemRow, MemoryHitRow, MemorySummaryRow)
        ]
    return MemoryCleared(counts[0], counts[1], counts[2], _remove_files(store_dir, repository))
