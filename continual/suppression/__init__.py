"""A dismissal is remembered: mechanisms refused in a repository are not raised there again."""

from __future__ import annotations

from continual.suppression.render import DISMISSED_HEADER, render_dismissed
from continual.suppression.rules import (
    DEFAULT_SUPPRESS_DAYS,
    PATH_REASONS,
    Mechanism,
    PathReceipt,
    Suppression,
    is_repository_wide,
    refused_cards,
    suppressing,
    suppressions_of,
    unrefused,
)
from continual.suppression.store import (
    Standing,
    Withheld,
    mechanisms,
    record_withheld,
    standing_suppressions,
    suppressed_entries,
    suppressions,
)

__all__ = [
    "DEFAULT_SUPPRESS_DAYS",
    "DISMISSED_HEADER",
    "PATH_REASONS",
    "Mechanism",
    "PathReceipt",
    "Standing",
    "Suppression",
    "Withheld",
    "is_repository_wide",
    "mechanisms",
    "record_withheld",
    "refused_cards",
    "render_dismissed",
    "standing_suppressions",
    "suppressed_entries",
    "suppressing",
    "suppressions",
    "suppressions_of",
    "unrefused",
]
