"""The values of stored session memory: what an item records, how long it lives, and a hit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from continual.memory.provenance import Reporter, Source, speaks_for_maintainers
from continual.secrets import first_secret
from continual.values import EntryState

ACTIVE_TTL = timedelta(days=90)
CANDIDATE_TTL = timedelta(days=30)
PROMOTABLE = frozenset({"tool_path", "fact"})  # the kinds observation or two labs can establish


class ItemKind(StrEnum):
    """What a memory item records."""

    TOOL_PATH = "tool_path"
    HYPOTHESIS = "hypothesis"
    FINDING = "finding"
    FACT = "fact"


@dataclass(frozen=True)
class MemoryItem:
    """What a review learned as it outlives the review: active once the app observed it or two
    labs reported it (``source``), else a candidate: a claim of ``seat``, its first reporter."""

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
    source: Source = Source.REPORTED
    reporters: tuple[Reporter, ...] = ()

    @property
    def established(self) -> bool:
        """Observed by the app or corroborated by two labs: handed as memory, not as a claim."""
        return self.source.established and self.state is EntryState.ACTIVE

    @property
    def reported_by(self) -> tuple[Reporter, ...]:
        """Who reported it (its seat, lab unknown, for an item kept before labs were)."""
        return self.reporters or (Reporter(self.seat, ""),)


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


def promotable(kind: ItemKind, text: str) -> bool:
    """Whether an item may become active: a tool path, or a fact that does not speak for the
    maintainers (``provenance.speaks_for_maintainers``); hypotheses and findings stay claims."""
    if kind.value not in PROMOTABLE:
        return False
    return kind is ItemKind.TOOL_PATH or not speaks_for_maintainers(text)


def kept_as(source: Source, now: datetime) -> tuple[EntryState, datetime]:
    """The state and expiry an item is kept with: observed or corroborated, active for 90 days;
    a seat's report alone, a candidate for 30."""
    if source.established:
        return EntryState.ACTIVE, now + ACTIVE_TTL
    return EntryState.CANDIDATE, now + CANDIDATE_TTL
