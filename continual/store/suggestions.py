"""Suggestions: what a review posted, where, and which comment and thread carry it."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from sqlalchemy import Connection, insert, or_, select, update
from sqlalchemy.orm import InstrumentedAttribute

from continual.secrets import find_secret, redact, redact_json
from continual.stored import StoredSuggestion
from continual.tables import Repository, Suggestion


@dataclass(frozen=True, slots=True)
class NewSuggestion:
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
    body: str = ""
    lesson: str = ""
    replacement: str | None = None
    set_sha256: str | None = None
    review_id: str | None = None
    proven: bool = False
    anchors: str | None = None  # JSON, continual.maintenance.Anchors
    comment_of: str | None = None  # the suggestion whose comment carries this finding too


def record_suggestion(conn: Connection, suggestion: NewSuggestion, *, now: int) -> None:
    """Store a suggestion, its seat's text redacted (``continual.secrets``). Replacement code that
    holds a secret is not kept: a redacted replacement is not the code that was posted, and the
    seat's finding is parsed without it anyway (``review.contract``)."""
    values = {field: getattr(suggestion, field) for field in NewSuggestion.__slots__}
    for field in ("path", "title", "body", "lesson"):
        values[field] = redact(values[field])
    values["anchors"] = redact_json(suggestion.anchors)
    if suggestion.replacement is not None and find_secret(suggestion.replacement) is not None:
        values["replacement"] = None
    conn.execute(insert(Suggestion).values(**values, created_ms=now))


def set_comment_id(conn: Connection, suggestion_id: str, comment_id: int) -> None:
    """Tie a suggestion, and those whose finding its comment carries, to that GitHub comment."""
    conn.execute(
        update(Suggestion)
        .where(or_(Suggestion.id == suggestion_id, Suggestion.comment_of == suggestion_id))
        .values(comment_id=comment_id)
    )


def note_resolved(
    conn: Connection, suggestion_ids: Collection[str], resolved: Mapping[str, str], *, now: int
) -> int:
    """Record who resolved each suggestion's thread (or that it is open again); evidence only.

    Returns how many suggestions changed; an unchanged thread is not written.
    """
    return _note_changed(
        conn,
        suggestion_ids,
        Suggestion.resolved_by,
        resolved,
        lambda by: {"resolved_by": by, "resolved_ms": None if by is None else now},
    )


def note_claims(
    conn: Connection, suggestion_ids: Collection[str], claims: Mapping[str, str]
) -> int:
    """Record each thread's claim (JSON, its span redacted by the caller), or that it has none.

    Returns how many suggestions changed; an unchanged thread is not written.
    """
    return _note_changed(
        conn, suggestion_ids, Suggestion.claim, claims, lambda claim: {"claim": claim}
    )


def _note_changed(
    conn: Connection,
    suggestion_ids: Collection[str],
    column: InstrumentedAttribute[str | None],
    wanted: Mapping[str, str],
    values: Callable[[str | None], dict[str, object]],
) -> int:
    """Write `values(new)` for each suggestion whose `column` differs from `wanted` (absent: None);
    how many were written."""
    if not suggestion_ids:
        return 0
    rows = conn.execute(select(Suggestion.id, column).where(Suggestion.id.in_(suggestion_ids)))
    changed = 0
    for suggestion_id, stored in rows.all():
        new = wanted.get(suggestion_id)
        if new == stored:
            continue
        conn.execute(update(Suggestion).where(Suggestion.id == suggestion_id).values(values(new)))
        changed += 1
    return changed


def repository_id(conn: Connection, full_name: str) -> int | None:
    """The id of the repository called `owner/name`, if the store knows it."""
    found = conn.execute(
        select(Repository.id).where(Repository.full_name == full_name)
    ).scalar_one_or_none()
    return None if found is None else int(found)


def suggestions_of_pull(
    conn: Connection, repository_id: int, pr: int
) -> dict[str, StoredSuggestion]:
    rows = conn.execute(
        select(Suggestion).where(Suggestion.repository_id == repository_id, Suggestion.pr == pr)
    ).all()
    return {row.id: StoredSuggestion.of(row) for row in rows}


def suggestion(conn: Connection, suggestion_id: str) -> StoredSuggestion | None:
    row = conn.execute(select(Suggestion).where(Suggestion.id == suggestion_id)).one_or_none()
    return None if row is None else StoredSuggestion.of(row)


def carried_by_comment(conn: Connection, suggestion_id: str) -> list[str]:
    """The suggestion and those whose finding its comment carries too (raised under other
    lenses at the same line): a decision on that comment is a decision on each of them."""
    shared = conn.execute(
        select(Suggestion.id).where(Suggestion.comment_of == suggestion_id).order_by(Suggestion.id)
    ).scalars()
    return [suggestion_id, *shared]


def suggestion_repository(conn: Connection, suggestion_id: str) -> str | None:
    """The `owner/name` of the repository a suggestion was posted in, if the store knows it."""
    found = conn.execute(
        select(Repository.full_name)
        .join(Suggestion, Suggestion.repository_id == Repository.id)
        .where(Suggestion.id == suggestion_id)
    ).first()
    return None if found is None else str(found.full_name)
