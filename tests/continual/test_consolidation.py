"""Consolidation: paraphrased lessons of one repository merge into one canonical entry; distinct
causes, other lenses and other repositories stay apart; running it again changes nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import Engine, select

from continual import store
from continual.consolidation import ParaphraseCandidate, consolidate, plan_merges, same_advice
from continual.suppression import suppressing, suppressions
from continual.tables import Entry, Receipt
from continual.values import Decision, Reason
from continual.writeback.apply import apply_decisions
from tests.support.store import (
    OTHER_REPO_ID,
    REPO_ID,
    add_suggestion,
    decision,
    entry_without_writeback,
    seed_tenant,
)

NOW = 1_700_000_000_000
APP = "src/app.py"


def lesson(
    title: str,
    *,
    lens: str = "correctness",
    files: tuple[str, ...] = (APP,),
    identifiers: tuple[str, ...] = ("parse_config",),
    repository_id: int = REPO_ID,
    id: str | None = None,
    accepted: int = 1,
    created_ms: int = 0,
) -> ParaphraseCandidate:
    return ParaphraseCandidate(
        id=id or f"e_{abs(hash((title, lens, files, repository_id))) % 10**8}",
        repository_id=repository_id,
        key=f"lesson/{lens}-{title}",
        lens=lens,
        title=title,
        revision=1,
        files=files,
        identifiers=identifiers,
        accepted=accepted,
        created_ms=created_ms,
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Unchecked parse_config result", "Result of parse_config is not checked"),
        ("Unchecked `parse_config` result", "parse_config result unchecked"),
        ("File opened without a context manager", "Files opened without context managers"),
        ("Bare except swallows every error", "Bare except swallows errors"),
    ],
)
def test_paraphrases_are_the_same_advice(first: str, second: str) -> None:
    assert same_advice(lesson(first), lesson(second))
    assert same_advice(lesson(second), lesson(first))


@pytest.mark.parametrize(
    ("first", "second", "why"),
    [
        (
            lesson("Unchecked parse_config result"),
            lesson("Unchecked load_config result", identifiers=("parse_config", "load_config")),
            "another function named",
        ),
        (
            lesson("File opened without a context manager"),
            lesson("File opened with a context manager"),
            "the opposite advice",
        ),
        (
            lesson("Bare except swallows every error"),
            lesson("Bare except hides the timeout"),
            "another cause",
        ),
        (
            lesson("Unchecked parse_config result"),
            lesson("Unchecked parse_config result", lens="security"),
            "another lens",
        ),
        (
            lesson("Bare except swallows every error", files=("src/a.py",), identifiers=()),
            lesson("Bare except swallows errors", files=("src/b.py",), identifiers=()),
            "no shared anchor",
        ),
        (
            lesson("Unchecked parse_config result"),
            lesson("Result of parse_config is not checked", repository_id=OTHER_REPO_ID),
            "another repository",
        ),
    ],
)
def test_near_misses_stay_apart(
    first: ParaphraseCandidate, second: ParaphraseCandidate, why: str
) -> None:
    assert not same_advice(first, second), why
    assert not plan_merges([first, second]), why


def test_the_plan_keeps_the_best_backed_lesson_and_never_chains() -> None:
    strong = lesson("Unchecked parse_config result", id="e_strong", accepted=3, created_ms=50)
    weak = lesson("Result of parse_config is not checked before use", id="e_weak", created_ms=10)
    # Close to `weak`'s wording but not to `strong`'s: it must not ride in on the chain.
    drift = lesson("parse_config result use deferred later", id="e_drift")
    assert same_advice(weak, drift) and not same_advice(strong, drift)
    (merge,) = plan_merges([weak, drift, strong]).merges
    assert merge.canonical.id == "e_strong"
    assert [other.id for other in merge.replaced] == ["e_weak"]


@pytest.fixture
def db(engine: Engine) -> Engine:
    seed_tenant(engine)
    return engine


def live_entries(engine: Engine) -> list[Entry]:
    with engine.connect() as conn:
        return list(
            conn.execute(select(Entry).where(Entry.deleted_ms.is_(None)).order_by(Entry.id)).all()  # type: ignore[arg-type]
        )


def receipts_of(engine: Engine, entry_id: str) -> set[str]:
    with engine.connect() as conn:
        rows = conn.execute(select(Receipt.suggestion_id).where(Receipt.entry_id == entry_id))
        return set(rows.scalars())


PARAPHRASE = "Result of parse_config is not checked"
PARAPHRASE_LESSON = "Check what `parse_config` returns in src/app.py before you use it."


def test_a_write_back_merges_paraphrases_keeping_every_receipt(db: Engine) -> None:
    first = add_suggestion(db, pr=1)
    apply_decisions(db, [decision(first)], now=NOW)
    second = add_suggestion(db, pr=2, title=PARAPHRASE, lesson=PARAPHRASE_LESSON)
    apply_decisions(db, [decision(second)], now=NOW + 1000)

    (canonical,) = live_entries(db)
    assert receipts_of(db, canonical.id) == {first, second}
    assert canonical.title == "Unchecked parse_config result", "the oldest, equally backed, stays"
    with db.connect() as conn:
        (replaced,) = conn.execute(select(Entry).where(Entry.replaced_by.is_not(None))).all()
    assert replaced.replaced_by == canonical.id and replaced.deleted_ms == NOW + 1000
    assert replaced.title == PARAPHRASE, "a replaced entry keeps its text to explain itself"
    assert receipts_of(db, replaced.id) == set()

    # Idempotent: nothing left to merge, no revision bumped.
    assert not consolidate(db, REPO_ID, now=NOW + 1)
    (again,) = live_entries(db)
    assert again.revision == canonical.revision

    # A later decision on the paraphrase's mechanism joins the canonical entry.
    third = add_suggestion(db, pr=3, title=PARAPHRASE, lesson=PARAPHRASE_LESSON)
    apply_decisions(
        db,
        [decision(third, Decision.DISMISSED, reason=Reason.WONT_FIX, at=1_700_000_100)],
        now=NOW + 2,
    )
    (after,) = live_entries(db)
    assert after.id == canonical.id and receipts_of(db, after.id) == {first, second, third}
    with db.connect() as conn:
        found = suppressions(conn, REPO_ID, now_ms=NOW + 3)
    assert suppressing(found, replaced.key, "src/other.py") is not None, (
        "a dismissal suppresses the paraphrase's key too"
    )


def test_distinct_causes_and_other_repositories_are_not_merged_by_a_write_back(
    db: Engine,
) -> None:
    sids = [
        add_suggestion(db, pr=1),
        add_suggestion(
            db,
            pr=1,
            title="Unchecked load_config result",
            lesson=PARAPHRASE_LESSON.replace("parse_config", "load_config"),
        ),
        add_suggestion(
            db, pr=1, lens="performance", title=PARAPHRASE, lesson=PARAPHRASE_LESSON + " Twice."
        ),
        add_suggestion(db, pr=1, repository_id=OTHER_REPO_ID, title=PARAPHRASE),
    ]
    apply_decisions(db, [decision(sid) for sid in sids], now=NOW)
    assert len(live_entries(db)) == 4
    assert not consolidate(db, REPO_ID, now=NOW)


def test_the_plan_merges_the_same_text_across_lenses_only_in_one_repository() -> None:
    text = "Check the result of `parse_config` before using it."
    kept = replace(lesson("Unchecked parse_config result", accepted=2), text=text)
    twin = replace(
        lesson("Something else entirely", lens="performance"),
        text=" check the RESULT of `parse_config` before using it. ",
    )
    elsewhere = replace(lesson("Unchecked parse_config result", repository_id=999), text=text)
    other = replace(lesson("Another lesson", lens="security"), text="Close the file.")
    plan = plan_merges([twin, other, elsewhere, kept])
    assert [(m.canonical.id, [r.id for r in m.replaced]) for m in plan.merges] == [
        (kept.id, [twin.id])
    ]


def test_the_same_text_under_two_lenses_is_merged_into_one_lesson(db: Engine) -> None:
    first = add_suggestion(db, pr=1)
    twin = add_suggestion(db, pr=2, lens="performance", title="Another title altogether")
    other = add_suggestion(db, pr=3, repository_id=OTHER_REPO_ID, lens="performance")
    apply_decisions(db, [decision(sid) for sid in (first, twin, other)], now=NOW)
    kept = [e for e in live_entries(db) if e.repository_id == REPO_ID]
    assert len(kept) == 1, "the write-back merged the twin (the same text, another lens)"
    assert receipts_of(db, kept[0].id) == {first, twin}
    assert [e.lens for e in live_entries(db) if e.repository_id == OTHER_REPO_ID] == [
        "performance"
    ], "one repository's lessons only"
    assert not consolidate(db, REPO_ID, now=NOW), "nothing left to merge"


def test_dry_run_plans_without_changing_anything(db: Engine) -> None:
    first = add_suggestion(db, pr=1)
    second = add_suggestion(db, pr=1, title=PARAPHRASE, lesson=PARAPHRASE_LESSON)
    for sid in (first, second):
        entry_without_writeback(db, sid, now=NOW)
    plan = consolidate(db, REPO_ID, now=NOW, dry_run=True)
    assert plan.replaced == 1 and len(live_entries(db)) == 2
    assert consolidate(db, REPO_ID, now=NOW).replaced == 1
    assert len(live_entries(db)) == 1


def test_a_deleted_canonical_entry_keeps_its_merged_sources_deleted(db: Engine) -> None:
    first = add_suggestion(db, pr=1)
    apply_decisions(db, [decision(first)], now=NOW)
    second = add_suggestion(db, pr=2, title=PARAPHRASE, lesson=PARAPHRASE_LESSON)
    apply_decisions(db, [decision(second)], now=NOW)
    (canonical,) = live_entries(db)
    with db.begin() as conn:
        store.tombstone(conn, canonical.id, expected=None, now=NOW)
    result = apply_decisions(db, [decision(first), decision(second)], now=NOW + 1)
    assert result.tombstoned == 2 and live_entries(db) == []
