"""The review ledger: per repository, what was reviewed, suggested, decided and handed."""

from __future__ import annotations

from continual.ledger.build import review_ledger
from continual.ledger.values import (
    BRAIN,
    INLINE,
    Acceptance,
    CallFailure,
    Calls,
    Counts,
    EntryCounts,
    EntryRevision,
    RepositoryLedger,
    ReviewHanded,
    RuleCount,
    SeatLensCounts,
)

__all__ = [
    "BRAIN",
    "INLINE",
    "Acceptance",
    "CallFailure",
    "Calls",
    "Counts",
    "EntryCounts",
    "EntryRevision",
    "RepositoryLedger",
    "ReviewHanded",
    "RuleCount",
    "SeatLensCounts",
    "review_ledger",
]
