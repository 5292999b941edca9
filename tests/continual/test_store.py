"""The store: receipts and entries, idempotent re-runs, demotion, tombstones and CAS revisions."""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select

from continual import store
from continual.lifecycle import CONFIRMATION_TTL_MS, entry_state
from continual.tables import Entry, Receipt
from continual.values import Decision, EntryState, Reason
from continual.writeback.apply import apply_decisions, new_entry_for
from tests.support.store import ACCOUNT_ID, add_suggestion, decision, seed_tenant

NOW = 1_700_000_000_000


@pytest.fixture
def db(engine: Engine) -> Engine:
    seed_tenant(engine)
    return engine


def entries(engine: Engine) -> list[Entry]:
    with engine.connect() as conn:
        return list(conn.execute(select(Entry).order_by(Entry.created_ms, Entry.id)).all())  # type: ignore[arg-type]


def receipts(engine: Engine) -> list[Receipt]:
    with engine.connect() as conn:
        return list(conn.execute(select(Receipt).order_by(Receipt.id)).all())  # type: ignore[arg-type]


def row_counts(engine: Engine, entry_id: str) -> tuple[int, int, int]:
    """The receipt counts on the entry's row, checked against a count of its receipts."""
    with engine.connect() as conn:
        row = conn.execute(select(Entry).where(Entry.id == entry_id)).one()
        counts = store.entry_tally(conn, entry_id)
    held = (row.accepted_count, row.dismissed_count, row.labelled_count)
    assert held == (counts.accepted, counts.dismissed, counts.accepted_with_lab)
    return held


def state(engine: Engine, entry_id: str, now: int = NOW) -> EntryState:
    row_counts(engine, entry_id)
    with engine.connect() as conn:
        row = store.entry(conn, entry_id)
        assert row is not None
        counts = store.entry_tally(conn, entry_id)
    return entry_state(
        demoted=row.demoted_ms is not None,
        admitted=row.admission is None,
        counts=counts,
        expires_ms=row.expires_ms,
        now_ms=now,
    )


def test_acceptance_makes_an_active_entry_with_a_receipt(db: Engine) -> None:
    sid = add_suggestion(db)
    result = apply_decisions(db, [decision(sid)], now=NOW)
    assert result.changed == 1
    (entry,) = entries(db)
    assert entry.key.startswith("lesson/correctness-unchecked-parse-config-result-")
    assert entry.admission is None, "the lesson text is admitted"
    (receipt,) = receipts(db)
    assert (receipt.decision, receipt.source, receipt.lab, receipt.set_sha256) == (
        "accepted",
        "reply",
        "acme-labs",
        "f" * 64,
    )
    assert entry.last_confirmed_ms == 1_700_000_000_000
    assert entry.expires_ms == entry.last_confirmed_ms + CONFIRMATION_TTL_MS
    assert state(db, entry.id) is EntryState.ACTIVE
    assert state(db, entry.id, now=entry.expires_ms) is EntryState.EXPIRED


def test_rerun_adds_nothing_and_bumps_no_revision(db: Engine) -> None:
    sid = add_suggestion(db)
    apply_decisions(db, [decision(sid)], now=NOW)
    before = entries(db)[0].revision
    again = apply_decisions(db, [decision(sid)], now=NOW + 5)
    assert again.changed == 0
    assert entries(db)[0].revision == before
    assert len(receipts(db)) == 1


def test_changed_decision_supersedes_the_old_receipt(db: Engine) -> None:
    sid = add_suggestion(db)
    apply_decisions(db, [decision(sid)], now=NOW)
    apply_decisions(db, [decision(sid, Decision.DISMISSED, reason=Reason.WONT_FIX)], now=NOW)
    old, new = receipts(db)
    assert (old.decision, old.superseded) == ("accepted", True)
    assert (new.decision, new.reason, new.superseded) == ("dismissed", "wont-fix", False)
    assert state(db, entries(db)[0].id) is EntryState.CANDIDATE


def test_two_acceptances_across_two_prs_are_one_entry_two_receipts(db: Engine) -> None:
    first = add_suggestion(db, pr=1)
    second = add_suggestion(db, pr=2)
    apply_decisions(db, [decision(first, at=1_700_000_000)], now=NOW)
    apply_decisions(db, [decision(second, at=1_700_100_000)], now=NOW)
    (entry,) = entries(db)
    assert len(receipts(db)) == 2
    assert entry.last_confirmed_ms == 1_700_100_000_000, "the later acceptance confirms"
    assert entry.revision == 3


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(["accept", "dismiss", "retract"])),
        min_size=1,
        max_size=12,
    )
)
def test_the_rows_counts_follow_every_change_of_its_receipts(
    db: Engine, steps: list[tuple[int, str]]
) -> None:
    """Acceptances (with and without a lab), dismissals, changed minds and retractions: the
    counts on the entry's row are always those of its current receipts."""
    with db.begin() as conn:
        conn.execute(Receipt.__table__.delete())
        conn.execute(Entry.__table__.delete())
    sids = [add_suggestion(db, pr=n, lab=None if n == 3 else "acme-labs") for n in range(4)]
    for n, (which, what) in enumerate(steps):
        sid, now = sids[which], NOW + n
        if what == "retract":
            apply_decisions(db, [], retract_missing=[sid], now=now)
        elif what == "accept":
            apply_decisions(db, [decision(sid, at=now // 1000)], now=now)
        else:
            dismissal = decision(sid, Decision.DISMISSED, reason=Reason.FALSE_POSITIVE)
            apply_decisions(db, [dismissal], now=now)
        for entry in entries(db):
            row_counts(db, entry.id)


def test_demotion_is_sticky_until_a_person_restores(db: Engine) -> None:
    sids = [add_suggestion(db, pr=n) for n in range(4)]
    apply_decisions(
        db, [decision(sids[0], Decision.DISMISSED, reason=Reason.FALSE_POSITIVE)], now=NOW
    )
    assert entries(db)[0].demoted_ms is None, "one dismissal does not demote"
    apply_decisions(db, [decision(sids[1], Decision.DISMISSED, reason=Reason.STYLE)], now=NOW)
    entry = entries(db)[0]
    assert entry.demoted_by == "rule"
    apply_decisions(db, [decision(sids[2]), decision(sids[3])], now=NOW)
    entry = entries(db)[0]
    assert entry.demoted_ms is not None, "later acceptances never lift a demotion"
    assert state(db, entry.id) is EntryState.DEMOTED
    with db.begin() as conn:
        store.person_edit(
            conn, entry.id, expected=entry.revision, demote=False, actor="octocat", now=NOW
        )
    assert state(db, entry.id) is EntryState.ACTIVE


def test_person_edit_with_a_stale_revision_conflicts(db: Engine) -> None:
    sid = add_suggestion(db)
    apply_decisions(db, [decision(sid)], now=NOW)
    entry = entries(db)[0]
    with pytest.raises(store.RevisionConflict), db.begin() as conn:
        store.person_edit(
            conn, entry.id, expected=entry.revision - 1, demote=True, actor="x", now=NOW
        )


def test_acceptance_by_a_seat_without_a_lab_is_not_active(db: Engine) -> None:
    sid = add_suggestion(db, lab=None)
    apply_decisions(db, [decision(sid)], now=NOW)
    assert state(db, entries(db)[0].id) is EntryState.CANDIDATE


def test_inadmissible_lesson_is_stored_but_not_active(db: Engine) -> None:
    sid = add_suggestion(db, lesson="This is bad, see src/app.py:12 for details.")
    apply_decisions(db, [decision(sid)], now=NOW)
    (entry,) = entries(db)
    assert entry.admission is not None
    assert state(db, entry.id) is EntryState.CANDIDATE


def test_retracted_reply_supersedes_its_receipt(db: Engine) -> None:
    sid = add_suggestion(db)
    apply_decisions(db, [decision(sid)], now=NOW)
    result = apply_decisions(db, [], retract_missing=[sid], now=NOW)
    assert result.retracted == 1
    assert receipts(db)[0].superseded
    assert state(db, entries(db)[0].id) is EntryState.CANDIDATE


def test_tombstone_blocks_the_same_source_but_not_a_new_one(db: Engine) -> None:
    sid = add_suggestion(db)
    apply_decisions(db, [decision(sid)], now=NOW)
    entry = entries(db)[0]
    with db.begin() as conn:
        revision = store.tombstone(conn, entry.id, expected=entry.revision, now=NOW)
    assert revision == entry.revision + 1
    result = apply_decisions(db, [decision(sid)], now=NOW)
    assert result.tombstoned == 1
    (gone,) = entries(db)
    assert gone.deleted_ms is not None and gone.text == "" and receipts(db) == []
    fresh = add_suggestion(db, pr=9)
    apply_decisions(db, [decision(fresh)], now=NOW)
    live = [e for e in entries(db) if e.deleted_ms is None]
    assert len(live) == 1 and live[0].id != entry.id and live[0].key == entry.key


def test_stale_writer_cannot_touch_a_tombstone(db: Engine) -> None:
    sid = add_suggestion(db)
    apply_decisions(db, [decision(sid)], now=NOW)
    entry = entries(db)[0]
    with db.begin() as conn:
        store.tombstone(conn, entry.id, expected=entry.revision, now=NOW)
    with pytest.raises(store.EntryGone), db.begin() as conn:
        store.person_edit(conn, entry.id, expected=entry.revision, demote=False, actor="x", now=NOW)
    with pytest.raises(store.EntryGone), db.begin() as conn:
        store.cas_update(conn, entry.id, entry.revision + 1, text="resurrected")


def test_concurrent_cas_writers_lose_no_update(db: Engine) -> None:
    """8 writers × 500 compare-and-swap updates of one entry: final revision = 1 + successes."""
    sid = add_suggestion(db)
    with db.begin() as conn:
        suggestion = store.suggestion(conn, sid)
        assert suggestion is not None
        entry_id = store.create_entry(conn, new_entry_for(suggestion), now=NOW)
    successes = [0] * 8

    def writer(index: int) -> None:
        for _ in range(500):
            with db.connect() as conn:
                current = store.entry(conn, entry_id)
            assert current is not None
            try:
                with db.begin() as conn:
                    store.cas_update(conn, entry_id, current.revision, title=f"w{index}")
                successes[index] += 1
            except store.RevisionConflict:
                pass

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with db.connect() as conn:
        final = store.entry(conn, entry_id)
    assert final is not None
    assert final.revision == 1 + sum(successes)
    assert sum(successes) > 0


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("replay"), st.integers(0, 2)),
        st.tuples(st.just("stale-edit"), st.integers(0, 5)),
        st.tuples(st.just("delete"), st.integers(0, 5)),
        st.tuples(st.just("dismiss"), st.integers(0, 2)),
    ),
    max_size=12,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(operations=OPERATIONS)
def test_no_interleaving_resurrects_a_tombstone(
    db: Engine, operations: list[tuple[str, int]]
) -> None:
    with db.begin() as conn:
        conn.execute(Receipt.__table__.delete())
        conn.execute(Entry.__table__.delete())
    sids = [add_suggestion(db, pr=n) for n in range(3)]
    apply_decisions(db, [decision(sid) for sid in sids], now=NOW)
    (entry,) = entries(db)
    with db.begin() as conn:
        store.tombstone(conn, entry.id, expected=entry.revision, now=NOW)
    for operation, argument in operations:
        if operation == "replay":
            apply_decisions(db, [decision(sids[argument])], now=NOW)
        elif operation == "dismiss":
            apply_decisions(
                db, [decision(sids[argument], Decision.DISMISSED, reason=Reason.STYLE)], now=NOW
            )
        else:
            try:
                with db.begin() as conn:
                    if operation == "stale-edit":
                        store.cas_update(conn, entry.id, entry.revision + argument, text="back")
                    else:
                        store.tombstone(conn, entry.id, expected=entry.revision + argument, now=NOW)
            except (store.EntryGone, store.RevisionConflict):
                pass
    rows = entries(db)
    assert [(e.id, e.deleted_ms is not None, e.text) for e in rows] == [(entry.id, True, "")]
    assert receipts(db) == []
    assert all(e.revision == entry.revision + 1 for e in rows)


def test_cli_demotes_and_restores_at_the_expected_revision(
    db: Engine,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from ghapp.cli import main as cli_main

    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", database_url)
    sid = add_suggestion(db)
    apply_decisions(db, [decision(sid)], now=NOW)
    entry = entries(db)[0]
    stale = str(entry.revision - 1)
    assert cli_main(["entry", "demote", entry.id, "--expected-revision", stale]) == 1
    assert "re-read" in capsys.readouterr().err
    assert cli_main(["entry", "demote", entry.id, "--expected-revision", str(entry.revision)]) == 0
    assert state(db, entry.id) is EntryState.DEMOTED
    again = str(entry.revision + 1)
    assert (
        cli_main(["entry", "restore", entry.id, "--expected-revision", again, "--actor", "octocat"])
        == 0
    )
    assert state(db, entry.id) is EntryState.ACTIVE


def test_every_source_and_reason_fits_its_column() -> None:
    """PostgreSQL refuses a value longer than its column (SQLite would store it), so check here."""
    from continual.tables import Receipt
    from continual.values import Reason, Source

    columns = Receipt.__table__.c
    assert max(len(source.value) for source in Source) <= columns.source.type.length
    assert max(len(reason.value) for reason in Reason) <= columns.reason.type.length
    assert len("judge:") + 100 <= columns.rule.type.length, "a judge's rule names its seat"


def three_entries(db: Engine) -> list[str]:
    ids = []
    sids = [add_suggestion(db, title=f"Mechanism number {n}") for n in range(3)]
    with db.begin() as conn:
        for sid in sids:
            suggestion = store.suggestion(conn, sid)
            assert suggestion is not None
            ids.append(store.create_entry(conn, new_entry_for(suggestion), now=NOW))
    return ids


def test_many_cas_updates_write_all_or_name_the_entry_that_moved_on(db: Engine) -> None:
    first, second, third = three_entries(db)
    with db.begin() as conn:  # another writer: `second` is at 2, where the batch would take it
        store.cas_update(conn, second, 1, last_confirmed_ms=5)
    with pytest.raises(store.RevisionConflict), db.begin() as conn:
        changes = [(entry_id, 1, {"demoted_ms": NOW}) for entry_id in (first, second, third)]
        store.cas_update_many(conn, ACCOUNT_ID, changes)
    with db.begin() as conn:  # and past it: the conflict names it
        store.cas_update(conn, second, 2, last_confirmed_ms=6)
    with pytest.raises(store.RevisionConflict) as conflict, db.begin() as conn:
        changes = [(entry_id, 1, {"demoted_ms": NOW}) for entry_id in (first, second, third)]
        store.cas_update_many(conn, ACCOUNT_ID, changes)
    assert conflict.value.entry_id == second and conflict.value.expected == 1
    with db.begin() as conn:
        store.tombstone(conn, third, expected=1, now=NOW)
    with pytest.raises(store.EntryGone) as gone, db.begin() as conn:
        changes = [(first, 1, {"demoted_ms": NOW}), (second, 3, {"demoted_ms": NOW})]
        store.cas_update_many(conn, ACCOUNT_ID, [*changes, (third, 1, {"demoted_ms": NOW})])
    assert gone.value.args and third in str(gone.value)
    # Nothing of either batch was written: the transaction rolled back.
    assert {row.id: row.revision for row in entries(db) if row.id != third} == {first: 1, second: 3}
    with db.begin() as conn:
        store.cas_update_many(conn, ACCOUNT_ID, [(first, 1, {"demoted_ms": NOW}), (second, 3, {})])
    assert {row.id: row.revision for row in entries(db) if row.id != third} == {first: 2, second: 4}
