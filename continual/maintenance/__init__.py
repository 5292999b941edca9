"""Maintenance: lessons kept true against the code (keep, adapt, retire, defer), and provenance."""

from __future__ import annotations

from continual.maintenance.anchors import Anchors, context_of, verify_anchors
from continual.maintenance.publish import KeyTaken, NotRetired, Published, publish, restore
from continual.maintenance.records import (
    LessonChange,
    changes,
    live_lessons,
    note_merge,
    record_provenance,
)
from continual.maintenance.rules import (
    Action,
    AnchoredEntry,
    ChangeStatus,
    Evidence,
    PathChange,
    Ruling,
    admitted,
    contents_needed,
    decide,
    touched,
)

__all__ = [
    "Action",
    "AnchoredEntry",
    "Anchors",
    "ChangeStatus",
    "Evidence",
    "KeyTaken",
    "LessonChange",
    "NotRetired",
    "PathChange",
    "Published",
    "Ruling",
    "admitted",
    "changes",
    "contents_needed",
    "context_of",
    "decide",
    "live_lessons",
    "note_merge",
    "publish",
    "record_provenance",
    "restore",
    "touched",
    "verify_anchors",
]
