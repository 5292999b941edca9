"""Forgetting a session's memory: its stored items and hits, then its session file."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from continual.memory.files import remove_session_files
from continual.memory.store import delete_rows


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What forgetting one session's memory removed."""

    items: int
    hits: int
    files: int

    @property
    def anything(self) -> bool:
        return bool(self.items or self.hits or self.files)


def forget(
    engine: Engine,
    store_dir: Path,
    session_id: str,
    *,
    account_id: int | None = None,
    repositories: Iterable[str] | None = None,
) -> Forgotten:
    """Delete the session's memory items and hits, then its ``session-memory.jsonl`` (and its
    folder when empty). With ``account_id`` only that account's rows go, and ``repositories``
    (that account's ``owner/name``s) limits where files are looked for. Forgetting twice
    removes nothing the second time."""
    with engine.begin() as conn:
        items, hits = delete_rows(conn, session_id, account_id=account_id)
    files = remove_session_files(store_dir, session_id, repositories=repositories)
    return Forgotten(items=items, hits=hits, files=files)
