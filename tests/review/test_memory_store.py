"""Session memory kept past its review: stored, recalled, hits counted, cleared, purged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, insert, select
from sqlalchemy.exc import IntegrityError

from continual.tables import (
    Agreement,
    Base,
    CallRecordRow,
    MemoryHitRow,
    MemoryItemRow,
    ReviewRecord,
)
from continual.values import EntryState
from ghapp.purge import purge_account
from review import persist, records
from review.memory import ItemKind, MemoryHit, MemoryItem
from tests.support.store import ACCOUNT_ID, REPO_ID, add_suggestion, seed_tenant

REVIEW_TABLES = (ReviewRecord, CallRecordRow, Agreement, MemoryItemRow, MemoryHitRow)
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
        persist.save_items(
            conn, account_id=ACCOUNT_ID, repository_id=REPO_ID, items=items, now_ms=now_ms
        )


def test_recall_hands_unexpired_items_newest_first_one_per_subject(engine: Engine) -> None:
    seed_tenant(engine)
    save(engine, [item("tool:a", text="old wording"), item("fact:x", days=-1)])
    save(engine, [item("tool:a", session="r_new", text="new wording")], now_ms=NOW_MS + 1)
    with engine.connect() as conn:
        recalled = persist.recall_items(conn, repository_id=REPO_ID, now_ms=NOW_MS)
        others = persist.recall_items(
            conn, repository_id=REPO_ID, now_ms=NOW_MS, exclude_review="r_new"
        )
    assert [(m.subject, m.text, m.session) for m in recalled] == [
        ("tool:a", "new wording", "r_new")
    ]
    assert [m.text for m in others] == ["old wording"]
    assert recalled[0].files == ("src/a.py",) and recalled[0].state is EntryState.ACTIVE


def test_hits_are_counted_once_per_review_and_subject(engine: Engine) -> None:
    seed_tenant(engine)
    hit = MemoryHit("tool:a", ItemKind.TOOL_PATH, "r_old", "alpha", "r_new/beta/tests/0", "beta")
    with engine.begin() as conn:
        saved = persist.save_hits(
            conn,
            account_id=ACCOUNT_ID,
            repository_id=REPO_ID,
            review_id="r_new",
            hits=[hit],
            now_ms=NOW_MS,
        )
    assert saved == 1
    with pytest.raises(IntegrityError), engine.begin() as conn:
        persist.save_hits(
            conn,
            account_id=ACCOUNT_ID,
            repository_id=REPO_ID,
            review_id="r_new",
            hits=[hit],
            now_ms=NOW_MS,
        )


def test_session_file_is_written_read_and_cleared(engine: Engine, tmp_path: Path) -> None:
    seed_tenant(engine)
    save(engine, [item("tool:a", session="r_1")])
    hit = MemoryHit("tool:b", ItemKind.TOOL_PATH, "r_0", "alpha", "r_1/alpha/tests/0", "alpha")
    path = persist.write_session_file(
        tmp_path,
        "octo-org/app",
        "r_1",
        learned=[item("tool:a", session="r_1")],
        recalled=[item("tool:b", session="r_0")],
        hits=[hit],
        now_ms=NOW_MS,
    )
    assert path == tmp_path / "octo-org" / "app" / "sessions" / "r_1" / "session-memory.jsonl"
    lines = persist.read_session_file(path)
    assert [line["type"] for line in lines] == ["session", "learned", "recalled", "hit"]
    assert persist.find_session_file(tmp_path, "r_1") == path

    cleared = persist.clear_session(engine, tmp_path, "r_1")
    assert (cleared.items, cleared.files) == (1, 1)
    assert persist.find_session_file(tmp_path, "r_1") is None
    with pytest.raises(ValueError, match="not a review id"):
        persist.find_session_file(tmp_path, "../etc")


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
            insert(CallRecordRow).values(
                call_id="c", seat="a", lab="l", lens="x", shard=0, status="ok", **common
            )
        )
        conn.execute(
            insert(Agreement).values(suggestion_id=sid, seat="b", lab="l", lens="x", **common)
        )
    with engine.begin() as conn:
        persist.save_hits(
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
        assert conn.execute(select(func.count()).select_from(ReviewRecord)).scalar_one() == 1
