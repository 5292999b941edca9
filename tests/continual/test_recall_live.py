"""The live index against the plain scan while entries change, read by another process's engine."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from continual import store
from continual.entry_keys import entry_key
from continual.lifecycle import DAY_MS
from continual.recall.cache import SnapshotCache
from continual.recall.lessons import Lesson, load_lessons, read_lessons
from continual.recall.scan import scan
from continual.values import Decision, EntryState, Source
from ghapp.db import make_engine, reading
from tests.support.recall import NOW, Tenant, decide, lesson_for, seed, suggest

NAMES = ("parse_config", "load_rows", "read_token")
PATHS = ("src/app.py", "src/db/rows.py", "lib/auth/token.py")
REPOSITORIES = ("app", "lib", "cli")
_accounts = itertools.count(1000)

repository = st.sampled_from(REPOSITORIES[:2])  # the third only asks
name = st.sampled_from(NAMES[:2])
change = st.one_of(
    st.tuples(
        st.just("accept"),
        repository,
        name,
        st.sampled_from(PATHS),
        st.sampled_from((Source.REPLY, Source.REPLY, Source.FIX_PR)),
    ),
    st.tuples(st.just("dismiss"), repository, name),
    st.tuples(st.sampled_from(("demote", "restore", "delete")), repository, name),
    st.tuples(st.just("tick"), st.sampled_from((1, 12, 31))),  # days; a confirmation lasts 30
)


@pytest.fixture
def reader(engine: Engine) -> Iterator[Engine]:
    """A second engine on the same database: what another worker or replica sees."""
    other = make_engine(engine.url.render_as_string(hide_password=False))
    yield other
    other.dispose()


def _apply(engine: Engine, tenant: Tenant, step: tuple[object, ...], now: int) -> int:
    kind = step[0]
    if kind == "tick":
        return now + int(step[1]) * DAY_MS  # type: ignore[call-overload]
    repo, entry_name = f"{tenant.login}/{step[1]}", str(step[2])
    if kind == "accept":
        path, source = str(step[3]), step[4]
        assert isinstance(source, Source)
        sid = suggest(engine, tenant, repo, name=entry_name, path=path)
        decide(engine, sid, at=now, source=source)
    elif kind == "dismiss":
        sid = suggest(engine, tenant, repo, name=entry_name)
        decide(engine, sid, at=now, kind=Decision.DISMISSED)
    else:
        key = entry_key("correctness", lesson_for(entry_name)[0])
        with engine.begin() as conn:
            found = store.live_entry(conn, tenant.repos[repo], key)
            if found is None:
                return now
            if kind == "delete":
                store.tombstone(conn, found.id, expected=found.revision, now=now)
            else:
                store.person_edit(
                    conn,
                    found.id,
                    expected=found.revision,
                    demote=kind == "demote",
                    actor="octocat",
                    now=now,
                )
    return now


def _facts(lessons: tuple[Lesson, ...] | list[Lesson]) -> set[tuple[object, ...]]:
    return {(x.id, x.state, x.scope, x.revision, x.confirmations) for x in lessons}


def _agrees(engine: Engine, reader: Engine, cache: SnapshotCache, tenant: Tenant, now: int) -> None:
    with reading(reader) as conn:
        live = cache.get(conn, tenant.account_id, now=now)
    with reading(engine) as conn:
        fresh = read_lessons(conn, tenant.account_id, now=now)
        sourced = load_lessons(conn, tenant.account_id, now=now)
    assert _facts(live.lessons) == _facts(fresh) == _facts(sourced)
    cards = [x.card for x in fresh if x.state is EntryState.ACTIVE]
    for repo in (None, *tenant.repos):
        query = {
            "paths": PATHS[:2],
            "identifiers": NAMES[1:],
            "words": ["unchecked", "result"],
            "repository": repo,
        }
        expected = scan(cards, **query)  # type: ignore[arg-type]
        found = live.search(**query)
        assert [(h.card.id, h.score) for h in found.hits] == expected
        assert found.total == len(expected)
        head = live.search(**query, limit=1)
        assert [(h.card.id, h.score) for h in head.hits] == expected[:1]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(change, min_size=1, max_size=12))
def test_the_index_follows_every_change_as_the_scan_ranks(
    engine: Engine, reader: Engine, steps: list[tuple[object, ...]]
) -> None:
    # Every example gets an account of its own in the one database: nothing crosses accounts.
    account_id = next(_accounts)
    tenant = seed(engine, account_id, f"acct{account_id}", *REPOSITORIES)
    cache = SnapshotCache(max_age_ms=0)
    now = NOW
    _agrees(engine, reader, cache, tenant, now)
    for step in steps:
        now = _apply(engine, tenant, step, now)
        _agrees(engine, reader, cache, tenant, now)
    assert cache.builds == 1, "changes arrived as deltas, never as a rebuild"
    # A process starting now builds from the link numbers the writers stored along the way.
    _agrees(engine, reader, SnapshotCache(max_age_ms=0), tenant, now)
