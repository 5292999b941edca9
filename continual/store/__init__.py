"""The store's writes: suggestions, entries under compare-and-swap revisions, receipts, tombstones."""

from __future__ import annotations

from continual.store.entries import (
    EntryGone,
    NewEntry,
    RevisionConflict,
    cas_update,
    create_entry,
    entry,
    entry_for_key,
    is_erased,
    live_entry,
    new_id,
    person_edit,
    tombstone,
)
from continual.store.receipts import (
    NewReceipt,
    entry_tally,
    receipts_of,
    refresh,
    retract,
    set_receipt,
)
from continual.store.suggestions import (
    NewSuggestion,
    carried_by_comment,
    note_claims,
    note_resolved,
    record_suggestion,
    repository_id,
    set_comment_id,
    suggestion,
    suggestion_repository,
    suggestions_of_pull,
)

__all__ = [
    "EntryGone",
    "NewEntry",
    "NewReceipt",
    "NewSuggestion",
    "RevisionConflict",
    "carried_by_comment",
    "cas_update",
    "create_entry",
    "entry",
    "entry_for_key",
    "entry_tally",
    "is_erased",
    "live_entry",
    "new_id",
    "note_claims",
    "note_resolved",
    "person_edit",
    "receipts_of",
    "record_suggestion",
    "refresh",
    "repository_id",
    "retract",
    "set_comment_id",
    "set_receipt",
    "suggestion",
    "suggestion_repository",
    "suggestions_of_pull",
    "tombstone",
]
