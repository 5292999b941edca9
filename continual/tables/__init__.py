"""Every table of the core, in one metadata: the store, reviews and their memory, people."""

from __future__ import annotations

from continual.tables.people import Injection, Person, Token
from continual.tables.reviews import (
    Agreement,
    CallRecordRow,
    CallStatus,
    MemoryHitRow,
    MemoryItemRow,
    ReviewRecord,
    ReviewState,
)
from continual.tables.store import Account, Base, Entry, Receipt, Repository, Suggestion

__all__ = [
    "Account",
    "Agreement",
    "Base",
    "CallRecordRow",
    "CallStatus",
    "Entry",
    "Injection",
    "MemoryHitRow",
    "MemoryItemRow",
    "Person",
    "Receipt",
    "Repository",
    "ReviewRecord",
    "ReviewState",
    "Suggestion",
    "Token",
]
