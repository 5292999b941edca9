"""The snapshot cache: built once per account, then kept current by deltas from the change log."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, delete, update

from continual import store
from continual.injections import Target
from continual.persons import Preference
from continual.recall.cache import SnapshotCache
from continual.recall.changes import KEEP_CHANGES, PRUNE_EVERY, generation_of
from continual.recall.snapshot import Snapshot
from continual.suppression import Mechanism, PathReceipt, Standing
from continual.surfaces import preview_recall
from continual.tables import Account, Entry, EntryChange, Receipt
from continual.values import Decision, EntryState, Reason, Scope, Source
from continual.writeback.apply import apply_decisions
from ghapp.db import make_engine, reading
from tests.support.recall import accept, entry_of, seed
from tests.support.store import ACCOUNT_ID, REPO_ID, add_suggestion, decision, seed_tenant

NOW = 1_700_000_000_000
DAY_MS = 86_400_000


@pytest.fixture
def db(engine: Engine) -> Engine:
    seed_tenant(engine)
    sid = add_suggestion(engine)
    apply_decisions(engine, [decision(sid)], now=NOW)
    return engine


def snapshot_of(db: Engine, cache: SnapshotCache, now: int = NOW) -> Snapshot:
    with reading(db) as conn:
        return cache.get(conn, ACCOUNT_ID, now=now)


def hits(snapshot: Snapshot) -> list[str]:
    return [h.card.id for h in snapshot.search(identifiers=["parse_config", "load_rows"]).hits]


def test_unchanged_entries_reuse_the_snapshot(db: Engine) -> None:
    cache = SnapshotCache()
    first = snapshot_of(db, cache)
    assert snapshot_of(db, cache, NOW + 1_000) is first
    assert cache.builds == 1
    assert [lesson.state for lesson in first.lessons] == [EntryState.ACTIVE]


def test_every_entry_change_arrives_as_a_delta(db: Engine) -> None:
    cache = SnapshotCache()
    (lesson,) = snapshot_of(db, cache).lessons
    assert hits(snapshot_of(db, cache)) == [lesson.id]
    with db.begin() as conn:
        store.person_edit(
            conn, lesson.id, expected=lesson.revision, demote=True, actor="octocat", now=NOW
        )
    (demoted,) = snapshot_of(db, cache).lessons
    assert demoted.state is EntryState.DEMOTED and hits(snapshot_of(db, cache)) == []
    another = add_suggestion(db, pr=8, title="Unclosed file handle in load_rows")
    apply_decisions(db, [decision(another)], now=NOW)
    snapshot = snapshot_of(db, cache)
    assert len(snapshot.lessons) == 2 and len(hits(snapshot)) == 1
    with db.begin() as conn:
        store.tombstone(conn, lesson.id, expected=None, now=NOW)
    assert len(snapshot_of(db, cache).lessons) == 1
    assert cache.builds == 1, "no change rebuilt the snapshot"


def test_another_process_learns_through_the_store(db: Engine) -> None:
    reader = make_engine(db.url.render_as_string(hide_password=False))
    try:
        cache = SnapshotCache()
        with reading(reader) as conn:
            (lesson,) = cache.get(conn, ACCOUNT_ID, now=NOW).lessons
        with db.begin() as conn:  # the writer's own engine: another process's view
            store.person_edit(
                conn, lesson.id, expected=lesson.revision, demote=True, actor="octocat", now=NOW
            )
        with reading(reader) as conn:
            snapshot = cache.get(conn, ACCOUNT_ID, now=NOW)
        assert hits(snapshot) == [] and snapshot.generation == generation_of_engine(db)
        assert cache.builds == 1
    finally:
        reader.dispose()


def generation_of_engine(engine: Engine) -> int:
    with reading(engine) as conn:
        return generation_of(conn, ACCOUNT_ID)


def test_a_pruned_log_rebuilds(db: Engine) -> None:
    cache = SnapshotCache()
    (lesson,) = snapshot_of(db, cache).lessons
    with db.begin() as conn:
        store.person_edit(
            conn, lesson.id, expected=lesson.revision, demote=True, actor="octocat", now=NOW
        )
        conn.execute(delete(EntryChange).where(EntryChange.account_id == ACCOUNT_ID))
    (demoted,) = snapshot_of(db, cache).lessons
    assert demoted.state is EntryState.DEMOTED and cache.builds == 2


def test_the_log_is_pruned_behind_the_kept_window(db: Engine) -> None:
    (lesson,) = snapshot_of(db, SnapshotCache()).lessons
    pruning = (KEEP_CHANGES // PRUNE_EVERY + 1) * PRUNE_EVERY  # a generation that prunes
    with db.begin() as conn:  # as if the account had seen that many changes already
        conn.execute(
            update(Account).where(Account.id == ACCOUNT_ID).values(store_generation=pruning - 1)
        )
        store.person_edit(
            conn, lesson.id, expected=lesson.revision, demote=True, actor="octocat", now=NOW
        )
    with reading(db) as conn:
        generation = generation_of(conn, ACCOUNT_ID)
        kept = conn.execute(
            EntryChange.__table__.select().where(EntryChange.account_id == ACCOUNT_ID)
        ).all()
    assert generation == pruning
    assert [row.generation for row in kept] == [generation], "older rows were pruned"


def test_expiry_follows_the_clock(db: Engine) -> None:
    cache = SnapshotCache(max_age_ms=60_000)
    first = snapshot_of(db, cache)
    later = NOW + 31 * DAY_MS
    (lesson,) = snapshot_of(db, cache, later).lessons
    assert lesson.state is EntryState.EXPIRED and hits(snapshot_of(db, cache, later)) == []
    assert cache.builds == 1 and snapshot_of(db, cache, later) is first
    snapshot_of(db, cache, NOW)  # far before the snapshot's clock: expiry cannot be undone
    assert cache.builds == 2


def test_a_merged_fix_elsewhere_widens_an_unchanged_entry(engine: Engine) -> None:
    org = seed(engine, 1, "octo", "app", "lib")
    accept(engine, org, "octo/app")
    cache = SnapshotCache()
    with reading(engine) as conn:
        cache.get(conn, org.account_id, now=NOW)
    accept(engine, org, "octo/lib", source=Source.FIX_PR)
    with reading(engine) as conn:
        snapshot = cache.get(conn, org.account_id, now=NOW)
    app_entry = entry_of(engine, org.repos["octo/app"], "parse_config")
    scopes = {lesson.id: lesson.scope for lesson in snapshot.lessons}
    assert scopes[app_entry.id] is Scope.ACCOUNT and cache.builds == 1
    found = snapshot.search(identifiers=["parse_config"], repository="octo/other")
    assert [h.card.id for h in found.hits] == [app_entry.id]


def test_a_dismissal_reaches_a_cached_snapshot_at_once(db: Engine) -> None:
    """The repository's refused mechanisms are kept with the snapshot; a dismissal changes an
    entry, so the next question reads them again and the lesson is no longer handed."""
    cache = SnapshotCache()
    target = Target(ACCOUNT_ID, "octo-org", REPO_ID, "octo-org/app")
    preference = Preference(lesson_cap=10)

    def handed() -> list[str]:
        with reading(db) as conn:
            found, _ = preview_recall(conn, target, preference=preference, now=NOW, snapshots=cache)
        return [entry_id for entry_id, _ in found.entries]

    (lesson,) = snapshot_of(db, cache).lessons
    assert handed() == [lesson.id]
    assert handed() == [lesson.id], "asked again: answered from the kept suppressions"
    refused = add_suggestion(db, pr=9)
    later = decision(refused, Decision.DISMISSED, reason=Reason.WONT_FIX, at=1_700_000_060)
    apply_decisions(db, [later], now=NOW)
    assert handed() == []
    assert cache.builds == 1


def test_kept_suppressions_follow_the_clock() -> None:
    """Time only ends a suppression: an answer is reused until its first suppression lapses,
    and computed again for an earlier moment."""
    day = 86_400_000
    dismissed = PathReceipt(1, Decision.DISMISSED.value, "wont-fix", "src/app.py", "mona", NOW)
    standing = Standing((Mechanism("e1", "lesson/k-1", "correctness", "T", (dismissed,)),), 2)
    first = standing.at(NOW + 1)
    assert [s.until_ms for s in first] == [NOW + 2 * day]
    assert standing.at(NOW + day) is first
    assert standing.at(NOW + 2 * day) == ()
    again = standing.at(NOW + 1)
    assert again == first and again is not first


def test_an_account_whose_generation_went_back_is_rebuilt(db: Engine) -> None:
    """A purged and re-created account starts its generations again: the cached snapshot,
    which no delta can bring there, is rebuilt."""
    cache = SnapshotCache()
    assert len(snapshot_of(db, cache).lessons) == 1
    with db.begin() as conn:
        conn.execute(delete(Receipt))
        conn.execute(delete(Entry))
        conn.execute(update(Account).values(store_generation=0))
    assert snapshot_of(db, cache).lessons == ()
    assert cache.builds == 2


def test_a_value_is_kept_only_for_the_snapshots_own_generation(db: Engine) -> None:
    """A caller whose reads are older or newer than the snapshot computes afresh and keeps
    nothing: a value kept under a generation it was not read at would be stale."""
    snapshot = snapshot_of(db, SnapshotCache())
    computed: list[int] = []

    def compute() -> int:
        computed.append(1)
        return len(computed)

    mine = snapshot.generation
    assert snapshot.remembered("x", compute, generation=mine - 1) == 1
    assert snapshot.remembered("x", compute, generation=mine + 1) == 2
    assert snapshot.remembered("x", compute, generation=mine) == 3
    assert snapshot.remembered("x", compute, generation=mine) == 3, "kept"
    assert snapshot.remembered("x", compute, generation=mine - 1) == 4, "not answered from it"
