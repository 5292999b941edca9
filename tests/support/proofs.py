"""Proof helpers: a small real git repository with a bug, and running proofs on it in the sandbox."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import uvloop

from review.contract import Proof
from review.proof import ProofReport, run_proof
from review.sandbox import Isolation, Limits, Sandbox, detect_sandbox

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
# The sandbox sees the system's programs only: its python3, not the one running the tests.
TEST = "python3 check.py"
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


def make_repo(path: Path) -> Path:
    """A repository whose first commit has the bug and whose second commit fixed it."""
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


def working_sandbox() -> Sandbox:
    """The machine's sandbox; these tests need bubblewrap working (`.ci/run` installs it)."""
    sandbox = detect_sandbox()
    assert sandbox.isolation is Isolation.BWRAP, f"no working bubblewrap: {sandbox.detail}"
    return sandbox


def prove(
    proof: Proof,
    repo: Path,
    sha: str,
    *,
    sandbox: Sandbox | None = None,
    timeout_s: float = 60,
    limits: Limits | None = None,
    loop: str = "asyncio",
) -> ProofReport:
    """Run the proof to its end on a fresh event loop: asyncio's, or uvloop's (what `serve` runs)."""
    running = run_proof(
        proof,
        repo=repo,
        sha=sha,
        timeout_s=timeout_s,
        sandbox=sandbox or working_sandbox(),
        limits=limits,
    )
    if loop == "uvloop":
        return uvloop.run(running)
    return asyncio.run(running)


def blob(repo: Path, data: bytes) -> str:
    """A blob written straight into ``repo``'s objects."""
    done = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
        input=data,
        check=True,
        capture_output=True,
    )
    return done.stdout.decode().strip()


def raw_tree(repo: Path, entries: list[tuple[str, bytes, str]]) -> str:
    """A tree object of ``(mode, name, object id)`` entries exactly as given, in that order —
    names git itself would never write (``..``, ``/abs``, ``a/b``, duplicates) included."""
    data = b"".join(
        mode.encode() + b" " + name + b"\0" + bytes.fromhex(sha) for mode, name, sha in entries
    )
    done = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-w", "--literally", "-t", "tree", "--stdin"],
        input=data,
        check=True,
        capture_output=True,
    )
    return done.stdout.decode().strip()


def crafted_commit(
    repo: Path, extra: list[tuple[str, bytes, str]], *, without: tuple[str, ...] = ()
) -> str:
    """A commit of the first commit's files (``calc.py`` with the bug, ``check.py``) but those
    named in ``without``, plus the ``extra`` entries at the top of its tree, made with git's
    plumbing (no checks)."""
    base = first_commit(repo)
    entries: list[tuple[str, bytes, str]] = []
    for line in git(repo, "ls-tree", base).splitlines():
        meta, name = line.split("\t", 1)
        mode, _, sha = meta.split()
        if name in without:
            continue
        entries.append((mode.lstrip("0"), name.encode(), sha))
    tree = raw_tree(repo, entries + extra)
    return git(repo, "commit-tree", tree, "-p", base, "-m", "crafted")
