"""Proofs end to end: shown on the posted suggestion, stored as evidence, never a decision; carried
on the receipt of the maintainer's decision; skipped and recorded where no sandbox works."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from continual.recall import load_lessons
from continual.tables import ProofRow, Receipt, Repository, Suggestion
from ghapp.cli.ledger import ledgers
from review.proof import checkout_dir
from review.sandbox import detect_sandbox
from tests.support.review import REVIEW_POSTS, Harness, git_repo, harness, lenses_toml, seat_toml
from tests.support.simulator import REPO

PROVEN_FIX = """\
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def double(x):
-    return x + x + 1
+    return x + x
"""
TEST = "python3 -c 'import calc; assert calc.double(2) == 4'"
ALWAYS_PASSES = "python3 -c 'import calc'"
FINDINGS = [
    {
        "path": "calc.py",
        "line": 2,
        "title": "Off by one in double",
        "body": "It adds 1.",
        "lesson": "Return `x + x` from `double` in calc.py.",
        "proof": {"test": TEST, "fix": PROVEN_FIX},
    },
    {
        "path": "calc.py",
        "line": 1,
        "title": "Double is untested",
        "body": "No test.",
        "proof": {"test": ALWAYS_PASSES, "fix": PROVEN_FIX},
    },
]
MISSING_BWRAP = "/nonexistent/bin/bwrap"


CALC = "def double(x):\n    return x + x + 1\n"


def review_with_proofs(h: Harness) -> tuple[Path, dict[int, str]]:
    """Open a pull request whose head is in the local checkout; the posted bodies by line."""
    checkout = checkout_dir(h.store_dir, REPO)
    head = git_repo(checkout, {"calc.py": CALC})
    patch = "@@ -0,0 +1,2 @@\n+def double(x):\n+    return x + x + 1"
    h.sim.open_pull(REPO, files={"calc.py": patch}, head_sha=head, contents={"calc.py": CALC})
    h.run()
    (post,) = h.sim.requests("POST", REVIEW_POSTS)
    return checkout, {c["line"]: c["body"] for c in post.body["comments"]}


def rows(engine: Engine, table: Any) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(table)).all())


def test_a_proven_finding_is_shown_and_kept_as_evidence_never_as_a_decision(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha", findings=FINDINGS) + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:
        checkout, bodies = review_with_proofs(h)
        by_title = {s.title: s for s in rows(engine, Suggestion)}
        assert rows(engine, Receipt) == [], "a proof accepts nothing"
        proofs = {p.suggestion_id: p for p in rows(engine, ProofRow)}
        proven = proofs[by_title["Off by one in double"].id]
        weak = proofs[by_title["Double is untested"].id]
        assert (proven.outcome, proven.test, proven.sandbox) == ("proven", TEST, "bwrap")
        assert weak.outcome == "passed-before-fix"
        assert proven.head_sha == by_title["Off by one in double"].head_sha

        comment = next(c for c in h.sim.review_comments(REPO, 1) if c["line"] == 2)
        h.sim.reply(REPO, 1, comment["id"], "accept")
        h.run()

    assert by_title["Off by one in double"].proven is True
    assert by_title["Double is untested"].proven is False
    assert "**Proven:**" in bodies[2] and "**Proven:**" not in bodies[1]
    (receipt,) = rows(engine, Receipt)
    assert (receipt.source, receipt.actor) == ("reply", "maintainer")
    with engine.connect() as conn:
        account_id = conn.execute(select(Repository.account_id)).scalar_one()
        (lesson,) = load_lessons(conn, account_id, now=h.clock())
    (source,) = lesson.sources
    assert source.proof is not None
    assert (source.proof.test, source.proof.outcome) == (TEST, "proven")
    assert source.proof.head_sha == proven.head_sha
    (ledger,) = ledgers(engine, now=h.clock())
    assert ledger.proofs == {"passed-before-fix": 1, "proven": 1}
    worktrees = subprocess.run(
        ["git", "worktree", "list"], cwd=checkout, capture_output=True, text=True, check=True
    )
    assert len(worktrees.stdout.splitlines()) == 1


def test_without_a_sandbox_proofs_are_skipped_and_the_ledger_says_why(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha", findings=FINDINGS) + lenses_toml("correctness")
    with harness(engine, tmp_path, toml, sandbox=detect_sandbox(MISSING_BWRAP)) as h:
        _, bodies = review_with_proofs(h)
        now = h.clock()
    assert all("**Proven:**" not in body for body in bodies.values())
    proofs = rows(engine, ProofRow)
    assert {p.outcome for p in proofs} == {"skipped-no-sandbox"}
    assert all(p.reason.startswith("proof skipped: no sandbox") for p in proofs)
    assert all(MISSING_BWRAP in p.reason for p in proofs)
    assert {p.sandbox for p in proofs} == {"none"}
    (ledger,) = ledgers(engine, now=now)
    assert ledger.proofs == {"skipped-no-sandbox": 2}


def test_unsandboxed_opt_in_runs_proofs_where_no_sandbox_works(
    engine: Engine, tmp_path: Path
) -> None:
    toml = (
        seat_toml(tmp_path, "alpha", findings=FINDINGS)
        + lenses_toml("correctness")
        + '[review]\nproofs = "unsandboxed"\n'
    )
    with harness(engine, tmp_path, toml, sandbox=detect_sandbox(MISSING_BWRAP)) as h:
        _, bodies = review_with_proofs(h)
    assert "**Proven:**" in bodies[2]
    outcomes = {(p.outcome, p.sandbox) for p in rows(engine, ProofRow)}
    assert outcomes == {("proven", "unsandboxed"), ("passed-before-fix", "unsandboxed")}
    assert rows(engine, Receipt) == []


def test_the_proven_fix_is_shown_with_the_finding_and_its_fix_pr_applies_exactly_it(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha", findings=FINDINGS) + lenses_toml("correctness")
    with harness(engine, tmp_path, toml + "[fixes]\nenabled = true\n") as h:
        (installation,) = h.sim.world.installations
        h.sim.grant(installation, "contents", "write")
        _, bodies = review_with_proofs(h)
        proofs = {p.outcome: p for p in rows(engine, ProofRow)}
        comment = next(c for c in h.sim.review_comments(REPO, 1) if c["line"] == 2)
        h.sim.reply(REPO, 1, comment["id"], "/fix")
        h.run()
        with h.sim.world.lock:
            (fix,) = [p for p in h.sim.world.pulls.values() if p.number != 1]
            number = fix.number
        changed = h.sim.pull_files(REPO, number)
        after = h.sim.files_at(REPO, h.sim.pull(REPO, number)["head"]["ref"])["calc.py"]
    assert f"```diff\n{PROVEN_FIX.rstrip()}\n```" in bodies[2]
    assert "```diff" not in bodies[1], "an unproven fix is not shown"
    assert proofs["proven"].fix_patch == PROVEN_FIX
    assert proofs["passed-before-fix"].fix_patch is None
    assert [f.filename for f in changed] == ["calc.py"]
    assert after == CALC.replace("x + x + 1", "x + x")
