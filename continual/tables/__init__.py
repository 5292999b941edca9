"""Every table of the core, in one metadata, one module per family: the store, the entry change
log, links, people, the history back-fill, the judge, session memory, reviews, lessons, proofs,
fix PRs. The door's tables are in ``ghapp/tables.py``; ``docs/schema.md`` is the whole schema, rendered from these classes.

These modules import only SQLAlchemy and the standard library (an enum a column takes is defined
beside its table), so reading the schema loads none of the product's logic.

Names, one convention:

- A table is the plural ``snake_case`` noun of what one row holds; the tables of one family share
  its prefix (``review_calls``, ``memory_items``, ``lesson_events``). ``lesson_provenance`` is a
  mass noun.
- Its class is that noun, singular, in ``CamelCase`` (``link_names`` → ``LinkName``), with ``Row``
  appended where the code passes the same thing around as a value class of its own, so the two
  never share a name: ``MemoryItemRow``/``MemoryItem``, ``MemoryHitRow``/``MemoryHit``,
  ``ProofRow``/``ProofEvidence``, ``JudgeVerdictRow``/``Judgement``, ``MemorySummaryRow``/``Summary``,
  ``ReviewRow``/``ReviewRun``, ``ReviewCallRow``/``CallRecord``.
- Constraints and indexes are named by ``NAMING_CONVENTION`` (``ix_<table>_<column>``,
  ``uq_<table>_<column>``, ``fk_<table>_<column>_<referred table>``, ``pk_<table>``); an index
  over several columns is named ``ix_<table>_<what it serves>`` (``ix_jobs_claim``), a partial
  unique index ``uq_<table>_<what it keeps unique>`` (``uq_entries_live_key``).

Each name is loaded from its family's module on first use (PEP 562), so a command that reads a
few tables (an agent hook: the store, people, links, suppressions) does not pay for mapping the
others. ``Base`` (and with it the metadata: migrations, the schema page, purging) loads every
family first (in one fixed order), so the metadata is always the whole schema.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # as typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from continual.tables.base import NAMING_CONVENTION, Base
    from continual.tables.changes import EntryChange
    from continual.tables.fixes import FixPullRow, FixState
    from continual.tables.history import (
        HistoryComment,
        HistoryLesson,
        HistoryPublication,
        HistoryPull,
        HistoryRefusal,
        HistoryRun,
    )
    from continual.tables.judge import JudgeVerdictRow
    from continual.tables.lessons import LessonEvent, LessonProvenance
    from continual.tables.links import LinkName
    from continual.tables.memory import (
        MemoryHitRow,
        MemoryItemRow,
        MemorySettingRow,
        MemorySummaryRow,
    )
    from continual.tables.people import Injection, Person, Token
    from continual.tables.proofs import ProofRow
    from continual.tables.reviews import (
        CallStatus,
        ReviewAgreement,
        ReviewCallRow,
        ReviewRow,
        ReviewState,
        SuppressedFinding,
    )
    from continual.tables.store import (
        Account,
        Entry,
        Receipt,
        Repository,
        Suggestion,
        TombstonedSource,
    )

FAMILIES = (
    *("base", "changes", "fixes", "history", "judge", "lessons"),
    *("links", "memory", "people", "proofs", "reviews", "store"),
)
HOMES = {
    "NAMING_CONVENTION": "base",
    "Base": "base",
    "EntryChange": "changes",
    "FixPullRow": "fixes",
    "FixState": "fixes",
    "HistoryComment": "history",
    "HistoryLesson": "history",
    "HistoryPublication": "history",
    "HistoryPull": "history",
    "HistoryRefusal": "history",
    "HistoryRun": "history",
    "JudgeVerdictRow": "judge",
    "LessonEvent": "lessons",
    "LessonProvenance": "lessons",
    "LinkName": "links",
    "MemoryHitRow": "memory",
    "MemoryItemRow": "memory",
    "MemorySettingRow": "memory",
    "MemorySummaryRow": "memory",
    "Injection": "people",
    "Person": "people",
    "Token": "people",
    "ProofRow": "proofs",
    "CallStatus": "reviews",
    "ReviewAgreement": "reviews",
    "ReviewCallRow": "reviews",
    "ReviewRow": "reviews",
    "ReviewState": "reviews",
    "SuppressedFinding": "reviews",
    "Account": "store",
    "Entry": "store",
    "Receipt": "store",
    "Repository": "store",
    "Suggestion": "store",
    "TombstonedSource": "store",
}


def load_all() -> None:
    """Import every family, so ``Base.metadata`` holds every table of the core."""
    for family in FAMILIES:
        importlib.import_module(f"{__name__}.{family}")


def __getattr__(name: str) -> Any:
    """Load a public name from its family's module the first time it is asked for."""
    home = HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == "Base":
        load_all()
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *HOMES])


__all__ = [
    "NAMING_CONVENTION",
    "Account",
    "Base",
    "CallStatus",
    "Entry",
    "EntryChange",
    "FixPullRow",
    "FixState",
    "HistoryComment",
    "HistoryLesson",
    "HistoryPublication",
    "HistoryPull",
    "HistoryRefusal",
    "HistoryRun",
    "Injection",
    "JudgeVerdictRow",
    "LessonEvent",
    "LessonProvenance",
    "LinkName",
    "MemoryHitRow",
    "MemoryItemRow",
    "MemorySettingRow",
    "MemorySummaryRow",
    "Person",
    "ProofRow",
    "Receipt",
    "Repository",
    "ReviewAgreement",
    "ReviewCallRow",
    "ReviewRow",
    "ReviewState",
    "Suggestion",
    "SuppressedFinding",
    "Token",
    "TombstonedSource",
]
