"""Session memory that outlives its review: stored, recalled by the next review, hits counted."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select

from continual.tables import MemoryHitRow, MemoryItemRow
from continual.values import EntryState
from review.memory import ItemKind, MemoryHit, MemoryItem

SESSIONS_DIR = "sessions"
SESSION_FILE = "session-memory.jsonl"
CHECKOUT_DIR = "checkout"
REVIEW_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class Cleared:
    """What ``memory clear`` removed for one review."""

    items: int
    hits: int
    files: int


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _moment(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def check_review_id(review_id: str) -> str:
    """``review_id`` if it is a plain id (it names a folder); ValueError otherwise."""
    if not REVIEW_ID.fullmatch(review_id):
        raise ValueError(f"{review_id!r} is not a review id (letters, digits, _ and -)")
    return review_id


def repository_dir(store_dir: Path, repository: str) -> Path:
    """``<store>/<owner>/<name>``: where a repository's files live."""
    owner, _, name = repository.partition("/")
    if not owner or not name or "/" in name or owner in (".", "..") or name in (".", ".."):
        raise ValueError(f"a repository is named owner/name, got {repository!r}")
    return store_dir / owner / name


def session_dir(store_dir: Path, repository: str, review_id: str) -> Path:
    return repository_dir(store_dir, repository) / SESSIONS_DIR / check_review_id(review_id)


def checkout_dir(store_dir: Path, repository: str) -> Path:
    """The local git repository proofs check the head out of: ``<store>/<owner>/<name>/checkout``."""
    return repository_dir(store_dir, repository) / CHECKOUT_DIR


def find_session_file(store_dir: Path, review_id: str) -> Path | None:
    """The review's ``session-memory.jsonl`` wherever its repository is, if it exists."""
    check_review_id(review_id)
    for path in sorted(store_dir.glob(f"*/*/{SESSIONS_DIR}/{review_id}/{SESSION_FILE}")):
        return path
    return None


def save_items(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    items: Sequence[MemoryItem],
    now_ms: int,
) -> int:
    """Store what the review learned; tool paths arrive active, the rest as candidates."""
    if not items:
        return 0
    conn.execute(
        insert(MemoryItemRow),
        [
            {
                "account_id": account_id,
                "repository_id": repository_id,
                "review_id": item.session,
                "kind": item.kind.value,
                "subject": item.subject,
                "text": item.text,
                "seat": item.seat,
                "lens": item.lens,
                "commit": item.commit,
                "files": json.dumps(list(item.files)),
                "state": item.state.value,
                "expires_ms": _ms(item.expires_at),
                "created_ms": now_ms,
            }
            for item in items
        ],
    )
    return len(items)


def recall_items(
    conn: Connection, *, repository_id: int, now_ms: int, exclude_review: str | None = None
) -> list[MemoryItem]:
    """Unexpired memory of the repository's earlier reviews, newest first, one per subject."""
    query = (
        select(MemoryItemRow)
        .where(MemoryItemRow.repository_id == repository_id, MemoryItemRow.expires_ms > now_ms)
        .order_by(MemoryItemRow.created_ms.desc(), MemoryItemRow.id.desc())
    )
    if exclude_review is not None:
        query = query.where(MemoryItemRow.review_id != exclude_review)
    seen: set[str] = set()
    found: list[MemoryItem] = []
    for row in conn.execute(query).all():
        if row.subject in seen:
            continue
        seen.add(row.subject)
        found.append(
            MemoryItem(
                kind=ItemKind(row.kind),
                subject=row.subject,
                text=row.text,
                seat=row.seat,
                session=row.review_id,
                commit=row.commit,
                state=EntryState(row.state),
                expires_at=_moment(row.expires_ms),
                recorded_at=_moment(row.created_ms),
                lens=row.lens,
                files=tuple(json.loads(row.files)),
            )
        )
    return found


def save_hits(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    review_id: str,
    hits: Sequence[MemoryHit],
    now_ms: int,
) -> int:
    if not hits:
        return 0
    conn.execute(
        insert(MemoryHitRow),
        [
            {
                "account_id": account_id,
                "repository_id": repository_id,
                "review_id": review_id,
                "recalled_review_id": hit.recalled_session,
                "kind": hit.kind.value,
                "subject": hit.subject,
                "subject_sha256": hashlib.sha256(hit.subject.encode()).hexdigest(),
                "seat": hit.seat,
                "call_id": hit.call_id,
                "created_ms": now_ms,
            }
            for hit in hits
        ],
    )
    return len(hits)


def forget_review(conn: Connection, review_id: str) -> tuple[int, int]:
    """Delete a review's stored memory items and hits; answers (items, hits) deleted."""
    items = conn.execute(delete(MemoryItemRow).where(MemoryItemRow.review_id == review_id))
    hits = conn.execute(delete(MemoryHitRow).where(MemoryHitRow.review_id == review_id))
    return items.rowcount, hits.rowcount


def _item_line(kind: str, item: MemoryItem) -> dict[str, Any]:
    return {
        "type": kind,
        "kind": item.kind.value,
        "subject": item.subject,
        "text": item.text,
        "seat": item.seat,
        "session": item.session,
        "commit": item.commit,
        "state": item.state.value,
        "expires_ms": _ms(item.expires_at),
    }


def write_session_file(
    store_dir: Path,
    repository: str,
    review_id: str,
    *,
    learned: Sequence[MemoryItem],
    recalled: Sequence[MemoryItem],
    hits: Sequence[MemoryHit],
    now_ms: int,
) -> Path:
    """Write ``session-memory.jsonl``: one line per item learned, recalled and hit."""
    folder = session_dir(store_dir, repository, review_id)
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        {"type": "session", "review": review_id, "repository": repository, "at_ms": now_ms},
        *(_item_line("learned", item) for item in learned),
        *(_item_line("recalled", item) for item in recalled),
        *(
            {
                "type": "hit",
                "kind": hit.kind.value,
                "subject": hit.subject,
                "recalled_session": hit.recalled_session,
                "recalled_seat": hit.recalled_seat,
                "seat": hit.seat,
                "call": hit.call_id,
            }
            for hit in hits
        ),
    ]
    path = folder / SESSION_FILE
    scratch = path.with_suffix(".tmp")
    scratch.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    scratch.replace(path)
    return path


def read_session_file(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def remove_session_files(store_dir: Path, review_id: str) -> int:
    """Remove the review's session folder; answers how many files went."""
    path = find_session_file(store_dir, review_id)
    if path is None:
        return 0
    folder = path.parent
    count = sum(1 for child in folder.rglob("*") if child.is_file())
    shutil.rmtree(folder)
    return count


def clear_session(engine: Engine, store_dir: Path, review_id: str) -> Cleared:
    """Forget everything one review's memory left: stored items, hits and its session file."""
    check_review_id(review_id)
    with engine.begin() as conn:
        items, hits = forget_review(conn, review_id)
    return Cleared(items=items, hits=hits, files=remove_session_files(store_dir, review_id))
