"""Every table of the core, in one metadata: the store, reviews, their memory and proofs, people,
the judge."""

from __future__ import annotations

from continual.tables.base import NAMING_CONVENTION, Base
from continual.tables.changes import EntryChange
from continual.tables.judge import JudgeVerdictRow
from continual.tables.lessons import LessonEvent, LessonProvenance
from continual.tables.links import LinkName
from continual.tables.memory import MemoryHitRow, MemoryItemRow, MemorySummaryRow
from continual.tables.people import Injection, Person, Token
from continual.tables.proofs import ProofRow
from continual.tables.reviews import (
    Agreement,
    CallRecordRow,
    CallStatus,
    ReviewRecord,
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
    "Agreement",
    "Base",
    "CallRecordRow",
    "CallStatus",
    "Entry",
    "EntryChange",
    "Injection",
    "JudgeVerdictRow",
    "LessonEvent",
    "LessonProvenance",
    "LinkName",
    "MemoryHitRow",
    "MemoryItemRow",
    "MemorySummaryRow",
    "Person",
    "ProofRow",
    "Receipt",
    "Repository",
    "ReviewRecord",
    "ReviewState",
    "Suggestion",
    "SuppressedFinding",
    "Token",
    "TombstonedSource",
]
