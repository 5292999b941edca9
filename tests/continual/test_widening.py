"""Widening: a lesson reaches its account only by a merged fix PR elsewhere; a proof never widens."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from continual.proofs import NewProof, ProofEvidence, record_proofs
from continual.recall.lessons import WIDENING_SOURCES, load_lessons, widened
from continual.recall.snapshot import build_snapshot
from continual.summary import is_summary_id
from continual.surfaces import hand_review_lessons
from continual.values import Scope, Source
from tests.support.recall import NOW, Tenant, accept, decide, entry_of, seed, suggest


@pytest.fixture
def org(engine: Engine) -> Tenant:
    return seed(engine, 1, "octo", "app", "lib", "cli")


def scopes(engine: Engine, account_id: int) -> dict[str, Scope]:
    with engine.connect() as conn:
        snapshot = build_snapshot(conn, account_id, now=NOW)
    return {lesson.repository: lesson.scope for lesson in snapshot.lessons}


def handed_in(engine: Engine, tenant: Tenant, repo: str, tmp_path: Path) -> list[str]:
    handed = hand_review_lessons(
        engine,
        tmp_path,
        account_id=tenant.account_id,
        repository_id=tenant.repos[repo],
        session_id=f"review-{repo}",
        paths=["src/app.py"],
        now=NOW,
    )
    return [entry_id for entry_id, _ in handed.entries if not is_summary_id(entry_id)]


def test_pure_rule() -> None:
    entries = [("a", 1, "lesson/x-0123456789"), ("b", 2, "lesson/x-0123456789")]
    assert widened(entries, []) == set()
    assert widened(entries, [(1, "lesson/x-0123456789")]) == {"b"}
    assert widened(entries, [(1, "lesson/other-slug-0123456789")]) == {"b"}, "same hash"
    assert widened(entries, [(3, "lesson/x-9999999999")]) == set()


@pytest.mark.parametrize("source", [Source.REPLY, Source.APPLIED, Source.PERSON])
def test_other_sources_never_widen(
    engine: Engine, org: Tenant, tmp_path: Path, source: Source
) -> None:
    accept(engine, org, "octo/app")
    accept(engine, org, "octo/lib", source=source)
    assert set(scopes(engine, org.account_id).values()) == {Scope.REPOSITORY}
    assert handed_in(engine, org, "octo/cli", tmp_path) == []


def test_a_merged_fix_pr_in_a_second_repository_widens(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    accept(engine, org, "octo/app")
    accept(engine, org, "octo/lib", source=Source.FIX_PR)
    assert scopes(engine, org.account_id) == {
        "octo/app": Scope.ACCOUNT,
        "octo/lib": Scope.REPOSITORY,
    }
    app_entry = entry_of(engine, org.repos["octo/app"], "parse_config")
    lib_entry = entry_of(engine, org.repos["octo/lib"], "parse_config")
    assert handed_in(engine, org, "octo/cli", tmp_path) == [app_entry.id]
    assert handed_in(engine, org, "octo/lib", tmp_path) == [lib_entry.id], "its own entry wins"


def prove(engine: Engine, tenant: Tenant, repo: str) -> str:
    """A suggestion whose proof passed, with no decision on it; its suggestion id."""
    sid = suggest(engine, tenant, repo)
    evidence = ProofEvidence("pytest -q", "proven", "failed, then passed", "a" * 40, "bwrap", NOW)
    with engine.begin() as conn:
        record_proofs(conn, [NewProof(sid, tenant.account_id, tenant.repos[repo], None, evidence)])
    return sid


@pytest.mark.parametrize("where", ["octo/app", "octo/lib"])
def test_a_proof_never_widens(engine: Engine, org: Tenant, tmp_path: Path, where: str) -> None:
    """Proven in the same or a second repository: the scope stays, and the proof rides along
    on the receipt of the maintainer's decision on that suggestion."""
    accept(engine, org, "octo/app")
    proven = prove(engine, org, where)
    assert set(scopes(engine, org.account_id).values()) == {Scope.REPOSITORY}
    assert handed_in(engine, org, "octo/cli", tmp_path) == []
    decide(engine, proven)
    with engine.connect() as conn:  # receipts are read with the lessons (a snapshot counts them)
        lessons = load_lessons(conn, org.account_id, now=NOW)
    carried = [r for lesson in lessons for r in lesson.sources if r.suggestion == proven]
    assert [(r.actor, r.proof is not None and r.proof.outcome) for r in carried] == [
        ("maintainer", "proven")
    ]
    assert set(scopes(engine, org.account_id).values()) == {Scope.REPOSITORY}


def test_nothing_widens_across_accounts(engine: Engine, org: Tenant, tmp_path: Path) -> None:
    other = seed(engine, 2, "other", "app")
    accept(engine, org, "octo/app")
    accept(engine, other, "other/app", source=Source.FIX_PR)
    assert scopes(engine, org.account_id) == {"octo/app": Scope.REPOSITORY}
    assert handed_in(engine, org, "octo/cli", tmp_path) == []


def test_the_docs_say_what_the_code_widens_on() -> None:
    """Only a merged fix PR widens; the documents that say what widens say the same."""
    assert WIDENING_SOURCES == {Source.FIX_PR.value} == {"fix_pr"}
    docs = Path(__file__).resolve().parents[2] / "docs"
    lessons = " ".join((docs / "lessons.md").read_text().split())
    assert "It widens to the whole account in one way only: a merged fix PR" in lessons
    for page in ("writeback.md", "api.md"):
        text = " ".join((docs / page).read_text().split())
        assert "merged fix PR" in text and "widen" in text, page
