"""The store's rows as frozen values: a suggestion, an entry and a receipt as they were read."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Self, TypeVar

from sqlalchemy import Row

T = TypeVar("T")


def _of(cls: type[T], row: Row[Any]) -> T:
    """The value of `cls` whose fields are the row's columns of the same names."""
    mapping = row._mapping
    return cls(**{field.name: mapping[field.name] for field in fields(cls)})  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class StoredSuggestion:
    """One posted finding: where it was raised, by which seat, and the lesson it would teach."""

    id: str
    account_id: int
    repository_id: int
    pr: int
    head_sha: str
    path: str
    line: int | None
    seat: str
    lab: str | None
    lens: str
    title: str
    entry_key: str
    created_ms: int
    body: str = ""
    lesson: str = ""
    replacement: str | None = None
    set_sha256: str | None = None
    review_id: str | None = None
    comment_id: int | None = None
    proven: bool = False
    anchors: str | None = None  # JSON, continual.maintenance.Anchors
    comment_of: str | None = None
    claim: str | None = None  # JSON, continual.writeback.binding.Claim

    @classmethod
    def of(cls, row: Row[Any]) -> Self:
        return _of(cls, row)


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One mechanism in one repository; `deleted_ms` set means it is a tombstone."""

    id: str
    account_id: int
    repository_id: int
    key: str
    scope: str
    lens: str
    title: str
    text: str
    admission: str | None
    associations: str  # JSON, as stored
    revision: int
    demoted_ms: int | None
    demoted_by: str | None
    last_confirmed_ms: int | None
    expires_ms: int | None
    created_ms: int
    deleted_ms: int | None
    tombstone_sources: str | None  # JSON list of suggestion ids
    suppression_lifted_ms: int | None = None
    suppression_lifted_by: str | None = None
    replaced_by: str | None = None

    @classmethod
    def of(cls, row: Row[Any]) -> Self:
        return _of(cls, row)


@dataclass(frozen=True, slots=True)
class StoredReceipt:
    """One decision on one suggestion, with its source, the rule that read it and its guidance."""

    id: int
    entry_id: str
    account_id: int
    suggestion_id: str
    decision: str
    reason: str | None
    source: str
    rule: str | None
    span: str | None
    seat: str
    lab: str | None
    set_sha256: str | None
    pr: int
    head_sha: str
    actor: str | None
    at_ms: int
    superseded: bool
    evidence: str | None = None
    evidence_commit: str | None = None

    @classmethod
    def of(cls, row: Row[Any]) -> Self:
        return _of(cls, row)
