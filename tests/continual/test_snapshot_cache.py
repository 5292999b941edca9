"""The snapshot cache: reused while an account's entries are unchanged, rebuilt on any change."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from continual import store
from continual.recall.snapshot import Snapshot, SnapshotCache
from continual.values import EntryState
from continual.writeback import apply_decisions
from ghapp.db import reading
from tests.support.store import ACCOUNT_ID, add_suggestion, decision, seed_tenant

NOW = 1_700_000_000_000


@pytest.fixture
def db(engine: Engine) -> Engine:
    seed_tenant(engine)
    sid = add_suggestion(engine)
    apply_decisions(engine, [decision(sid)], now=NOW)
    return engine


def snapshot_of(db: Engine, cache: SnapshotCache, now: int = NOW) -> Snapshot:
    with reading(db) as conn:
        return cache.get(conn, ACCOUNT_ID, now=now)


def test_unchanged_entries_reuse_the_snapshot(db: Engine) -> None:
    cache = SnapshotCache()
    first = snapshot_of(db, cache)
    assert snapshot_of(db, cache, NOW + 1_000) is first
    assert cache.builds == 1
    assert [lesson.state for lesson in first.lessons] == [EntryState.ACTIVE]


def test_any_entry_change_rebuilds(db: Engine) -> None:
    cache = SnapshotCache()
    (lesson,) = snapshot_of(db, cache).lessons
    with db.begin() as conn:
        store.person_edit(
            conn, lesson.id, expected=lesson.revision, demote=True, actor="octocat", now=NOW
        )
    (demoted,) = snapshot_of(db, cache).lessons
    assert demoted.state is EntryState.DEMOTED and cache.builds == 2
    another = add_suggestion(db, pr=8, title="Unclosed file handle in load_rows")
    apply_decisions(db, [decision(another)], now=NOW)
    assert len(snapshot_of(db, cache).lessons) == 2 and cache.builds == 3
    with db.begin() as conn:
        store.tombstone(conn, lesson.id, expected=None, now=NOW)
    assert len(snapshot_of(db, cache).lessons) == 1 and cache.builds == 4


def test_an_old_snapshot_is_rebuilt_so_expiry_shows(db: Engine) -> None:
    cache = SnapshotCache(max_age_ms=60_000)
    snapshot_of(db, cache)
    later = NOW + 31 * 86_400_000
    (lesson,) = snapshot_of(db, cache, later).lessons
    assert lesson.state is EntryState.EXPIRED and cache.builds == 2
