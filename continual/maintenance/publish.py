"""Publishing a maintenance run: every verdict in one transaction under expected revisions."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from sqlalchemy import Connection, Engine, select, update

from continual import store
from continual.associations import associate
from continual.maintenance.records import add_event, latest_action
from continual.maintenance.rules import Action, AnchoredEntry, Ruling
from continual.recall import note_entry_change
from continual.tables import Entry, LessonProvenance, Receipt
from continual.tombstones import hold_sources, release_sources

log = logging.getLogger(__name__)

RETIRED = "retired"
ADAPTED = "adapted"
RESTORED = "restored"


class NotRetired(Exception):
    """Only a lesson maintenance retired can be restored (a deleted one has lost its content)."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(f"lesson {entry_id} is not a retired lesson")
        self.entry_id = entry_id


class KeyTaken(Exception):
    """A live lesson of the same mechanism exists: restoring would make two."""

    def __init__(self, entry_id: str, key: str) -> None:
        super().__init__(
            f"lesson {entry_id} cannot be restored: {key} has a live lesson; delete or demote it "
            "first"
        )
        self.entry_id = entry_id


@dataclass(frozen=True, slots=True)
class Published:
    """What one run changed; ``deferred`` holds the verdicts a second conflict turned away."""

    kept: int = 0
    adapted: int = 0
    retired: int = 0
    advanced: int = 0
    conflicts: int = 0
    deferred: tuple[Ruling, ...] = ()


def _retire(conn: Connection, verdict: Ruling, *, now: int) -> None:
    """The lesson leaves every hand-out but keeps its text and receipts, so it can be explained
    and restored; its sources cannot re-create it (they are the tombstone's)."""
    current = store.entry(conn, verdict.entry_id)
    if current is None or current.deleted_ms is not None:
        raise store.EntryGone(verdict.entry_id)
    sources = sorted(
        set(
            conn.execute(
                select(Receipt.suggestion_id).where(Receipt.entry_id == verdict.entry_id)
            ).scalars()
        )
    )
    revision = store.cas_update(
        conn,
        verdict.entry_id,
        verdict.revision,
        deleted_ms=now,
        tombstone_sources=json.dumps(sources),
    )
    hold_sources(conn, current.account_id, verdict.entry_id, sources, now=now)
    add_event(
        conn,
        current,
        action=RETIRED,
        reason=verdict.reason,
        commit=verdict.commit,
        revision=revision,
        before_text=current.text,
        after_text=None,
        actor=verdict.actor,
        now=now,
    )


def _adapt(conn: Connection, verdict: Ruling, *, now: int) -> None:
    current = store.entry(conn, verdict.entry_id)
    if current is None or current.deleted_ms is not None:
        raise store.EntryGone(verdict.entry_id)
    assert verdict.title is not None and verdict.text is not None and verdict.anchors is not None
    links = associate(
        path=verdict.anchors.paths[0],
        title=verdict.title,
        lesson=verdict.text,
        identifiers=verdict.anchors.names(),
    )
    revision = store.cas_update(
        conn,
        verdict.entry_id,
        verdict.revision,
        title=verdict.title,
        text=verdict.text,
        admission=None,
        associations=json.dumps({k: list(v) for k, v in asdict(links).items()}, sort_keys=True),
    )
    _set_basis(conn, [verdict.entry_id], verdict.commit, now=now, anchors=verdict.anchors.to_json())
    add_event(
        conn,
        current,
        action=ADAPTED,
        reason=verdict.reason,
        commit=verdict.commit,
        revision=revision,
        before_text=current.text,
        after_text=verdict.text,
        actor=verdict.actor,
        now=now,
    )


def _set_basis(
    conn: Connection,
    entry_ids: Sequence[str],
    commit: str | None,
    *,
    now: int,
    anchors: str | None = None,
) -> int:
    if commit is None or not entry_ids:
        return 0
    values: dict[str, object] = {"basis_sha": commit, "updated_ms": now}
    if anchors is not None:
        values["anchors"] = anchors
    result = conn.execute(
        update(LessonProvenance).where(LessonProvenance.entry_id.in_(entry_ids)).values(**values)
    )
    return int(result.rowcount or 0)


def _apply(
    conn: Connection,
    verdicts: Sequence[Ruling],
    proven: Mapping[str, str],
    *,
    now: int,
) -> Published:
    kept = adapted = retired = 0
    for verdict in verdicts:
        if verdict.action is Action.RETIRE:
            _retire(conn, verdict, now=now)
            retired += 1
        elif verdict.action is Action.ADAPT:
            _adapt(conn, verdict, now=now)
            adapted += 1
        elif verdict.action is Action.KEEP:
            kept += 1
    # Every other lesson proven at a basis moves to the head: untouched, its anchors hold there.
    decided = {v.entry_id for v in verdicts if v.action is not Action.KEEP}
    advanced = 0
    by_head: dict[str, list[str]] = {}
    for entry_id, head in proven.items():
        if entry_id not in decided:
            by_head.setdefault(head, []).append(entry_id)
    for head, ids in by_head.items():
        for start in range(0, len(ids), 500):
            advanced += _set_basis(conn, ids[start : start + 500], head, now=now)
    return Published(kept, adapted, retired, advanced)


def publish(
    engine: Engine,
    decide: Callable[[Connection], tuple[list[Ruling], dict[str, str]]],
    *,
    now: int,
) -> Published:
    """Decide and apply in one transaction; on a revision conflict (a write-back changed one of
    the lessons meanwhile) re-read, decide again and retry once, then defer everything.

    ``decide(conn)`` reads the lessons it needs in ``conn`` and answers the verdicts and, by entry
    id, the head each proven lesson moves to.
    """
    verdicts: list[Ruling] = []
    for attempt in range(2):
        try:
            with engine.begin() as conn:
                verdicts, proven = decide(conn)
                result = _apply(conn, verdicts, proven, now=now)
                return Published(
                    result.kept, result.adapted, result.retired, result.advanced, attempt
                )
        except (store.RevisionConflict, store.EntryGone) as exc:
            log.info("maintenance conflict", extra={"attempt": attempt, "entry": str(exc)})
    deferred = tuple(
        Ruling(
            v.entry_id,
            v.revision,
            Action.DEFER,
            "the lesson changed twice while maintenance ran; the next run re-checks it",
            v.commit,
        )
        for v in verdicts
        if v.action in (Action.ADAPT, Action.RETIRE)
    )
    return Published(conflicts=2, deferred=deferred)


def restore(conn: Connection, entry_id: str, *, expected: int, actor: str, now: int) -> int:
    """A person brings a retired lesson back, under compare-and-swap; answers the new revision."""
    current = store.entry(conn, entry_id)
    if current is None:
        raise store.EntryGone(entry_id)
    if current.deleted_ms is None or latest_action(conn, entry_id) != RETIRED:
        raise NotRetired(entry_id)
    if store.live_entry(conn, current.repository_id, current.key) is not None:
        raise KeyTaken(entry_id, current.key)
    result = conn.execute(
        update(Entry)
        .where(Entry.id == entry_id, Entry.revision == expected, Entry.deleted_ms.is_not(None))
        .values(revision=expected + 1, deleted_ms=None, tombstone_sources=None)
    )
    if result.rowcount != 1:
        raise store.RevisionConflict(entry_id, expected)
    release_sources(conn, entry_id)
    note_entry_change(conn, entry_id, current.account_id)
    add_event(
        conn,
        current,
        action=RESTORED,
        reason=f"restored by {actor}",
        commit=None,
        revision=expected + 1,
        before_text=current.text,
        after_text=current.text,
        actor=actor,
        now=now,
    )
    return expected + 1


def lessons_by_id(lessons: Iterable[AnchoredEntry]) -> dict[str, AnchoredEntry]:
    return {lesson.entry_id: lesson for lesson in lessons}
