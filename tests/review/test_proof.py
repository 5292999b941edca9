"""The proof sandbox on small real git repositories: fail first, then pass with the fix."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from review.contract import Proof
from review.proof import ProofOutcome, ProofReport, run_proof

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
CHECK = "from calc import add\n\nraise SystemExit(0 if add(2, 3) == 5 else 1)\n"
FIX = """\
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""
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
TEST = f"{shlex.quote(sys.executable)} check.py"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose first commit has the bug and whose second commit fixed it."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "calc.py").write_text(BUGGY)
    (path / "check.py").write_text(CHECK)
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "add calc")
    (path / "calc.py").write_text(FIXED)
    git(path, "commit", "-q", "-am", "fix calc")
    return path


def first_commit(repo: Path) -> str:
    return git(repo, "rev-list", "--max-parents=0", "HEAD")


def prove(proof: Proof, repo: Path, sha: str, timeout_s: float = 60, **env: str) -> ProofReport:
    environ = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/"), **env}
    return asyncio.run(run_proof(proof, repo=repo, sha=sha, timeout_s=timeout_s, environ=environ))


def worktrees(repo: Path) -> list[str]:
    return [
        line
        for line in git(repo, "worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ]


def test_fail_then_pass_with_the_fix_is_proven(repo: Path) -> None:
    report = prove(Proof(test=TEST, fix=FIX), repo, first_commit(repo))
    assert report.outcome is ProofOutcome.PROVEN
    assert report.proven
    assert report.before is not None and report.before.returncode == 1
    assert report.after is not None and report.after.returncode == 0
    assert worktrees(repo) == [f"worktree {repo}"]
    assert (repo / "calc.py").read_text() == FIXED
    assert git(repo, "status", "--porcelain") == ""


def test_passing_before_the_fix_proves_nothing(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    report = prove(Proof(test=TEST, fix=FIX), repo, head)
    assert report.outcome is ProofOutcome.PASSED_BEFORE_FIX
    assert not report.proven
    assert "passed before the fix" in report.reason
    assert worktrees(repo) == [f"worktree {repo}"]


def test_fix_that_does_not_apply_is_not_proven(repo: Path) -> None:
    report = prove(Proof(test=TEST, fix=STALE_FIX), repo, first_commit(repo))
    assert report.outcome is ProofOutcome.PATCH_DOES_NOT_APPLY
    assert not report.proven
    assert worktrees(repo) == [f"worktree {repo}"]


def test_fix_that_leaves_the_test_failing_is_not_proven(repo: Path) -> None:
    report = prove(Proof(test=TEST, fix=UNRELATED_FIX), repo, first_commit(repo))
    assert report.outcome is ProofOutcome.STILL_FAILING
    assert not report.proven


def test_a_test_over_the_time_limit_is_not_proven(repo: Path) -> None:
    report = prove(Proof(test="sleep 30", fix=FIX), repo, first_commit(repo), timeout_s=0.5)
    assert report.outcome is ProofOutcome.TIMEOUT
    assert worktrees(repo) == [f"worktree {repo}"]


def test_no_fix_and_unknown_commit_are_not_proven(repo: Path) -> None:
    assert prove(Proof(test=TEST), repo, first_commit(repo)).outcome is ProofOutcome.NO_FIX
    report = prove(Proof(test=TEST, fix=FIX), repo, "0" * 40)
    assert report.outcome is ProofOutcome.NO_CHECKOUT
    assert worktrees(repo) == [f"worktree {repo}"]


def test_the_sandbox_has_no_credentials(repo: Path, tmp_path: Path) -> None:
    seen = tmp_path / "env.txt"
    report = prove(
        Proof(test=f"env > {shlex.quote(str(seen))}; exit 1", fix=FIX),
        repo,
        first_commit(repo),
        GITHUB_TOKEN="ghp_x",
        HINDSIGHT_WEBHOOK_SECRET="s",
        OPENAI_API_KEY="k",
        DEPLOY_SECRET="d",
        GIT_DIR="/elsewhere",
        VISIBLE_SETTING="yes",
    )
    assert report.outcome is ProofOutcome.STILL_FAILING
    names = {line.split("=", 1)[0] for line in seen.read_text().splitlines() if "=" in line}
    assert "VISIBLE_SETTING" in names
    for secret in ("GITHUB_TOKEN", "HINDSIGHT_WEBHOOK_SECRET", "OPENAI_API_KEY", "DEPLOY_SECRET"):
        assert secret not in names
    assert "GIT_DIR" not in names
