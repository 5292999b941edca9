"""The lessons a repository's review history taught, as the surfaces hand them: active ones only,
whatever the memory setting, named in the set and in the receipt's provenance (kind
``history``), deduplicated per session, within the budget, and never once deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, insert, select

from continual.history.active import active_lessons
from continual.history.lessons import delete_lesson
from continual.persons import Preference
from continual.surfaces import Handed, hand_brief, hand_context, hand_review_lessons, preview_recall
from continual.surfaces.history import HISTORY_KIND
from continual.tables import HistoryComment, HistoryLesson, Injection, MemoryItemRow
from tests.continual.test_recall_surfaces import target
from tests.support.recall import NOW, Tenant, accept, seed

REPO = "octo/app"
TEXT = "Use `pool.acquire` instead of `connect` when opening a database connection."


@pytest.fixture
def org(engine: Engine) -> Tenant:
    return seed(engine, 1, "octo", "app", "lib")


def comment(engine: Engine, tenant: Tenant, cid: int, pr: int, path: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(HistoryComment).values(
                id=cid,
                account_id=tenant.account_id,
                repository_id=tenant.repos[REPO],
                pr=pr,
                generation=1,
                author="mona",
                association="MEMBER",
                path=path,
                line=3,
                commit_sha="a" * 40,
                body="Please use `pool.acquire` here.",
                outcome="addressed",
                addressed_sha="b" * 40,
                created_ms=NOW - 10_000 + cid,
            )
        )


def lesson(
    engine: Engine,
    tenant: Tenant,
    key: str,
    *,
    text: str = TEXT,
    state: str = "active",
    cited: dict[int, tuple[int, str]],
    repo: str = REPO,
) -> int:
    """A kept history lesson resting on ``cited`` comments (id → pull request, path)."""
    for cid, (pr, path) in cited.items():
        comment(engine, tenant, cid, pr, path)
    with engine.begin() as conn:
        return int(
            conn.execute(
                insert(HistoryLesson)
                .values(
                    account_id=tenant.account_id,
                    repository_id=tenant.repos[repo],
                    key=key,
                    title="Pool connections",
                    text=text,
                    state=state,
                    comment_ids=json.dumps(sorted(cited)),
                    prs=json.dumps(sorted({pr for pr, _path in cited.values()})),
                    quotes="{}",
                    seat="finder",
                    publication_id=1,
                    created_ms=NOW - 5_000,
                )
                .returning(HistoryLesson.id)
            ).scalar_one()
        )


def review(engine: Engine, tmp_path: Path, tenant: Tenant, **options: Any) -> Handed:
    """Review ``r1`` of the repository, about `src/db.py`."""
    return hand_review_lessons(
        engine,
        tmp_path,
        account_id=tenant.account_id,
        repository_id=tenant.repos[REPO],
        session_id="r1",
        paths=["src/db.py"],
        now=NOW,
        **options,
    )


def two_prs(base: int, path: str = "src/db.py") -> dict[int, tuple[int, str]]:
    return {base: (10, path), base + 1: (11, path)}


def test_only_active_lessons_are_handed_with_memory_off_and_the_receipt_says_history(
    engine: Engine, tmp_path: Path, org: Tenant
) -> None:
    active = lesson(engine, org, "k1", cited=two_prs(1))
    lesson(
        engine,
        org,
        "k2",
        text="Candidates are never handed.",
        state="candidate",
        cited={3: (12, "src/db.py")},
    )
    lesson(
        engine, org, "k3", text="Another repository's lesson.", cited=two_prs(5), repo="octo/lib"
    )
    handed = review(engine, tmp_path, org)
    line = f"- {TEXT} (history lesson {active}; asked in #10, #11)"
    assert line in handed.text.splitlines()
    assert "Candidates" not in handed.text and "Another repository" not in handed.text
    assert (f"history-lesson:{active}", 1) in handed.entries
    (taught,) = [p for p in handed.provenance if p.kind == HISTORY_KIND]
    assert taught.id == f"history-lesson:{active}" and taught.seat == "finder"
    assert taught.sessions == ("#10", "#11")
    with engine.connect() as conn:
        (row,) = conn.execute(select(Injection.entries)).scalars()
        assert [f"history-lesson:{active}", 1] in json.loads(row)
        # Handed as a lesson, not as memory: no memory item carries it.
        assert conn.execute(select(MemoryItemRow.subject)).scalars().all() == []


def test_a_deleted_lesson_is_never_handed_again(
    engine: Engine, tmp_path: Path, org: Tenant
) -> None:
    active = lesson(engine, org, "k1", cited=two_prs(1))
    with engine.begin() as conn:
        delete_lesson(
            conn,
            account_id=org.account_id,
            repository_id=org.repos[REPO],
            lesson_id=active,
            actor="mona",
            now_ms=NOW,
        )
        assert active_lessons(conn, org.repos[REPO]) == []
    brief = hand_brief(
        engine,
        tmp_path,
        target(engine, org),
        session_id="s1",
        preference=Preference(),
        person_id=None,
        now=NOW,
    )
    assert "history lesson" not in brief.text and brief.entries == ()


def test_a_session_is_handed_each_history_lesson_once_and_a_push_only_those_about_its_files(
    engine: Engine, tmp_path: Path, org: Tenant
) -> None:
    db = lesson(engine, org, "k1", cited=two_prs(1))
    docs = lesson(
        engine,
        org,
        "k2",
        text="Write each page's title in sentence case.",
        cited=two_prs(3, "docs/guide.md"),
    )
    card = Preference(surfacing=3)
    common = {"preference": card, "person_id": None, "now": NOW}

    def push(session: str, path: str) -> str:
        return hand_context(
            engine, tmp_path, target(engine, org), session_id=session, paths=[path], **common
        ).text

    assert f"history lesson {docs}" in push("s1", "docs/other.md")  # a file beside one cited
    assert "history lesson" not in push("s1", "docs/other.md")  # held already
    elsewhere = push("s1", "README.md")
    assert "history lesson" not in elsewhere
    names_only = hand_context(
        engine,
        tmp_path,
        target(engine, org),
        session_id="s1",
        paths=[],
        identifiers=["connect"],
        **common,
    )
    assert "history lesson" not in names_only.text  # a push about no file names none
    assert f"history lesson {db}" in push("s1", "src/db.py")
    brief = hand_brief(engine, tmp_path, target(engine, org), session_id="s1", **common)
    assert "history lesson" not in brief.text  # the session holds both
    fresh = hand_brief(engine, tmp_path, target(engine, org), session_id="s2", **common)
    assert f"history lesson {db}" in fresh.text and f"history lesson {docs}" in fresh.text


def test_history_lessons_come_after_the_stores_and_within_the_budget(
    engine: Engine, tmp_path: Path, org: Tenant
) -> None:
    accept(engine, org, REPO, path="src/db.py")
    ids = [
        lesson(engine, org, f"k{n}", text=f"Rule {n}: {'x' * 300}", cited=two_prs(10 * n + 1))
        for n in range(1, 4)
    ]
    handed = review(engine, tmp_path, org, max_chars=900)
    assert len(handed.text) <= 900
    lines = handed.text.splitlines()
    first = next(n for n, line in enumerate(lines) if "history lesson" in line)
    assert any("(lesson " in line for line in lines[:first])  # the store's lesson first
    shown = [i for i in ids if f"history lesson {i};" in handed.text]
    assert shown and len(shown) < len(ids)
    assert f"{len(ids) - len(shown)} more omitted" in handed.text
    with engine.connect() as conn:
        preview, _snapshot = preview_recall(
            conn, target(engine, org), preference=Preference(), now=NOW
        )
    assert all(f"history lesson {i};" in preview.text for i in ids)
