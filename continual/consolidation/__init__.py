"""Consolidation: paraphrased lessons of one repository merge into one canonical entry."""

from __future__ import annotations

from continual.consolidation.plan import Merge, MergePlan, plan_merges
from continual.consolidation.similarity import Lesson, same_advice, title_terms
from continual.consolidation.store import apply_plan, consolidate, consolidate_after, lessons_of

__all__ = [
    "Lesson",
    "Merge",
    "MergePlan",
    "apply_plan",
    "consolidate",
    "consolidate_after",
    "lessons_of",
    "plan_merges",
    "same_advice",
    "title_terms",
]
