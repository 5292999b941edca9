"""Recall: the frozen snapshot of an account's lessons, its inverted index, and the naive scan.

What recall offers the rest of the project, and the only names it should import from here:

- the cards a query ranks: `Card`, `Query`, `Scored`;
- an account's lessons read from the store: `Lesson` with its `SourceReceipt`s, `load_lessons`
  (all of them, with their widening), `read_lessons` (the rows as they are);
- the snapshot that answers recall, and the per-process cache that keeps it fresh: `Snapshot`,
  `SnapshotCache`, `build_snapshot`;
- what the store calls when an entry is written: `note_entry_change` (so cached snapshots see it;
  `note_entry_changes` for many at once), `generation_of` (an account's change counter),
  `number_links`, `number_many` and `number_account` (the numbers the index reads an entry's
  links by).

Each name is loaded from its module on first use, so a caller that needs only `Card` does not pay
for numpy, the tables and the snapshot. Tests and benchmarks of recall's own workings (the index,
the postings, the numbering, the naive scan the index is checked against) import the submodules
directly; migrations do too, as they must not follow later changes to this list.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # as typing's, without importing typing: a bare import stays this cheap
if TYPE_CHECKING:
    from typing import Any

    from continual.recall.cache import SnapshotCache as SnapshotCache
    from continual.recall.cards import Card as Card
    from continual.recall.cards import Query as Query
    from continual.recall.cards import Scored as Scored
    from continual.recall.changes import generation_of as generation_of
    from continual.recall.changes import note_entry_change as note_entry_change
    from continual.recall.changes import note_entry_changes as note_entry_changes
    from continual.recall.lessons import Lesson as Lesson
    from continual.recall.lessons import SourceReceipt as SourceReceipt
    from continual.recall.lessons import load_lessons as load_lessons
    from continual.recall.lessons import read_lessons as read_lessons
    from continual.recall.numbering import number_account as number_account
    from continual.recall.numbering import number_links as number_links
    from continual.recall.numbering import number_many as number_many
    from continual.recall.snapshot import Snapshot as Snapshot
    from continual.recall.snapshot import build_snapshot as build_snapshot

HOMES = {
    "Card": "cards",
    "Query": "cards",
    "Scored": "cards",
    "generation_of": "changes",
    "note_entry_change": "changes",
    "note_entry_changes": "changes",
    "Lesson": "lessons",
    "SourceReceipt": "lessons",
    "load_lessons": "lessons",
    "read_lessons": "lessons",
    "number_account": "numbering",
    "number_links": "numbering",
    "number_many": "numbering",
    "Snapshot": "snapshot",
    "SnapshotCache": "cache",
    "build_snapshot": "snapshot",
}


def __getattr__(name: str) -> Any:
    """Load a public name from its module the first time it is asked for (PEP 562)."""
    home = HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *HOMES])
