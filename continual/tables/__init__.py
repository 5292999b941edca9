"""Every table of the core, in one metadata: the store, reviews, their memory and proofs, people,
the judge."""

from __future__ import annotations

from continual.judge.cache import JudgeVerdictRow
from continual.memory.rows import MemoryHitRow, MemoryItemRow
from continual.orm import Base
from continual.proofs import ProofRow
from continual.summary.rows import MemorySummaryRow
from continual.tables.changes import EntryChange
from continual.tables.lessons import LessonEvent, LessonProvenance
from continual.tables.links import LinkName
from continual.tables.people import Injection, Person, Token
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
