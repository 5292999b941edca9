"""Publishing a maintenance run: every verdict in one transaction under expected revisions."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from sqlalchemy import Connection, Engine, bindparam, select, update

from continual import store
from continual.associations import associate
from continual.batches import in_lists
from continual.maintenance.records import add_events, event_row, latest_action
from continual.maintenance.rules import Action, AnchoredEntry, Ruling
from continual.recall import note_entry_change
from continual.tables import Entry, LessonProvenance, Receipt
from continual.tombstones import hold_sources_of, release_sources

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


def _apply(
    conn: Connection,
    verdicts: Sequence[Ruling],
    proven: Mapping[str, str],
    *,
    now: int,
) -> Published:
    """Write every verdict, a few statements for them all: the lessons read at once, one
    compare-and-swap statement for the retired and one for the adapted (a lesson that moved on
    fails the run, which then decides again), one change-log bump, one insert of events."""
    retiring = [v for v in verdicts if v.action is Action.RETIRE]
    adapting = [v for v in verdicts if v.action is Action.ADAPT]
    kept = sum(v.action is Action.KEEP for v in verdicts)
    current = store.live_entries(conn, [v.entry_id for v in (*retiring, *adapting)])
    sources = _sources(conn, [v.entry_id for v in retiring])
    by_account: dict[int, list[tuple[str, int, dict[str, object]]]] = {}
    for verdict in retiring:
        # A retired lesson leaves every hand-out but keeps its text and receipts, so it can be
        # explained and restored; its sources cannot re-create it (they are the tombstone's).
        values = {"deleted_ms": now, "tombstone_sources": json.dumps(sources[verdict.entry_id])}
        by_account.setdefault(current[verdict.entry_id].account_id, []).append(
            (verdict.entry_id, verdict.revision, values)
        )
    for verdict in adapting:
        by_account.setdefault(current[verdict.entry_id].account_id, []).append(
            (verdict.entry_id, verdict.revision, _adapted_values(verdict))
        )
    for account_id, changes in by_account.items():
        store.cas_update_many(conn, account_id, changes)
        retired_here = {
            entry_id: sources[entry_id] for entry_id, _, v in changes if "deleted_ms" in v
        }
        hold_sources_of(conn, account_id, retired_here, now=now)
    events = []
    for verdict in (*retiring, *adapting):
        lesson = current[verdict.entry_id]
        retired = verdict.action is Action.RETIRE
        events.append(
            event_row(
                lesson,
                action=RETIRED if retired else ADAPTED,
                reason=verdict.reason,
                commit=verdict.commit,
                revision=verdict.revision + 1,
                before_text=lesson.text,
                after_text=None if retired else verdict.text,
                actor=verdict.actor,
                now=now,
            )
        )
    add_events(conn, events)
    _set_anchors(conn, adapting, now=now)
    # Every other lesson proven at a basis moves to the head: untouched, its anchors hold there.
    decided = {v.entry_id for v in verdicts if v.action is not Action.KEEP}
    advanced = 0
    by_head: dict[str, list[str]] = {}
    for entry_id, head in proven.items():
        if entry_id not in decided:
            by_head.setdefault(head, []).append(entry_id)
    for head, ids in by_head.items():
        for chunk in in_lists(ids):
            advanced += _set_basis(conn, chunk, head, now=now)
    return Published(kept, len(adapting), len(retiring), advanced)


def _sources(conn: Connection, entry_ids: Sequence[str]) -> dict[str, list[str]]:
    """The suggestions each retiring lesson's receipts name: its tombstone's sources, which
    cannot re-create it."""
    found: dict[str, set[str]] = {entry_id: set() for entry_id in entry_ids}
    for chunk in in_lists(entry_ids):
        rows = conn.execute(
            select(Receipt.entry_id, Receipt.suggestion_id).where(Receipt.entry_id.in_(chunk))
        )
        for entry_id, suggestion_id in rows:
            found[entry_id].add(suggestion_id)
    return {entry_id: sorted(ids) for entry_id, ids in found.items()}


def _adapted_values(verdict: Ruling) -> dict[str, object]:
    assert verdict.title is not None and verdict.text is not None and verdict.anchors is not None
    links = associate(
        path=verdict.anchors.paths[0],
        title=verdict.title,
        lesson=verdict.text,
        identifiers=verdict.anchors.names(),
    )
    return {
        "title": verdict.title,
        "text": verdict.text,
        "admission": None,
        "associations": json.dumps({k: list(v) for k, v in asdict(links).items()}, sort_keys=True),
    }


def _set_anchors(conn: Connection, adapted: Sequence[Ruling], *, now: int) -> None:
    """An adapted lesson's provenance moves to the commit it was adapted at, with its new
    anchors: one statement for them all."""
    rows = [
        {"b_id": v.entry_id, "b_basis": v.commit, "b_anchors": v.anchors.to_json()}
        for v in adapted
        if v.commit is not None and v.anchors is not None
    ]
    if rows:
        conn.execute(
            update(LessonProvenance)
            .where(LessonProvenance.entry_id == bindparam("b_id"))
            .values(basis_sha=bindparam("b_basis"), anchors=bindparam("b_anchors"), updated_ms=now),
            rows,
        )


def _set_basis(conn: Connection, entry_ids: Sequence[str], commit: str, *, now: int) -> int:
    result = conn.execute(
        update(LessonProvenance)
        .where(LessonProvenance.entry_id.in_(entry_ids))
        .values(basis_sha=commit, updated_ms=now)
    )
    return int(result.rowcount or 0)


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
    add_events(
        conn,
        [
            event_row(
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
        ],
    )
    return expected + 1


def lessons_by_id(lessons: Iterable[AnchoredEntry]) -> dict[str, AnchoredEntry]:
    return {lesson.entry_id: lesson for lesson in lessons}
