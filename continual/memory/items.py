"""The values of stored session memory: what an item records, how long it lives, and a hit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from continual.secrets import first_secret
from continual.values import EntryState

TOOL_PATH_TTL = timedelta(days=90)
CANDIDATE_TTL = timedelta(days=30)


class ItemKind(StrEnum):
    """What a memory item records."""

    TOOL_PATH = "tool_path"
    HYPOTHESIS = "hypothesis"
    FINDING = "finding"
    FACT = "fact"


@dataclass(frozen=True)
class MemoryItem:
    """What a review learned as it outlives the review: active (tool paths) or candidate."""

    kind: ItemKind
    subject: str
    text: str
    seat: str
    session: str
    commit: str
    state: EntryState
    expires_at: datetime
    recorded_at: datetime
    lens: str = ""
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemoryHit:
    """A recalled subject that came up again in a new review."""

    subject: str
    kind: ItemKind
    recalled_session: str
    recalled_seat: str
    call_id: str
    seat: str


def finding_of_subject(subject: str) -> tuple[str, str] | None:
    """The (entry key, path) a finding's subject (``finding:<key>:<path>``) names; None for any
    other subject."""
    kind, _, rest = subject.partition(":")
    key, sep, path = rest.partition(":")
    return (key, path) if kind == "finding" and sep else None


def without_secrets(items: Sequence[MemoryItem]) -> list[MemoryItem]:
    """The items that hold no secret in their subject or text (the scan lessons get)."""
    return [item for item in items if first_secret(item.subject, item.text) is None]


def kept_as(kind: ItemKind, now: datetime) -> tuple[EntryState, datetime]:
    """The state and expiry an item of ``kind`` is kept with: an executed tool path is active
    for 90 days; hypotheses, findings and facts are candidates for 30."""
    if kind is ItemKind.TOOL_PATH:
        return EntryState.ACTIVE, now + TOOL_PATH_TTL
    return EntryState.CANDIDATE, now + CANDIDATE_TTL
