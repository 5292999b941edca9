"""Deleting a session: its injections, its memory, and the entries whose only source it was."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, delete, select

from continual import memory, store
from continual.injections import injections_path
from continual.tables import Account, Entry, Injection, Receipt, Repository, Suggestion

MAX_ATTEMPTS = 8


@dataclass(frozen=True, slots=True)
class SessionDeleted:
    """What deleting one session removed, counted, and the entries it left because they have
    other sources."""

    session_id: str
    injections: int
    injection_lines: int
    memory_items: int
    memory_hits: int
    memory_files: int
    entries: int
    kept_entries: int

    def as_json(self) -> dict[str, object]:
        return {
            "session": self.session_id,
            "deleted": {
                "injections": self.injections,
                "injection_lines": self.injection_lines,
                "memory_items": self.memory_items,
                "memory_hits": self.memory_hits,
                "memory_files": self.memory_files,
                "entries": self.entries,
            },
            "kept_entries": self.kept_entries,
        }


def _entries_of_session(
    conn: Connection, account_id: int, session_id: str
) -> tuple[list[str], int]:
    """Entries made only from the session's suggestions (to delete), and how many others it fed."""
    mine = set(
        conn.execute(
            select(Suggestion.id).where(
                Suggestion.account_id == account_id, Suggestion.review_id == session_id
            )
        ).scalars()
    )
    if not mine:
        return [], 0
    touched = set(
        conn.execute(
            select(Receipt.entry_id).where(
                Receipt.account_id == account_id, Receipt.suggestion_id.in_(sorted(mine))
            )
        ).scalars()
    )
    only: list[str] = []
    kept = 0
    for entry_id in sorted(touched):
        sources = set(
            conn.execute(
                select(Receipt.suggestion_id).where(Receipt.entry_id == entry_id)
            ).scalars()
        )
        if sources <= mine:
            only.append(entry_id)
        else:
            kept += 1
    return only, kept


def _known(conn: Connection, account_id: int, session_id: str) -> bool:
    if memory.holds(conn, session_id, account_id=account_id):
        return True
    for table, column in (
        (Injection, Injection.session_id),
        (Suggestion, Suggestion.review_id),
    ):
        found = conn.execute(
            select(column).where(table.account_id == account_id, column == session_id).limit(1)
        ).first()
        if found is not None:
            return True
    return False


def _drop_lines(paths: Iterable[Path], session_id: str) -> int:
    """Rewrite each injections.jsonl without the session's lines (atomically); lines dropped."""
    dropped = 0
    for path in paths:
        if not path.is_file():
            continue
        keep: list[str] = []
        lines = path.read_text(encoding="utf-8").splitlines()
        for line in lines:
            try:
                mine = json.loads(line).get("session_id") == session_id
            except ValueError:
                mine = False
            if mine:
                dropped += 1
            else:
                keep.append(line)
        if len(keep) != len(lines):
            spare = path.with_suffix(".jsonl.tmp")
            spare.write_text("".join(f"{line}\n" for line in keep), encoding="utf-8")
            os.replace(spare, path)
    return dropped


@dataclass(frozen=True, slots=True)
class _Removed:
    """What the store transaction removed: injection rows and tombstoned entries."""

    injections: int
    entries: int
    kept_entries: int


def _delete_once(
    conn: Connection, account_id: int, session_id: str, *, now: int
) -> _Removed | None:
    if not _known(conn, account_id, session_id):
        return None
    only, kept = _entries_of_session(conn, account_id, session_id)
    if only:  # paraphrases consolidation merged into an entry the session alone made go too
        only += sorted(
            conn.execute(
                select(Entry.id).where(Entry.account_id == account_id, Entry.replaced_by.in_(only))
            ).scalars()
        )
    for entry_id in only:
        found = store.entry(conn, entry_id)
        if found is not None and not store.is_erased(found):
            store.tombstone(conn, entry_id, expected=None, now=now)
    injections = conn.execute(
        delete(Injection).where(
            Injection.account_id == account_id, Injection.session_id == session_id
        )
    ).rowcount
    return _Removed(injections, len(only), kept)


def delete_session(
    engine: Engine, store_dir: Path, *, account_id: int, session_id: str, now: int
) -> SessionDeleted | None:
    """Delete one session of the account; None when the account knows no such session.

    The entries whose every receipt came from the session's suggestions are tombstoned (so the
    same suggestions never re-create them); entries with other sources are kept as they are.
    After that commit the session's memory is forgotten (``continual.memory.forget``: its rows,
    then its ``session-memory.jsonl`` under the account's repositories) and its lines leave the
    account's injections.jsonl files. Deleting again finishes whatever an interruption left.
    """
    for attempt in range(MAX_ATTEMPTS):
        try:
            with engine.begin() as conn:
                done = _delete_once(conn, account_id, session_id, now=now)
                login = conn.execute(select(Account.login).where(Account.id == account_id)).scalar()
                names = list(
                    conn.execute(
                        select(Repository.full_name).where(Repository.account_id == account_id)
                    ).scalars()
                )
            break
        except store.RevisionConflict:
            if attempt == MAX_ATTEMPTS - 1:
                raise
    forgotten = memory.forget(
        engine, store_dir, session_id, account_id=account_id, repositories=names
    )
    if done is None and not forgotten.anything:
        return None
    removed = done or _Removed(0, 0, 0)
    paths = [injections_path(store_dir, str(login), name) for name in names]
    lines = _drop_lines(paths, session_id)
    return SessionDeleted(
        session_id=session_id,
        injections=removed.injections,
        injection_lines=lines,
        memory_items=forgotten.items,
        memory_hits=forgotten.hits,
        memory_files=forgotten.files,
        entries=removed.entries,
        kept_entries=removed.kept_entries,
    )
