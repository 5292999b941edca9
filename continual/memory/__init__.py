"""Session memory that outlives its review: values, save, recall, files, rendering, forget (its
tables live in ``continual.tables.memory``)."""

from __future__ import annotations

from continual.memory.commands import refusal, text_refusal
from continual.memory.files import (
    check_review_id,
    find_session_file,
    read_session_file,
    repository_dir,
    session_dir,
    write_session_file,
)
from continual.memory.forget import Forgotten, forget
from continual.memory.items import (
    ItemKind,
    MemoryHit,
    MemoryItem,
    finding_of_subject,
    kept_as,
    promotable,
)
from continual.memory.provenance import Reporter, Source, reported_source
from continual.memory.render import (
    RECALLED_HEADER,
    Relevance,
    cited_line,
    for_call,
    handed_key,
    recalled_block,
)
from continual.memory.store import (
    delete_rows,
    hits_by_repository,
    holds,
    recall_items,
    save_hits,
    save_items,
    states_by_repository,
)
from continual.memory.switch import (
    MemoryCleared,
    MemorySwitch,
    clear_memory,
    memory_enabled,
    memory_switch,
    set_memory,
)

__all__ = [
    "RECALLED_HEADER",
    "Forgotten",
    "ItemKind",
    "MemoryCleared",
    "MemoryHit",
    "MemoryItem",
    "MemorySwitch",
    "Relevance",
    "Reporter",
    "Source",
    "check_review_id",
    "cited_line",
    "clear_memory",
    "delete_rows",
    "find_session_file",
    "finding_of_subject",
    "for_call",
    "forget",
    "handed_key",
    "hits_by_repository",
    "holds",
    "kept_as",
    "memory_enabled",
    "memory_switch",
    "promotable",
    "read_session_file",
    "recall_items",
    "recalled_block",
    "refusal",
    "reported_source",
    "repository_dir",
    "save_hits",
    "save_items",
    "session_dir",
    "set_memory",
    "states_by_repository",
    "text_refusal",
    "write_session_file",
]
