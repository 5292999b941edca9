"""Consolidation: paraphrased lessons of one repository merge into one canonical entry."""

from __future__ import annotations

from continual.consolidation.plan import MergePlan, ParaphraseGroup, plan_merges
from continual.consolidation.similarity import ParaphraseCandidate, same_advice, title_terms
from continual.consolidation.store import apply_plan, consolidate, consolidate_after, lessons_of

__all__ = [
    "MergePlan",
    "ParaphraseCandidate",
    "ParaphraseGroup",
    "apply_plan",
    "consolidate",
    "consolidate_after",
    "lessons_of",
    "plan_merges",
    "same_advice",
    "title_terms",
]
