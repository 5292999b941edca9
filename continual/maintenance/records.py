"""A lesson's provenance and event rows: recorded at the outcome, read for maintenance, listed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, case, insert, select, update

from continual.maintenance.anchors import Anchors
from continual.maintenance.rules import AnchoredEntry
from continual.stored import StoredEntry, StoredSuggestion
from continual.tables import Entry, LessonEvent, LessonProvenance, Repository


@dataclass(frozen=True, slots=True)
class LessonChange:
    """One retirement, adaptation or restore of a lesson, as a person reads it back."""

    entry_id: str
    repository: str
    key: str
    lens: str
    title: str
    text: str
    action: str
    reason: str
    commit: str | None
    revision: int
    before_text: str
    after_text: str | None
    actor: str
    at_ms: int
    retired: bool  # the entry is retired now (a later restore clears it)


def record_provenance(
    conn: Connection, entry_id: str, suggestion: StoredSuggestion, *, now: int
) -> None:
    """The entry's outcome happened on the suggestion's pull request at its head: its anchors,
    as the review verified them there, hold at that commit."""
    anchors = Anchors.from_json(suggestion.anchors)
    conn.execute(
        insert(LessonProvenance).values(
            entry_id=entry_id,
            account_id=suggestion.account_id,
            repository_id=suggestion.repository_id,
            pr=suggestion.pr,
            head_sha=suggestion.head_sha,
            merge_sha=None,
            basis_sha=suggestion.head_sha,
            anchors=anchors.to_json() if anchors is not None else "",
            updated_ms=now,
        )
    )


def note_merge(conn: Connection, repository_id: int, pr: int, merge_sha: str, *, now: int) -> int:
    """The pull request merged as ``merge_sha``: its lessons' outcome is on the default branch
    there. Lessons already proven at a later commit keep that basis. Answers how many moved."""
    result = conn.execute(
        update(LessonProvenance)
        .where(
            LessonProvenance.repository_id == repository_id,
            LessonProvenance.pr == pr,
            LessonProvenance.merge_sha.is_(None),
        )
        .values(
            merge_sha=merge_sha,
            basis_sha=case(
                (LessonProvenance.basis_sha == LessonProvenance.head_sha, merge_sha),
                else_=LessonProvenance.basis_sha,
            ),
            updated_ms=now,
        )
    )
    return int(result.rowcount or 0)


def live_lessons(conn: Connection, repository_id: int) -> list[AnchoredEntry]:
    """Every live entry of the repository with its provenance (None where none was recorded)."""
    rows = conn.execute(
        select(
            Entry.id,
            Entry.revision,
            Entry.key,
            Entry.lens,
            Entry.title,
            Entry.text,
            Entry.associations,
            LessonProvenance.anchors,
            LessonProvenance.basis_sha,
        )
        .outerjoin(LessonProvenance, LessonProvenance.entry_id == Entry.id)
        .where(Entry.repository_id == repository_id, Entry.deleted_ms.is_(None))
        .order_by(Entry.id)
    ).all()
    lessons: list[AnchoredEntry] = []
    for row in rows:
        anchors = Anchors.from_json(row.anchors)
        legacy: tuple[str, ...] = ()
        if anchors is None:
            legacy = tuple(json.loads(row.associations or "{}").get("files", ()))
        lessons.append(
            AnchoredEntry(
                entry_id=row.id,
                revision=row.revision,
                key=row.key,
                lens=row.lens,
                title=row.title,
                text=row.text,
                anchors=anchors,
                basis=row.basis_sha if anchors is not None else None,
                legacy_files=legacy,
            )
        )
    return lessons


def event_row(
    entry: StoredEntry,
    *,
    action: str,
    reason: str,
    commit: str | None,
    revision: int,
    before_text: str,
    after_text: str | None,
    actor: str,
    now: int,
) -> dict[str, object]:
    """One lesson event as ``add_events`` writes it."""
    return {
        "account_id": entry.account_id,
        "repository_id": entry.repository_id,
        "entry_id": entry.id,
        "action": action,
        "reason": reason,
        "commit_sha": commit,
        "revision": revision,
        "before_text": before_text,
        "after_text": after_text,
        "actor": actor,
        "at_ms": now,
    }


def add_events(conn: Connection, rows: Sequence[Mapping[str, object]]) -> None:
    """Many lesson events in one statement."""
    if rows:
        conn.execute(insert(LessonEvent), list(rows))


def latest_action(conn: Connection, entry_id: str) -> str | None:
    found = conn.execute(
        select(LessonEvent.action)
        .where(LessonEvent.entry_id == entry_id)
        .order_by(LessonEvent.id.desc())
        .limit(1)
    ).scalar_one_or_none()
    return None if found is None else str(found)


def changes(
    conn: Connection, account_id: int, *, repository_ids: Iterable[int] | None = None
) -> list[LessonChange]:
    """The account's retired, adapted and restored lessons, newest first."""
    query = (
        select(
            LessonEvent.entry_id,
            LessonEvent.action,
            LessonEvent.reason,
            LessonEvent.commit_sha,
            LessonEvent.revision,
            LessonEvent.before_text,
            LessonEvent.after_text,
            LessonEvent.actor,
            LessonEvent.at_ms,
            Entry.key,
            Entry.lens,
            Entry.title,
            Entry.text,
            Entry.deleted_ms,
            Repository.full_name,
        )
        .join(Entry, Entry.id == LessonEvent.entry_id)
        .join(Repository, Repository.id == LessonEvent.repository_id)
        .where(LessonEvent.account_id == account_id)
        .order_by(LessonEvent.at_ms.desc(), LessonEvent.id.desc())
    )
    if repository_ids is not None:
        query = query.where(LessonEvent.repository_id.in_(list(repository_ids)))
    return [
        LessonChange(
            entry_id=row.entry_id,
            repository=row.full_name,
            key=row.key,
            lens=row.lens,
            title=row.title,
            text=row.text,
            action=row.action,
            reason=row.reason,
            commit=row.commit_sha,
            revision=row.revision,
            before_text=row.before_text,
            after_text=row.after_text,
            actor=row.actor,
            at_ms=row.at_ms,
            retired=row.deleted_ms is not None,
        )
        for row in conn.execute(query).all()
    ]
