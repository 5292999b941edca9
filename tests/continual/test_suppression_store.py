"""Suppressions read from the store: receipts joined to their suggestions' paths, demotion, lifts."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select

from continual import store
from continual.suppression import suppressing, suppressions
from continual.tables import Entry, Receipt
from continual.values import Decision, Reason
from continual.writeback.apply import apply_decisions
from tests.support.store import OTHER_REPO_ID, REPO_ID, add_suggestion, decision, seed_tenant

AT_S = 1_700_000_000
NOW = AT_S * 1000 + 60_000


@pytest.fixture
def db(engine: Engine) -> Engine:
    seed_tenant(engine)
    return engine


def the_entry(engine: Engine) -> Entry:
    with engine.connect() as conn:
        (row,) = conn.execute(select(Entry)).all()
    return row  # type: ignore[return-value]


def test_a_dismissal_suppresses_at_the_suggestions_path_in_its_repository_only(
    db: Engine,
) -> None:
    sid = add_suggestion(db, path="src/other.py")
    apply_decisions(
        db,
        [decision(sid, Decision.DISMISSED, reason=Reason.NOT_APPLICABLE, at=AT_S)],
        now=NOW,
    )
    with db.connect() as conn:
        found = suppressions(conn, REPO_ID, now_ms=NOW)
        elsewhere = suppressions(conn, OTHER_REPO_ID, now_ms=NOW)
        (receipt,) = conn.execute(select(Receipt)).all()
    (only,) = found
    assert (only.path, only.receipt_id, only.repository_wide) == ("src/other.py", receipt.id, False)
    assert suppressing(found, only.key, "src/other.py") is only
    assert suppressing(found, only.key, "src/app.py") is None
    assert elsewhere == ()


def test_only_acceptances_make_no_suppression(db: Engine) -> None:
    apply_decisions(db, [decision(add_suggestion(db), at=AT_S)], now=NOW)
    with db.connect() as conn:
        assert suppressions(conn, REPO_ID, now_ms=NOW) == ()


def test_a_restore_lifts_dismissals_stamped_later_than_the_clock_of_the_restore(
    db: Engine,
) -> None:
    sid = add_suggestion(db)
    # GitHub's clock is ahead of ours: the dismissal is stamped after "now".
    ahead = AT_S + 3600
    apply_decisions(
        db, [decision(sid, Decision.DISMISSED, reason=Reason.WONT_FIX, at=ahead)], now=NOW
    )
    entry = the_entry(db)
    with db.begin() as conn:
        store.person_edit(
            conn, entry.id, expected=entry.revision, demote=False, actor="mona", now=NOW
        )
        assert suppressions(conn, REPO_ID, now_ms=NOW) == ()
    lifted = the_entry(db)
    assert lifted.suppression_lifted_ms == ahead * 1000
    assert (lifted.suppression_lifted_by, lifted.revision) == ("mona", entry.revision + 1)
    # A dismissal after the lift suppresses again; the one before it no longer counts, so one
    # dismissal does not demote the entry, and a second one after the lift does.
    again = add_suggestion(db, pr=8)
    apply_decisions(
        db,
        [decision(again, Decision.DISMISSED, reason=Reason.STYLE, at=ahead + 10)],
        now=NOW,
    )
    with db.connect() as conn:
        (found,) = suppressions(conn, REPO_ID, now_ms=NOW)
        newest = max(conn.execute(select(Receipt.id)).scalars())
    assert (found.repository_wide, found.reason, found.receipt_id) == (True, "style", newest)
    assert the_entry(db).demoted_ms is None
    third = add_suggestion(db, pr=9)
    apply_decisions(
        db,
        [decision(third, Decision.DISMISSED, reason=Reason.STYLE, at=ahead + 20)],
        now=NOW,
    )
    with db.connect() as conn:
        (found,) = suppressions(conn, REPO_ID, now_ms=NOW)
    assert (found.repository_wide, found.reason) == (True, "demoted")


def test_after_a_restore_an_acceptance_never_demotes_on_the_old_dismissals(db: Engine) -> None:
    first, second = add_suggestion(db), add_suggestion(db, pr=8)
    apply_decisions(
        db,
        [
            decision(first, Decision.DISMISSED, reason=Reason.WONT_FIX, at=AT_S),
            decision(second, Decision.DISMISSED, reason=Reason.WONT_FIX, at=AT_S + 1),
        ],
        now=NOW,
    )
    demoted = the_entry(db)
    assert demoted.demoted_by == "rule"
    with db.begin() as conn:
        store.person_edit(
            conn, demoted.id, expected=demoted.revision, demote=False, actor="mona", now=NOW
        )
    accepted = add_suggestion(db, pr=9)
    apply_decisions(db, [decision(accepted, at=AT_S + 120)], now=NOW + 120_000)
    row = the_entry(db)
    assert row.demoted_ms is None and row.dismissed_count == 2 and row.accepted_count == 1
    with db.connect() as conn:
        assert suppressions(conn, REPO_ID, now_ms=NOW + 120_000) == ()


def test_a_demoted_entry_suppresses_until_a_person_restores_it(db: Engine) -> None:
    apply_decisions(db, [decision(add_suggestion(db), at=AT_S)], now=NOW)
    entry = the_entry(db)
    with db.begin() as conn:
        store.person_edit(
            conn, entry.id, expected=entry.revision, demote=True, actor="mona", now=NOW
        )
        (found,) = suppressions(conn, REPO_ID, now_ms=NOW + 10**12)
    assert (found.reason, found.receipt_id, found.actor, found.until_ms) == (
        "demoted",
        None,
        "mona",
        None,
    )


def test_a_dismissal_whose_reason_changes_moves_its_receipt(db: Engine) -> None:
    sid = add_suggestion(db)
    first = decision(sid, Decision.DISMISSED, reason=Reason.FALSE_POSITIVE, at=AT_S)
    apply_decisions(db, [first], now=NOW)
    wider = decision(sid, Decision.DISMISSED, reason=Reason.WONT_FIX, at=AT_S + 5)
    result = apply_decisions(db, [wider], now=NOW)
    again = apply_decisions(db, [wider], now=NOW)
    with db.connect() as conn:
        (receipt,) = conn.execute(select(Receipt)).all()
        (found,) = suppressions(conn, REPO_ID, now_ms=NOW)
    assert (result.changed, again.changed) == (1, 0)
    assert (receipt.reason, receipt.at_ms, receipt.superseded) == (
        "wont-fix",
        (AT_S + 5) * 1000,
        False,
    )
    assert found.repository_wide
