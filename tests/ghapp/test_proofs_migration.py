"""Migration 0010: receipts a proof made become evidence, and their lessons are recomputed."""

from __future__ import annotations

from sqlalchemy import Engine, insert, select

from continual.recall import load_lessons
from continual.tables import Account, Entry, ProofRow, Receipt, Repository, Suggestion
from continual.values import EntryState
from tests.support.migrations import (
    DAY,
    NOW,
    entry,
    receipt,
    suggestion,
    upgrade,
)

REVISION = "0010_proofs_as_evidence"
BODY = "**Off by one**\n\n**Proven:** `pytest -q tests/test_calc.py` fails on this commit and passes with the fix.\n"


def test_proven_receipts_become_evidence_and_lessons_lose_what_only_a_proof_gave(
    engine_before: Engine,
) -> None:
    engine = engine_before
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=1, login="octo", created_ms=NOW))
        conn.execute(insert(Repository).values(id=10, account_id=1, full_name="octo/app"))
        conn.execute(
            insert(Suggestion),
            [
                suggestion("s_only_proof", "lesson/a-1111111111", body=BODY, proven=True),
                suggestion("s_both", "lesson/b-2222222222", body=BODY, proven=True),
                suggestion("s_flag_only", "lesson/c-3333333333", body=BODY, proven=True),
            ],
        )
        conn.execute(
            insert(Entry),
            [
                entry("e_only_proof", "lesson/a-1111111111", confirmed=NOW),
                entry("e_both", "lesson/b-2222222222", confirmed=NOW + 5 * DAY),
            ],
        )
        conn.execute(
            insert(Receipt),
            [
                receipt("e_only_proof", "s_only_proof", "proven", NOW, "hindsight-proof"),
                receipt("e_both", "s_both", "proven", NOW + 5 * DAY, "hindsight-proof"),
                receipt("e_both", "s_both", "reply", NOW + DAY, "maintainer"),
            ],
        )
    upgrade(engine, REVISION)
    upgrade(engine, "head")  # the models below are today's; later revisions keep these rows

    with engine.connect() as conn:
        sources = conn.execute(select(Receipt.suggestion_id, Receipt.source)).all()
        proofs = {row.suggestion_id: row for row in conn.execute(select(ProofRow)).all()}
        entries = {row.id: row for row in conn.execute(select(Entry)).all()}
        generation = conn.execute(select(Account.store_generation)).scalar_one()
        lessons = {lesson.id: lesson for lesson in load_lessons(conn, 1, now=NOW + 6 * DAY)}

    assert sources == [("s_both", "reply")], "no receipt made by a proof is left"
    assert set(proofs) == {"s_only_proof", "s_both", "s_flag_only"}
    assert proofs["s_both"].test == "pytest -q tests/test_calc.py"
    assert (proofs["s_both"].outcome, proofs["s_both"].head_sha) == ("proven", "a" * 40)
    assert proofs["s_both"].created_ms == NOW + 5 * DAY
    assert entries["e_only_proof"].last_confirmed_ms is None
    assert entries["e_only_proof"].revision == 4
    assert entries["e_both"].last_confirmed_ms == NOW + DAY, "confirmed by the maintainer only"
    assert generation == 1
    assert lessons["e_only_proof"].state is EntryState.CANDIDATE
    assert lessons["e_both"].state is EntryState.ACTIVE
    (kept,) = lessons["e_both"].sources
    assert kept.actor == "maintainer"
    assert kept.proof is not None and kept.proof.test == "pytest -q tests/test_calc.py"
