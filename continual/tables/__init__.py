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
"""

from __future__ import annotations

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
