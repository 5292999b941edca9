"""Migration 0018: every entry's receipt counts are written on its row, and no receipt is lost."""

from __future__ import annotations

from sqlalchemy import Engine, func, insert, select

from continual import store
from continual.recall import read_lessons
from continual.tables import Account, Entry, Receipt, Repository, Suggestion
from continual.values import EntryState
from tests.support.migrations import (
    NOW,
    entry,
    receipt,
    suggestion,
    upgrade,
)

REVISION = "0018_entry_receipt_counts"


def test_counts_are_the_current_receipts_and_every_receipt_stays(engine_before: Engine) -> None:
    engine = engine_before
    sids = [f"s{n}" for n in range(7)]
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=1, login="octo", created_ms=NOW))
        conn.execute(insert(Repository).values(id=10, account_id=1, full_name="octo/app"))
        conn.execute(insert(Suggestion), [suggestion(s, "lesson/a-1") for s in sids])
        conn.execute(
            insert(Entry),
            [
                entry("e_kept", "lesson/a-1111111111", confirmed=NOW),
                entry("e_refused", "lesson/b-2222222222", confirmed=NOW),
                entry("e_bare", "lesson/c-3333333333", confirmed=None),
            ],
        )
        conn.execute(
            insert(Receipt),
            [
                receipt("e_kept", "s0", "reply", NOW, "mona"),
                receipt("e_kept", "s1", "reaction", NOW, "mona", lab=None),
                receipt(
                    "e_kept", "s2", "reply", NOW, "mona", decision="dismissed", superseded=True
                ),
                receipt("e_refused", "s3", "reply", NOW, "mona", decision="dismissed"),
                receipt("e_refused", "s4", "reply", NOW, "hubot", decision="dismissed"),
                receipt("e_refused", "s5", "reply", NOW, "mona", lab=""),
                receipt("e_refused", "s6", "reply", NOW, "mona", superseded=True),
            ],
        )
    upgrade(engine, REVISION)
    upgrade(engine, "head")  # the models below are today's; later revisions keep these rows

    with engine.connect() as conn:
        counts = {
            row.id: (row.accepted_count, row.dismissed_count, row.labelled_count)
            for row in conn.execute(select(Entry))
        }
        receipts = conn.execute(select(func.count()).select_from(Receipt)).scalar_one()
        tallies = {eid: store.entry_tally(conn, eid) for eid in counts}
        states = {x.id: x.state for x in read_lessons(conn, 1, now=NOW + 1)}

    assert receipts == 7, "adding the columns lost no receipt"
    assert counts == {"e_kept": (2, 0, 1), "e_refused": (1, 2, 0), "e_bare": (0, 0, 0)}
    for eid, (accepted, dismissed, labelled) in counts.items():
        tally = tallies[eid]
        assert (tally.accepted, tally.dismissed, tally.accepted_with_lab) == (
            accepted,
            dismissed,
            labelled,
        )
    assert states == {
        "e_kept": EntryState.ACTIVE,
        "e_refused": EntryState.CANDIDATE,
        "e_bare": EntryState.CANDIDATE,
    }
