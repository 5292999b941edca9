"""Tombstones hold: a deleted entry's sources never decide anything again, whatever its key holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, delete, select

from continual import store
from continual.markers import with_suggestion_marker
from continual.tables import Entry, Receipt, Suggestion, TombstonedSource
from continual.writeback.apply import write_back_pull
from continual.writeback.authors import Author
from continual.writeback.pull import PullState
from continual.writeback.threads import ThreadComment
from tests.support.store import REPO_ID, add_suggestion, seed_tenant

SLUG = "hindsight"
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
NOW = int(T0.timestamp() * 1000) + 86_400_000
BOT = Author(f"{SLUG}[bot]", "Bot", "NONE", via_app=True)
OWNER = Author("octocat", "User", "OWNER")
VERDICTS = {"accept": "accept", "dismiss": "dismiss wont-fix"}


@dataclass
class Pull:
    """One pull request's suggestions and the maintainer's latest reply on each."""

    number: int
    replies: dict[str, str] = field(default_factory=dict)


def state_of(engine: Engine, pull: Pull) -> PullState:
    """What GitHub shows of `pull`: our comment per suggestion, the maintainer's reply under it."""
    with engine.connect() as conn:
        known = tuple(store.suggestions_of_pull(conn, REPO_ID, pull.number).values())
    comments: list[ThreadComment] = []
    for index, suggestion in enumerate(sorted(known, key=lambda s: s.id)):
        head = 1000 * pull.number + 10 * index
        body = with_suggestion_marker("Check it.", suggestion.id, suggestion.entry_key)
        comments.append(ThreadComment(head, body, BOT, None, T0, path=suggestion.path, line=12))
        verdict = pull.replies.get(suggestion.id)
        if verdict is not None:
            at = T0 + timedelta(minutes=index + 1)
            comments.append(ThreadComment(head + 1, VERDICTS[verdict], OWNER, head, at))
    return PullState(SLUG, tuple(comments), known, T0 + timedelta(days=1))


def run(engine: Engine, pull: Pull) -> None:
    write_back_pull(engine, state_of(engine, pull), now=NOW)


def live(engine: Engine) -> Entry | None:
    with engine.connect() as conn:
        return conn.execute(  # type: ignore[return-value]
            select(Entry).where(Entry.deleted_ms.is_(None))
        ).one_or_none()


def sources(engine: Engine, entry_id: str) -> set[str]:
    with engine.connect() as conn:
        rows = conn.execute(select(Receipt.suggestion_id).where(Receipt.entry_id == entry_id))
        return set(rows.scalars())


def delete_live(engine: Engine) -> set[str]:
    """A person deletes the live entry; answers the sources it had."""
    current = live(engine)
    assert current is not None
    had = sources(engine, current.id)
    with engine.begin() as conn:
        store.tombstone(conn, current.id, expected=None, now=NOW)
    return had


@pytest.fixture
def db(engine: Engine) -> Engine:
    seed_tenant(engine)
    return engine


def test_a_re_run_does_not_bring_deleted_dismissals_back_to_a_re_created_entry(db: Engine) -> None:
    first = Pull(1)
    s1, s2 = add_suggestion(db, pr=1), add_suggestion(db, pr=1)
    first.replies = {s1: "dismiss", s2: "dismiss"}
    run(db, first)
    demoted = live(db)
    assert demoted is not None and demoted.demoted_ms is not None
    delete_live(db)

    second = Pull(2)
    s3 = add_suggestion(db, pr=2)
    second.replies = {s3: "accept"}
    run(db, second)
    recreated = live(db)
    assert recreated is not None and recreated.id != demoted.id

    run(db, first)  # the first PR's write-back runs again (an edit, a redelivery, a close)
    after = live(db)
    assert after is not None and after.id == recreated.id
    assert sources(db, after.id) == {s3}, "the deleted entry's sources stay deleted"
    assert after.demoted_ms is None, "nothing demotes the re-created entry"


def test_a_tombstoned_source_is_refused_even_when_its_key_is_empty_again(db: Engine) -> None:
    first = Pull(1)
    s1 = add_suggestion(db, pr=1)
    first.replies = {s1: "accept"}
    run(db, first)
    delete_live(db)
    run(db, first)
    assert live(db) is None
    with db.connect() as conn:
        (row,) = conn.execute(select(TombstonedSource)).all()
    assert row.suggestion_id == s1


def test_deleting_a_suggestion_s_only_entry_twice_keeps_both_tombstones_holding(db: Engine) -> None:
    first, second = Pull(1), Pull(2)
    s1, s2 = add_suggestion(db, pr=1), add_suggestion(db, pr=2)
    first.replies, second.replies = {s1: "accept"}, {s2: "accept"}
    run(db, first)
    delete_live(db)
    run(db, second)
    delete_live(db)
    for pull in (first, second, first):
        run(db, pull)
    assert live(db) is None


# A model of the store for the property: which sources a live entry may hold.
Step = tuple[str, int]  # (action, argument)
ACTIONS = st.one_of(
    st.tuples(st.sampled_from(["accept", "dismiss"]), st.integers(0, 5)),
    st.tuples(st.just("new"), st.integers(0, 2)),
    st.tuples(st.just("delete"), st.just(0)),
    st.tuples(st.just("rerun"), st.integers(0, 2)),
)


def _run_steps(engine: Engine, steps: Sequence[Step]) -> None:
    pulls = [Pull(number) for number in (1, 2, 3)]
    made: list[tuple[Pull, str]] = []
    deleted: set[str] = set()
    for action, argument in steps:
        if action == "new":
            pull = pulls[argument]
            made.append((pull, add_suggestion(engine, pr=pull.number)))
        elif action in VERDICTS and made:
            pull, sid = made[argument % len(made)]
            pull.replies[sid] = action
            run(engine, pull)
        elif action == "delete" and live(engine) is not None:
            deleted |= delete_live(engine)
        elif action == "rerun":
            run(engine, pulls[argument])
        current = live(engine)
        if current is not None:
            held = sources(engine, current.id)
            assert not held & deleted, f"deleted sources {held & deleted} came back"
    for pull in pulls:  # every write-back once more: still nothing comes back
        run(engine, pull)
    current = live(engine)
    if current is not None:
        assert not sources(engine, current.id) & deleted


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(ACTIONS, min_size=1, max_size=14))
def test_no_sequence_of_decisions_deletes_and_re_runs_brings_a_deleted_source_back(
    db: Engine, steps: list[Step]
) -> None:
    with db.begin() as conn:  # each example starts from an empty store of the same tenant
        for table in (Receipt, TombstonedSource, Entry, Suggestion):
            conn.execute(delete(table))
    _run_steps(db, steps)
