"""The review surface: the lessons for a review's changed paths, its dismissed mechanisms and the
repository's memory summary."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import Connection, Engine

from continual.injections import Handed, Target, target_of
from continual.memory import memory_enabled
from continual.packing import Budget
from continual.persons import Recording
from continual.recall import Snapshot, SnapshotCache
from continual.summary.store import current_summary
from continual.suppression import DEFAULT_SUPPRESS_DAYS, refused_cards
from continual.surfaces.delivery import (
    PARTS_SEPARATOR,
    _deliver,
    _query_hand,
    _suppressions,
    _with_dismissed,
    _with_summary,
)
from continual.surfaces.history import with_history
from continual.values import Surface

REVIEW_HEADER = "Lessons from earlier reviews of {repo} (each accepted by a maintainer):"
REVIEW_LESSON_CAP = 20


def hand_review_lessons(
    conn_or_engine: Connection | Engine,
    store_dir: Path,
    *,
    account_id: int,
    repository_id: int,
    session_id: str,
    paths: Sequence[str],
    identifiers: Sequence[str] = (),
    words: Sequence[str] = (),
    cap: int = REVIEW_LESSON_CAP,
    now: int,
    max_chars: int | None = None,
    snapshots: SnapshotCache | None = None,
    suppress_days: int = DEFAULT_SUPPRESS_DAYS,
) -> Handed:
    """The review surface: the lessons for a review's changed paths and identifiers, then the
    repository's dismissed mechanisms (docs/writeback.md), which the text and entries include.

    ``session_id`` is the review id. Lessons are ranked by the recall index (score, then id),
    at most ``cap`` complete cards (and ``max_chars`` of text when given) are handed, and the text
    ends with ``N more omitted`` when some were left out. Handing the same review the same set
    again (a retried job) returns it again and records it once. A non-empty set is recorded: an
    injections row, the ``injections.jsonl`` line and the log line. With an Engine everything
    runs in one transaction and the file is written after commit; with a Connection the caller
    owns the transaction (it must be able to write). Raises LookupError for a repository that is
    not the account's.
    """

    def locate(conn: Connection) -> Target:
        target = target_of(conn, account_id, repository_id)
        if target is None:
            raise LookupError(f"repository {repository_id} is not in account {account_id}")
        return target

    def compose(
        conn: Connection, target: Target, snapshot: Snapshot, seen: set[tuple[str, int]]
    ) -> Handed:
        found = _suppressions(conn, target, snapshot, now, suppress_days)
        lessons = _query_hand(
            snapshot,
            target,
            seen | refused_cards(found, paths),
            surface=Surface.REVIEW,
            session_id=session_id,
            header=REVIEW_HEADER.format(repo=target.repository),
            paths=paths,
            identifiers=identifiers,
            words=words,
            cap=cap,
            budget=None if max_chars is None else Budget.chars(max_chars),
        )
        handed = with_history(
            conn,
            target,
            _with_dismissed(lessons, found),
            seen=seen,
            budget=None if max_chars is None else Budget.chars(max_chars),
            paths=paths,
        )
        if not memory_enabled(conn, target.repository_id):
            return handed
        summary = current_summary(conn, target, snapshot, now=now)
        if max_chars is not None and not Budget.chars(max_chars).after(
            handed.text, PARTS_SEPARATOR
        ).fits(summary.text):
            return handed
        return _with_summary(handed, summary)

    # Other surfaces' hands do not count: a review's lessons sit in its shared header, and a
    # retried review is handed the same set again (recorded once).
    return _deliver(
        conn_or_engine,
        store_dir,
        locate,
        compose,
        session_id=session_id,
        surface=Surface.REVIEW,
        recording=Recording.FULL,
        person_id=None,
        now=now,
        snapshots=snapshots,
        dedupe_surfaces=(),
    )
