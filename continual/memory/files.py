"""Where session memory lives on disk: ``<store>/<owner>/<repo>/sessions/<id>/session-memory.jsonl``."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from continual.memory.items import MemoryHit, MemoryItem, without_secrets
from continual.times import to_ms

SESSIONS_DIR = "sessions"
SESSION_FILE = "session-memory.jsonl"
SCRATCH_SUFFIX = ".tmp"
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_review_id(review_id: str) -> str:
    """``review_id`` if it is a plain id (it names a folder); ValueError otherwise."""
    if not SESSION_ID.fullmatch(review_id):
        raise ValueError(f"{review_id!r} is not a review id (letters, digits, _ and -)")
    return review_id


def repository_dir(store_dir: Path, repository: str) -> Path:
    """``<store>/<owner>/<name>``: where a repository's files live."""
    owner, _, name = repository.partition("/")
    if not owner or not name or "/" in name or owner in (".", "..") or name in (".", ".."):
        raise ValueError(f"a repository is named owner/name, got {repository!r}")
    return store_dir / owner / name


def session_dir(store_dir: Path, repository: str, review_id: str) -> Path:
    """``<store>/<owner>/<name>/sessions/<review>``."""
    return repository_dir(store_dir, repository) / SESSIONS_DIR / check_review_id(review_id)


def find_session_file(store_dir: Path, review_id: str) -> Path | None:
    """The review's ``session-memory.jsonl`` wherever its repository is, if it exists."""
    check_review_id(review_id)
    for path in sorted(store_dir.glob(f"*/*/{SESSIONS_DIR}/{review_id}/{SESSION_FILE}")):
        return path
    return None


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
        "source": item.source.value if item.established else "reported",
        "reporters": [[reporter.seat, reporter.lab] for reporter in item.reported_by],
        "expires_ms": to_ms(item.expires_at),
    }


def _hit_line(hit: MemoryHit) -> dict[str, Any]:
    return {
        "type": "hit",
        "kind": hit.kind.value,
        "subject": hit.subject,
        "recalled_session": hit.recalled_session,
        "recalled_seat": hit.recalled_seat,
        "seat": hit.seat,
        "call": hit.call_id,
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
    """Write ``session-memory.jsonl`` atomically: one line per item learned, recalled and hit
    (an item holding a secret is left out)."""
    folder = session_dir(store_dir, repository, review_id)
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        {"type": "session", "review": review_id, "repository": repository, "at_ms": now_ms},
        *(_item_line("learned", item) for item in without_secrets(learned)),
        *(_item_line("recalled", item) for item in without_secrets(recalled)),
        *(_hit_line(hit) for hit in hits),
    ]
    path = folder / SESSION_FILE
    scratch = path.with_suffix(SCRATCH_SUFFIX)
    scratch.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    scratch.replace(path)
    return path


def read_session_file(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _session_dirs(
    store_dir: Path, session_id: str, repositories: Iterable[str] | None
) -> list[Path]:
    if repositories is None:
        return sorted(store_dir.glob(f"*/*/{SESSIONS_DIR}/{session_id}"))
    folders: list[Path] = []
    for repository in repositories:
        try:
            folders.append(session_dir(store_dir, repository, session_id))
        except ValueError:  # a name that cannot be a folder holds no session files
            continue
    return folders


def remove_session_files(
    store_dir: Path, session_id: str, *, repositories: Iterable[str] | None = None
) -> int:
    """Remove the session's memory file (and its folder when that leaves it empty); answers how
    many files went. ``repositories`` limits the search to those ``owner/name`` folders (one
    account's); None looks everywhere under ``store_dir``. An id that cannot name a folder has
    no files."""
    if not SESSION_ID.fullmatch(session_id):
        return 0
    removed = 0
    for folder in _session_dirs(store_dir, session_id, repositories):
        for name in (SESSION_FILE, Path(SESSION_FILE).with_suffix(SCRATCH_SUFFIX).name):
            try:
                (folder / name).unlink()
            except FileNotFoundError:
                continue
            removed += 1
        with contextlib.suppress(OSError):  # absent, or it holds something else: leave it
            folder.rmdir()
    return removed
