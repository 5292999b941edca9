"""The review's rows: every one belongs to an account and goes with it; one claim per head."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine, func, insert, select

from continual.memory import ItemKind, MemoryHit, MemoryItem, save_hits, save_items
from continual.tables import (
    Base,
    MemoryHitRow,
    MemoryItemRow,
    ReviewAgreement,
    ReviewCallRow,
    ReviewRow,
)
from continual.values import EntryState
from ghapp.purge import purge_account
from review import records
from tests.support.store import ACCOUNT_ID, REPO_ID, add_suggestion, seed_tenant

REVIEW_TABLES = (ReviewRow, ReviewCallRow, ReviewAgreement, MemoryItemRow, MemoryHitRow)
NOW = datetime(2025, 3, 1, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)


def item(subject: str, *, session: str = "r_old", days: int = 30, text: str = "") -> MemoryItem:
    return MemoryItem(
        kind=ItemKind.TOOL_PATH if subject.startswith("tool:") else ItemKind.FACT,
        subject=subject,
        text=text or f"Learned {subject}.",
        seat="alpha",
        session=session,
        commit="c" * 40,
        state=EntryState.ACTIVE if subject.startswith("tool:") else EntryState.CANDIDATE,
        expires_at=NOW + timedelta(days=days),
        recorded_at=NOW,
        files=("src/a.py",),
    )


def save(engine: Engine, items: list[MemoryItem], now_ms: int = NOW_MS) -> None:
    with engine.begin() as conn:
        save_items(conn, account_id=ACCOUNT_ID, repository_id=REPO_ID, items=items, now_ms=now_ms)


def test_every_review_table_has_an_account_and_purge_empties_them(
    engine: Engine, tmp_path: Path
) -> None:
    for model in REVIEW_TABLES:
        assert "account_id" in Base.metadata.tables[model.__tablename__].c
    seed_tenant(engine)
    sid = add_suggestion(engine)
    target = records.ReviewTarget(ACCOUNT_ID, REPO_ID, "octo-org/app", 7, "a" * 40)
    claim = records.claim_review(engine, target, now=NOW_MS)
    save(engine, [item("tool:a", session=claim.review_id)])
    with engine.begin() as conn:
        common = {"account_id": ACCOUNT_ID, "review_id": claim.review_id, "created_ms": 0}
        conn.execute(
            insert(ReviewCallRow).values(
                call_id="c", seat="a", lab="l", lens="x", shard=0, status="ok", **common
            )
        )
        conn.execute(
            insert(ReviewAgreement).values(suggestion_id=sid, seat="b", lab="l", lens="x", **common)
        )
    with engine.begin() as conn:
        save_hits(
            conn,
            account_id=ACCOUNT_ID,
            repository_id=REPO_ID,
            review_id=claim.review_id,
            hits=[MemoryHit("tool:a", ItemKind.TOOL_PATH, "r_0", "a", "c", "a")],
            now_ms=0,
        )

    counts = purge_account(engine, "octo-org", store_dir=tmp_path)
    assert counts is not None
    with engine.connect() as conn:
        for model in REVIEW_TABLES:
            assert conn.execute(select(func.count()).select_from(model)).scalar_one() == 0


def test_a_second_claim_of_the_same_head_finds_the_first(engine: Engine) -> None:
    seed_tenant(engine)
    target = records.ReviewTarget(ACCOUNT_ID, REPO_ID, "octo-org/app", 7, "a" * 40)
    first = records.claim_review(engine, target, now=NOW_MS)
    again = records.claim_review(engine, target, now=NOW_MS)
    assert again.review_id == first.review_id
    records.mark_posted(engine, first.review_id, 99, now=NOW_MS)
    done = records.claim_review(engine, target, now=NOW_MS)
    assert (done.state.value, done.github_review_id) == ("posted", 99)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(ReviewRow)).scalar_one() == 1


def test_a_running_review_claimed_again_starts_without_its_earlier_memory(
    engine: Engine,
) -> None:
    seed_tenant(engine)
    target = records.ReviewTarget(ACCOUNT_ID, REPO_ID, "octo-org/app", 7, "a" * 40)
    first = records.claim_review(engine, target, now=NOW_MS)
    save(engine, [item("tool:a", session=first.review_id)])
    save(engine, [item("tool:b", session="r_other")])
    again = records.claim_review(engine, target, now=NOW_MS)
    assert (again.review_id, again.state.value) == (first.review_id, "running")
    with engine.connect() as conn:
        left = conn.execute(select(MemoryItemRow.review_id)).scalars().all()
    assert left == ["r_other"]
