"""Session memory that outlives its review: rows, values, save, recall, files, rendering, forget."""

from __future__ import annotations

from continual.memory.files import (
    check_review_id,
    find_session_file,
    read_session_file,
    repository_dir,
    session_dir,
    write_session_file,
)
from continual.memory.forget import Forgotten, forget
from continual.memory.items import ItemKind, MemoryHit, MemoryItem, kept_as
from continual.memory.render import (
    RECALLED_HEADER,
    Relevance,
    cited_line,
    for_call,
    handed_key,
    recalled_block,
)
from continual.memory.rows import MemoryHitRow, MemoryItemRow
from continual.memory.store import (
    delete_rows,
    hits_by_repository,
    holds,
    recall_items,
    save_hits,
    save_items,
    states_by_repository,
)

__all__ = [
    "RECALLED_HEADER",
    "Forgotten",
    "ItemKind",
    "MemoryHit",
    "MemoryHitRow",
    "MemoryItem",
    "MemoryItemRow",
    "Relevance",
    "check_review_id",
    "cited_line",
    "delete_rows",
    "find_session_file",
    "for_call",
    "forget",
    "handed_key",
    "hits_by_repository",
    "holds",
    "kept_as",
    "read_session_file",
    "recall_items",
    "recalled_block",
    "repository_dir",
    "save_hits",
    "save_items",
    "session_dir",
    "states_by_repository",
    "write_session_file",
]
