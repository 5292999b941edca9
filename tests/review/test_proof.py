"""Proofs on small real git repositories, in the real sandbox: fail first, then pass with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from review.config import ProofPolicy
from review.contract import Proof
from review.proof import ProofOutcome
from review.sandbox import Isolation, detect_sandbox, for_policy
from tests.support.proofs import FIX, FIXED, TEST, first_commit, git, make_repo, prove

UNRELATED_FIX = """\
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,3 @@
 def add(a, b):
+    # subtract, as designed
     return a - b
"""
STALE_FIX = """\
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(x, y):
-    return x * y
+    return x + y
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def untouched(repo: Path) -> bool:
    """The operator's checkout as it was: one worktree, nothing changed, the fixed head."""
    worktrees = [
        line
        for line in git(repo, "worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ]
    clean = git(repo, "status", "--porcelain", "--ignored") == ""
    return worktrees == [f"worktree {repo}"] and clean and (repo / "calc.py").read_text() == FIXED


def test_fail_then_pass_with_the_fix_is_proven(repo: Path) -> None:
    report = prove(Proof(test=TEST, fix=FIX), repo, first_commit(repo))
    assert report.outcome is ProofOutcome.PROVEN, report
    assert report.proven
    assert report.sandbox == "bwrap"
    assert report.before is not None and report.before.returncode == 1
    assert report.after is not None and report.after.returncode == 0
    assert untouched(repo)


def test_passing_before_the_fix_proves_nothing(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    report = prove(Proof(test=TEST, fix=FIX), repo, head)
    assert report.outcome is ProofOutcome.PASSED_BEFORE_FIX
    assert not report.proven
    assert "passed before the fix" in report.reason
    assert untouched(repo)


def test_fix_that_does_not_apply_is_not_proven(repo: Path) -> None:
    report = prove(Proof(test=TEST, fix=STALE_FIX), repo, first_commit(repo))
    assert report.outcome is ProofOutcome.PATCH_DOES_NOT_APPLY
    assert "does not apply" in report.reason
    assert not report.proven
    assert untouched(repo)


def test_fix_that_leaves_the_test_failing_is_not_proven(repo: Path) -> None:
    report = prove(Proof(test=TEST, fix=UNRELATED_FIX), repo, first_commit(repo))
    assert report.outcome is ProofOutcome.STILL_FAILING
    assert not report.proven


def test_a_test_over_the_time_limit_is_not_proven(repo: Path) -> None:
    report = prove(Proof(test="sleep 30", fix=FIX), repo, first_commit(repo), timeout_s=0.5)
    assert report.outcome is ProofOutcome.TIMEOUT
    assert report.before is not None and report.before.timed_out
    assert untouched(repo)


def test_no_fix_and_unknown_commit_are_not_proven(repo: Path) -> None:
    assert prove(Proof(test=TEST), repo, first_commit(repo)).outcome is ProofOutcome.NO_FIX
    report = prove(Proof(test=TEST, fix=FIX), repo, "0" * 40)
    assert report.outcome is ProofOutcome.NO_CHECKOUT
    for not_a_commit in ("--output=/tmp/x", "HEAD", first_commit(repo)[:12]):
        refused = prove(Proof(test=TEST, fix=FIX), repo, not_a_commit)
        assert refused.outcome is ProofOutcome.NO_CHECKOUT
        assert "is not a commit id" in refused.reason
    assert untouched(repo)


def test_the_first_run_leaves_nothing_for_the_second(repo: Path) -> None:
    """The fixed run gets a fresh copy: a file the first run wrote cannot make the test pass."""
    test = "test -e planted && exit 0; touch planted; python3 check.py"
    report = prove(Proof(test=test, fix=UNRELATED_FIX), repo, first_commit(repo))
    assert report.outcome is ProofOutcome.STILL_FAILING


def test_without_a_sandbox_the_proof_is_skipped_and_says_why(repo: Path) -> None:
    missing = detect_sandbox("/nonexistent/bin/bwrap")
    assert missing.isolation is Isolation.NONE
    report = prove(Proof(test=TEST, fix=FIX), repo, first_commit(repo), sandbox=missing)
    assert report.outcome is ProofOutcome.SKIPPED
    assert report.reason.startswith("proof skipped: no sandbox")
    assert "/nonexistent/bin/bwrap" in report.reason
    assert report.before is None and report.sandbox == "none"
    assert for_policy(missing, ProofPolicy.SANDBOXED) == missing


def test_the_unsandboxed_opt_in_runs_the_proof_on_a_copy(repo: Path) -> None:
    chosen = for_policy(detect_sandbox("/nonexistent/bin/bwrap"), ProofPolicy.UNSANDBOXED)
    assert chosen.isolation is Isolation.UNSANDBOXED
    report = prove(Proof(test=f"env; {TEST}", fix=FIX), repo, first_commit(repo), sandbox=chosen)
    assert report.outcome is ProofOutcome.PROVEN
    assert report.sandbox == "unsandboxed"
    assert report.before is not None
    names = {line.split("=", 1)[0] for line in report.before.output.splitlines() if "=" in line}
    assert {"PATH", "HOME", "LANG"} <= names <= {"PATH", "HOME", "LANG", "PWD", "SHLVL", "OLDPWD"}
    assert untouched(repo)


def test_a_working_sandbox_is_used_whatever_the_policy(repo: Path) -> None:
    found = detect_sandbox()
    assert found.isolation is Isolation.BWRAP, found.detail
    assert for_policy(found, ProofPolicy.UNSANDBOXED) == found
