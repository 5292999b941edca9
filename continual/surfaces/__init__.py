"""The four surfaces (review, recall, brief, context): what is handed, within budgets, with receipts."""

from __future__ import annotations

from continual.injections import (
    Handed,
    HandedLesson,
    Target,
    injections_path,
    target_named,
    target_of,
)
from continual.surfaces.agents import (
    PUSH_MAX_TOKENS,
    hand_brief,
    hand_context,
    hand_recall,
    preview_recall,
    standing_pack,
)
from continual.surfaces.delivery import render_lesson
from continual.surfaces.review import hand_review_lessons

__all__ = [
    "PUSH_MAX_TOKENS",
    "Handed",
    "HandedLesson",
    "Target",
    "hand_brief",
    "hand_context",
    "hand_recall",
    "hand_review_lessons",
    "injections_path",
    "preview_recall",
    "render_lesson",
    "standing_pack",
    "target_named",
    "target_of",
]
