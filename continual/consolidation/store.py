"""Consolidation against the store: read a repository's lessons, apply a merge plan under
expected revisions, and run both after a write-back or on demand."""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Iterable
from typing import Any

from sqlalchemy import Connection, Engine, func, select, update

from continual import store
from continual.batches import in_lists
from continual.consolidation.plan import MergePlan, plan_merges
from continual.consolidation.similarity import ParaphraseCandidate
from continual.maintenance.records import add_events, event_row
from continual.tables import Entry, Receipt, Suggestion
from continual.values import Decision

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
MERGED = "merged"  # the lesson event of an entry merged into another (listed with the retired)


def lessons_of(
    conn: Connection, repository_id: int, *, lenses: Collection[str] | None = None
) -> list[ParaphraseCandidate]:
    """The repository's live lessons that a maintainer accepted (not demoted, not deleted): an
    entry made only of dismissals is a suppression record, not advice, and is never merged."""
    query = select(Entry).where(
        Entry.repository_id == repository_id,
        Entry.deleted_ms.is_(None),
        Entry.demoted_ms.is_(None),
    )
    if lenses is not None:
        query = query.where(Entry.lens.in_(list(lenses)))
    entries = conn.execute(query).all()
    counts: dict[str, int] = {}
    ids = [row.id for row in entries]
    for chunk in in_lists(ids):
        rows = conn.execute(
            select(Receipt.entry_id, func.count())
            .where(
                Receipt.entry_id.in_(chunk),
                Receipt.decision == Decision.ACCEPTED.value,
                Receipt.superseded.is_(False),
            )
            .group_by(Receipt.entry_id)
        ).all()
        counts.update((str(entry_id), int(count)) for entry_id, count in rows)
    lessons = []
    for row in entries:
        if not counts.get(row.id):
            continue
        links = json.loads(row.associations or "{}")
        lessons.append(
            ParaphraseCandidate(
                id=row.id,
                repository_id=row.repository_id,
                key=row.key,
                lens=row.lens,
                title=row.title,
                revision=row.revision,
                files=tuple(links.get("files", ())),
                identifiers=tuple(links.get("identifiers", ())),
                admitted=row.admission is None,
                accepted=counts[row.id],
                created_ms=row.created_ms,
                text=row.text,
            )
        )
    return lessons


def _union(first: str, second: str) -> dict[str, Any]:
    """Both entries' associations, so recall finds the canonical entry by either's anchors."""
    merged: dict[str, Any] = json.loads(first or "{}")
    for key, values in json.loads(second or "{}").items():
        kept = [tuple(v) if isinstance(v, list) else v for v in merged.get(key, [])]
        for value in values:
            item = tuple(value) if isinstance(value, list) else value
            if item not in kept:
                kept.append(item)
        merged[key] = [list(v) if isinstance(v, tuple) else v for v in kept]
    return merged


def apply_plan(conn: Connection, plan: MergePlan, *, now: int) -> int:
    """Publish `plan` in the caller's transaction; answers how many entries were replaced.

    Each replaced entry must still be at the revision the plan read (else RevisionConflict, the
    caller re-reads): it is retired (deleted, text kept) with ``replaced_by`` naming the
    canonical entry, its receipts move to the canonical entry, and entries it had replaced point
    at the canonical entry too; a ``merged`` lesson event lists it with the retired lessons
    (where a person can read and delete it). The canonical entry takes the union of the associations and its
    state is recomputed from all the receipts, at its expected revision.
    """
    replaced = 0
    for merge in plan.merges:
        canonical = store.entry(conn, merge.canonical.id)
        if canonical is None or canonical.revision != merge.canonical.revision:
            raise store.RevisionConflict(merge.canonical.id, merge.canonical.revision)
        associations = canonical.associations
        for lesson in merge.replaced:
            old = store.entry(conn, lesson.id)
            if old is None:
                raise store.EntryGone(lesson.id)
            associations = json.dumps(_union(associations, old.associations), sort_keys=True)
            revision = store.cas_update(
                conn,
                lesson.id,
                lesson.revision,
                deleted_ms=now,
                replaced_by=canonical.id,
                tombstone_sources="[]",
            )
            add_events(
                conn,
                [
                    event_row(
                        old,
                        action=MERGED,
                        reason=f"merged into {canonical.id}: {canonical.title}",
                        commit=None,
                        revision=revision,
                        before_text=old.text,
                        after_text=None,
                        actor="consolidation",
                        now=now,
                    )
                ],
            )
            conn.execute(
                update(Receipt).where(Receipt.entry_id == lesson.id).values(entry_id=canonical.id)
            )
            conn.execute(
                update(Entry).where(Entry.replaced_by == lesson.id).values(replaced_by=canonical.id)
            )
            replaced += 1
        store.refresh(conn, canonical.id, canonical.revision, now=now, associations=associations)
    return replaced


def consolidate(
    engine: Engine,
    repository_id: int,
    *,
    now: int,
    dry_run: bool = False,
    lenses: Collection[str] | None = None,
) -> MergePlan:
    """Plan the repository's merges and (unless `dry_run`) publish them in one transaction; a
    revision conflict re-reads and plans again. Running it again changes nothing."""
    for attempt in range(MAX_ATTEMPTS):
        try:
            with engine.begin() as conn:
                plan = plan_merges(lessons_of(conn, repository_id, lenses=lenses))
                if plan and not dry_run:
                    apply_plan(conn, plan, now=now)
            return plan
        except (store.RevisionConflict, store.EntryGone):
            log.info(
                "consolidation conflict, re-reading",
                extra={"repository": repository_id, "attempt": attempt},
            )
    raise store.RevisionConflict(f"repository {repository_id}", -1)


def consolidate_after(engine: Engine, suggestion_ids: Iterable[str], *, now: int) -> int:
    """After a write-back changed entries: consolidate the lenses of those suggestions in their
    repositories. A conflict that persists is left for the next write-back (nothing is lost);
    answers how many entries were replaced."""
    ids = list(dict.fromkeys(suggestion_ids))
    if not ids:
        return 0
    with engine.connect() as conn:
        rows = conn.execute(
            select(Suggestion.repository_id, Suggestion.lens)
            .where(Suggestion.id.in_(ids))
            .distinct()
        ).all()
    lenses: dict[int, set[str]] = {}
    for row in rows:
        lenses.setdefault(int(row.repository_id), set()).add(row.lens)
    replaced = 0
    for repository_id, names in sorted(lenses.items()):
        try:
            replaced += consolidate(engine, repository_id, now=now, lenses=names).replaced
        except store.RevisionConflict:
            log.warning(
                "consolidation skipped: entries kept changing", extra={"repository": repository_id}
            )
    return replaced
