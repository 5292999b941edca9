"""The snapshot cache's memory bound: least recently used accounts leave first, come back right."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import pytest
from sqlalchemy import Engine

from continual import store
from continual.recall.cache import MIB, SnapshotCache
from continual.recall.snapshot import Snapshot, build_snapshot
from ghapp.app import build_deps
from ghapp.db import reading
from ghapp.settings import Settings
from tests.support.recall import NOW, Tenant, accept, seed

NAMES = ("parse_config", "load_rows", "close_handle")


@pytest.fixture
def tenants(engine: Engine) -> list[Tenant]:
    """Four accounts of three lessons each, of the same size."""
    made = []
    for n, login in enumerate(("acme", "bolt", "crux", "dune"), start=1):
        tenant = seed(engine, n, login, "app")
        for name in NAMES:
            accept(engine, tenant, f"{login}/app", name=name)
        made.append(tenant)
    return made


def ask(engine: Engine, cache: SnapshotCache, tenant: Tenant) -> Snapshot:
    with reading(engine) as conn:
        return cache.get(conn, tenant.account_id, now=NOW)


def answers(snapshot: Snapshot) -> list[tuple[str, int, str]]:
    found = snapshot.search(identifiers=list(NAMES), paths=["src/app.py"], limit=10)
    return [(hit.card.id, hit.card.revision, hit.card.text) for hit in found.hits]


def two_fit(engine: Engine, tenants: list[Tenant]) -> SnapshotCache:
    """A cache whose bound holds two of the accounts' snapshots and not three."""
    with reading(engine) as conn:
        size = build_snapshot(conn, tenants[0].account_id, now=NOW).estimated_bytes()
    return SnapshotCache(max_bytes=size * 5 // 2)


def test_the_least_recently_used_account_leaves_first(
    engine: Engine, tenants: list[Tenant]
) -> None:
    a, b, c, _ = tenants
    cache = two_fit(engine, tenants)
    first = ask(engine, cache, a)
    ask(engine, cache, b)
    assert ask(engine, cache, a) is first, "a hit is answered from the cache"
    ask(engine, cache, c)  # b was used less recently than a: b leaves
    assert cache.accounts() == [a.account_id, c.account_id]
    assert cache.evictions == 1 and cache.builds == 3


def test_the_bound_is_never_passed(engine: Engine, tenants: list[Tenant]) -> None:
    cache = two_fit(engine, tenants)
    for n, tenant in enumerate([*tenants, *reversed(tenants), *tenants]):
        ask(engine, cache, tenant)
        assert 0 < cache.held_bytes <= cache.max_bytes
        assert len(cache.accounts()) == min(n + 1, 2)
    assert cache.evictions == cache.builds - 2


def test_an_evicted_account_is_rebuilt_with_the_same_answers(
    engine: Engine, tenants: list[Tenant]
) -> None:
    a, b, c, _ = tenants
    cache = two_fit(engine, tenants)
    before = ask(engine, cache, a)
    expected, lessons = answers(before), [(x.id, x.revision, x.state) for x in before.lessons]
    assert len(expected) == 3
    ask(engine, cache, b)
    ask(engine, cache, c)
    assert a.account_id not in cache.accounts()
    again = ask(engine, cache, a)
    assert again is not before and cache.builds == 4
    assert answers(again) == expected
    assert [(x.id, x.revision, x.state) for x in again.lessons] == lessons


def test_changes_reach_a_cached_snapshot_and_never_revive_an_evicted_one(
    engine: Engine, tenants: list[Tenant]
) -> None:
    a, b, c, _ = tenants
    cache = two_fit(engine, tenants)
    cached = ask(engine, cache, a)
    gone = cached.lessons[0]
    with engine.begin() as conn:
        store.person_edit(
            conn, gone.id, expected=gone.revision, demote=True, actor="octocat", now=NOW
        )
    assert ask(engine, cache, a) is cached and cache.builds == 1, "a delta, not a rebuild"
    assert gone.id not in [hit for hit, _, _ in answers(cached)]

    held = ask(engine, cache, b)  # a caller still holds b's snapshot when b is evicted
    ask(engine, cache, a)
    ask(engine, cache, c)
    assert b.account_id not in cache.accounts()
    changed = held.lessons[0]
    with engine.begin() as conn:
        store.person_edit(
            conn, changed.id, expected=changed.revision, demote=True, actor="octocat", now=NOW
        )
    bytes_before = cache.held_bytes
    with reading(engine) as conn:  # the holder brings its copy up to date...
        assert held.follow(conn, held.generation + 1, NOW)
    assert b.account_id not in cache.accounts() and cache.held_bytes == bytes_before
    rebuilt = ask(engine, cache, b)  # ...and the cache builds b again, with the change
    assert rebuilt is not held and cache.builds == 4
    assert changed.id not in [hit for hit, _, _ in answers(rebuilt)]
    assert answers(rebuilt) == answers(held)


def test_a_snapshot_larger_than_the_bound_is_answered_but_not_kept(
    engine: Engine, tenants: list[Tenant]
) -> None:
    cache = SnapshotCache(max_bytes=1_024)
    snapshot = ask(engine, cache, tenants[0])
    assert len(answers(snapshot)) == 3
    assert cache.accounts() == [] and cache.held_bytes == 0 and cache.oversized == 1


def test_a_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive bound"):
        SnapshotCache(max_bytes=0)


def test_the_estimate_follows_the_memory_a_build_holds(
    engine: Engine, tenants: list[Tenant]
) -> None:
    with reading(engine) as conn:
        build_snapshot(conn, tenants[0].account_id, now=NOW)  # statements compiled and cached
        tracemalloc.start()
        try:
            snapshot = build_snapshot(conn, tenants[0].account_id, now=NOW)
            traced, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert 0.7 * traced <= snapshot.estimated_bytes() <= 2 * traced


def test_the_setting_bounds_the_process_cache(engine: Engine, tmp_path: object) -> None:
    settings = Settings(
        database_url=engine.url.render_as_string(hide_password=False),
        webhook_secret="test-webhook-secret",  # type: ignore[arg-type]
        snapshot_cache_mb=64,
    )
    deps = build_deps(settings, engine=engine, review_config=None)
    assert deps.snapshots.max_bytes == 64 * MIB
    with pytest.raises(ValueError, match="snapshot_cache_mb"):
        Settings(snapshot_cache_mb=0)


def test_an_evicted_snapshot_is_freed_by_reference_counting_alone(
    engine: Engine, tenants: list[Tenant]
) -> None:
    """The cache takes what it holds out of the cycle collector's reach (`gc.freeze`), which is
    right only while a snapshot holds no reference cycle: evicted, it must be freed at once."""
    a, b, c, _ = tenants
    cache = two_fit(engine, tenants)
    enabled = gc.isenabled()
    gc.disable()
    try:
        first = ask(engine, cache, a)
        held = [weakref.ref(first), weakref.ref(first.index)]
        del first
        ask(engine, cache, b)
        ask(engine, cache, c)  # a leaves
        assert a.account_id not in cache.accounts()
        assert [ref() for ref in held] == [None, None]
    finally:
        if enabled:
            gc.enable()


def test_kept_builds_leave_the_collectors_generations_until_every_thousandth(
    engine: Engine, tenants: list[Tenant], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("continual.recall.cache.UNFREEZE_EVERY", 3)
    gc.unfreeze()
    cache = SnapshotCache(max_bytes=64 * MIB)
    first = ask(engine, cache, tenants[0])
    assert gc.get_freeze_count() > 0
    assert not any(obj is first for obj in gc.get_objects())  # no generation holds it
    ask(engine, cache, tenants[0])  # a hit builds nothing and freezes nothing more
    assert cache.builds == 1
    ask(engine, cache, tenants[1])
    assert gc.get_freeze_count() > 0
    ask(engine, cache, tenants[2])  # the third build gives everything back to the collector
    assert gc.get_freeze_count() == 0
    assert any(obj is first for obj in gc.get_objects())
    ask(engine, cache, tenants[3])
    assert gc.get_freeze_count() > 0
