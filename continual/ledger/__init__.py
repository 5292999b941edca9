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
from continual.ledger.weekly import WeekAcceptance, acceptance_by_week

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
    "WeekAcceptance",
    "acceptance_by_week",
    "review_ledger",
]
