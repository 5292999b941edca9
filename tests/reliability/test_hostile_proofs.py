"""Hostile trees: a pull request's commit crafted with git's plumbing to write outside the proof's
copy, or to make the proof crash. Each is refused (the finding goes unproven, with the reason) or
contained, in the sandbox dropping privileges, in its user namespace only, unsandboxed, and with
the app itself running as an unprivileged user.

Hard links need no case: a git tree cannot store one, and ``git archive`` writes none.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

import review.proof
from continual.tables import ProofRow
from review.contract import Proof
from review.proof import ProofOutcome, checkout_dir
from review.sandbox import UNSANDBOXED, Isolation, Limits, Sandbox, detect_sandbox
from review.sandbox.command import NOBODY
from review.sandbox.detect import SETPRIV
from review.sandbox.tree import Listing
from tests.support.proofs import (
    FIX,
    TEST,
    blob,
    crafted_commit,
    first_commit,
    make_repo,
    prove,
    raw_tree,
)
from tests.support.review import REVIEW_POSTS, git_repo, harness, lenses_toml, seat_toml
from tests.support.simulator import REPO

ROOT = Path(__file__).resolve().parents[2]
Entries = list[tuple[str, bytes, str]]


def sandboxes() -> dict[str, Sandbox]:
    found = detect_sandbox()
    assert found.isolation is Isolation.BWRAP, found.detail
    userns = Sandbox(Isolation.BWRAP, "user namespace only", found.binary, drop_privileges=False)
    return {"setpriv": found, "userns": userns, "unsandboxed": UNSANDBOXED}


@pytest.fixture(params=["setpriv", "userns", "unsandboxed"])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    chosen = sandboxes()[request.param]
    if request.param == "setpriv" and not chosen.drop_privileges:
        pytest.skip("the app is not root here: no privileges to drop")
    return chosen


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "checkout")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A host directory anyone may write: what every hostile tree aims at."""
    target = tmp_path / "outside"
    target.mkdir()
    target.chmod(0o777)
    return target


def _shapes(repo: Path, outside: Path) -> dict[str, tuple[Entries, str]]:
    """Every way out a tree can be shaped, with the words its refusal says."""
    pwned = blob(repo, b"pwned\n")
    into = raw_tree(repo, [("100644", b"pwned", pwned)])
    hook = raw_tree(repo, [("100755", b"post-checkout", blob(repo, b"#!/bin/sh\ntouch x\n"))])
    link = blob(repo, str(outside).encode())
    absolute = str(outside / "pwned").encode()
    return {
        "symlink then a directory through it": (
            [("120000", b"link", link), ("40000", b"link", into)],
            "symbolic link",
        ),
        "symlink then a file through it": (
            [("120000", b"link", link), ("100644", b"link/pwned", pwned)],
            "symbolic link",
        ),
        "symlink to /": ([("120000", b"root", blob(repo, b"/"))], "symbolic link"),
        "a directory named ..": ([("40000", b"..", into)], "'..'"),
        "a name climbing out": ([("100644", b"../../../../../.." + absolute, pwned)], "'..'"),
        "an absolute name": ([("100644", absolute, pwned)], "absolute name"),
        "a name with a slash": ([("100644", b"nothing/pwned", pwned)], "'/' of its own"),
        "an empty name": ([("100644", b"", pwned)], "empty filename"),
        "a .git directory": (
            [("40000", b".git", raw_tree(repo, [("40000", b"hooks", hook)]))],
            ".git entry",
        ),
        "a .GIT directory": ([("40000", b".GIT", into)], ".git entry"),
        "a control character": ([("100644", b"calc.py\n../x", pwned)], "control character"),
        "a submodule": ([("160000", b"sub", first_commit(repo))], "submodule"),
        # git reads any mode it does not know (a device's 020000) as a submodule's
        "a device's mode": ([("20000", b"dev", pwned)], "submodule"),
        "a name twice": ([("100644", b"calc.py", pwned)], "share the name"),
    }


SHAPES = [
    "symlink then a directory through it",
    "symlink then a file through it",
    "symlink to /",
    "a directory named ..",
    "a name climbing out",
    "an absolute name",
    "a name with a slash",
    "an empty name",
    "a .git directory",
    "a .GIT directory",
    "a control character",
    "a submodule",
    "a device's mode",
    "a name twice",
]


def nothing_escaped(outside: Path, repo: Path) -> bool:
    return list(outside.iterdir()) == [] and not (repo / "x").exists()


@pytest.mark.parametrize("shape", SHAPES)
def test_every_escape_shape_is_refused_before_a_copy_is_made(
    shape: str, repo: Path, outside: Path, sandbox: Sandbox
) -> None:
    entries, words = _shapes(repo, outside)[shape]
    head = crafted_commit(repo, entries)
    report = prove(Proof(test=TEST, fix=FIX), repo, head, sandbox=sandbox)
    assert report.outcome is ProofOutcome.UNSAFE_TREE, report
    assert words in report.reason and report.reason.startswith("the head's tree is not copied")
    assert report.before is None, "nothing ran"
    assert nothing_escaped(outside, repo)


def test_a_tree_of_too_many_entries_is_refused(repo: Path, sandbox: Sandbox) -> None:
    empty = blob(repo, b"")
    many = [("100644", f"f{n:05}".encode(), empty) for n in range(1001)]
    head = crafted_commit(repo, [("40000", b"many", raw_tree(repo, many))])
    report = prove(
        Proof(test=TEST, fix=FIX), repo, head, sandbox=sandbox, limits=Limits(files=1000)
    )
    assert report.outcome is ProofOutcome.UNSAFE_TREE
    assert "more than 1000 entries" in report.reason


def test_a_directory_named_like_the_old_patch_file_is_only_a_directory(
    repo: Path, sandbox: Sandbox
) -> None:
    """The fix lives outside the copy: a PR's `.hindsight-fix.patch/` no longer crashes the proof."""
    planted = raw_tree(repo, [("100644", b"x", blob(repo, b"x\n"))])
    head = crafted_commit(repo, [("40000", b".hindsight-fix.patch", planted)])
    report = prove(Proof(test=TEST, fix=FIX), repo, head, sandbox=sandbox)
    assert report.outcome is ProofOutcome.PROVEN, report


def test_a_directory_where_the_fix_expects_a_file_leaves_the_proof_unproven(
    repo: Path, sandbox: Sandbox
) -> None:
    planted = raw_tree(repo, [("100644", b"x", blob(repo, b"x\n"))])
    head = crafted_commit(repo, [("40000", b"calc.py", planted)], without=("calc.py",))
    report = prove(Proof(test=TEST, fix=FIX), repo, head, sandbox=sandbox)
    # git apply leaves the directory (it says so) and the test still fails
    assert report.outcome is ProofOutcome.STILL_FAILING, report
    assert report.after is not None and "No module named 'calc'" in report.after.output


@pytest.mark.parametrize(
    "shape", ["symlink then a directory through it", "symlink then a file through it"]
)
@pytest.mark.parametrize("mode", ["setpriv", "userns"])
def test_tar_in_the_sandbox_cannot_write_out_even_unchecked(
    shape: str, mode: str, repo: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With git's check taken away, a link out of the copy still leads nowhere: tar unpacks in
    the sandbox, where the host's directories do not exist."""
    chosen = sandboxes()[mode]
    if mode == "setpriv" and not chosen.drop_privileges:
        pytest.skip("the app is not root here: no privileges to drop")

    async def unchecked(*args: object, **kwargs: object) -> Listing:
        return Listing(files=0, directories=0)

    monkeypatch.setattr(review.proof, "check_tree", unchecked)
    entries, _ = _shapes(repo, outside)[shape]
    head = crafted_commit(repo, entries)
    test = f"ls -la link link/ 2>&1; echo pwned > link/again || echo HELD; {TEST}"
    report = prove(Proof(test=test, fix=FIX), repo, head, sandbox=chosen)
    assert report.outcome is not ProofOutcome.ERROR, report
    assert nothing_escaped(outside, repo)


@pytest.mark.parametrize("mode", ["setpriv", "userns"])
def test_a_copy_past_its_cap_fails_with_no_space(repo: Path, mode: str) -> None:
    chosen = sandboxes()[mode]
    big = blob(repo, os.urandom(3 << 20))
    head = crafted_commit(repo, [("100644", b"big.bin", big)])
    report = prove(
        Proof(test=TEST, fix=FIX), repo, head, sandbox=chosen, limits=Limits(copy_bytes=1 << 20)
    )
    assert report.outcome is ProofOutcome.COPY_FAILED, report
    assert "big.bin: Wrote only" in report.reason and "(at most 1 MiB" in report.reason


def test_a_missing_git_makes_the_proof_unproven_not_a_crash(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head, chosen = first_commit(repo), sandboxes()["userns"]
    monkeypatch.setenv("PATH", "/nonexistent")
    report = prove(Proof(test=TEST, fix=FIX), repo, head, sandbox=chosen)
    assert report.outcome is ProofOutcome.NO_CHECKOUT
    assert "No such file or directory: 'git'" in report.reason


def test_any_failure_in_a_proof_is_an_unproven_report(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head, chosen = first_commit(repo), sandboxes()["userns"]

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the sandbox broke")

    monkeypatch.setattr(review.proof, "run_sandboxed", broken)
    report = prove(Proof(test=TEST, fix=FIX), repo, head, sandbox=chosen)
    assert report.outcome is ProofOutcome.ERROR
    assert report.reason == "the proof could not run: RuntimeError: the sandbox broke"
    monkeypatch.setattr(tempfile, "tempdir", "/nonexistent/tmp")
    report = prove(Proof(test=TEST, fix=FIX), repo, head, sandbox=chosen)
    assert report.outcome is ProofOutcome.ERROR
    assert report.reason.startswith("no scratch directory")


DRIVER = """
import asyncio, json, sys
from pathlib import Path
from review.contract import Proof
from review.proof import run_proof
from review.sandbox import UNSANDBOXED, detect_sandbox
from tests.support.proofs import FIX, TEST

repo = Path(sys.argv[1])
found = detect_sandbox()
answers = {"uid": __import__("os").getuid(), "sandbox": found.detail}
for name, sha in json.loads(sys.argv[2]).items():
    for box in (found, UNSANDBOXED):
        report = asyncio.run(
            run_proof(Proof(test=TEST, fix=FIX), repo=repo, sha=sha, timeout_s=60, sandbox=box)
        )
        answers[f"{name} {box.isolation.value}"] = [report.outcome.value, report.reason]
print(json.dumps(answers))
"""


def test_as_an_unprivileged_app_user(tmp_path: Path) -> None:
    """The app itself as uid 65534 (no root, no setpriv, no cgroup): the same refusals."""
    if os.geteuid() != 0 or not Path(SETPRIV).is_file():
        pytest.skip("needs root and setpriv to start the app as another user")
    home = tmp_path / "app"
    home.mkdir()
    repo = make_repo(home / "checkout")
    outside = home / "outside"
    outside.mkdir()
    shapes = _shapes(repo, outside)
    heads = {
        "symlink": crafted_commit(repo, shapes["symlink then a file through it"][0]),
        "dotdot": crafted_commit(repo, shapes["a name climbing out"][0]),
        "patch-dir": crafted_commit(
            repo,
            [
                (
                    "40000",
                    b".hindsight-fix.patch",
                    raw_tree(repo, [("100644", b"x", blob(repo, b"x"))]),
                )
            ],
        ),
        "plain": first_commit(repo),
    }
    for path in (home, *home.rglob("*")):
        os.lchown(path, NOBODY, NOBODY)
    tmp_path.chmod(0o755)
    for parent in tmp_path.parents:
        if parent == Path("/tmp"):
            break
        parent.chmod(parent.stat().st_mode | 0o005)
    done = subprocess.run(
        [
            SETPRIV,
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--",
            sys.executable,
            "-c",
            DRIVER,
            str(repo),
            json.dumps(heads),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "HOME": str(home),
            "LANG": "C.UTF-8",
        },
        check=False,
    )
    if done.returncode != 0 and "Permission denied" in done.stderr and "python" in done.stderr:
        pytest.skip(f"the interpreter cannot run as {NOBODY} here: {done.stderr[-200:]}")
    if done.returncode != 0 and "ModuleNotFoundError" in done.stderr:
        # An interpreter whose packages sit under a home only root can read (no virtualenv in a
        # readable place) starts as another user on the system's library alone.
        pytest.skip(f"the app's packages are not readable by uid {NOBODY}: {done.stderr[-200:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    answers = json.loads(done.stdout.splitlines()[-1])
    assert answers["uid"] == NOBODY
    assert "user namespace only" in answers["sandbox"], answers["sandbox"]
    for box in ("bwrap", "unsandboxed"):
        assert answers[f"symlink {box}"][0] == "unsafe-tree", answers
        assert answers[f"dotdot {box}"][0] == "unsafe-tree", answers
        assert answers[f"patch-dir {box}"][0] == "proven", answers
        assert answers[f"plain {box}"][0] == "proven", answers
    assert list(outside.iterdir()) == []


HOSTILE_FINDING = {
    "path": "calc.py",
    "line": 2,
    "title": "Off by one in double",
    "body": "It adds 1.",
    "proof": {
        "test": "python3 -c 'import calc; assert calc.double(2) == 4'",
        "fix": "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def double(x):\n"
        "-    return x + x + 1\n+    return x + x\n",
    },
}


def test_a_review_of_a_hostile_tree_posts_its_findings_unproven(
    engine: Engine, tmp_path: Path
) -> None:
    """End to end: a PR whose head holds a link out and a `.hindsight-fix.patch/` directory is
    reviewed, posted, and its proof recorded as refused, with the reason."""
    toml = seat_toml(tmp_path, "alpha", findings=[HOSTILE_FINDING]) + lenses_toml("correctness")
    outside = tmp_path / "outside"
    outside.mkdir()
    with harness(engine, tmp_path, toml) as h:
        checkout = checkout_dir(h.store_dir, REPO)
        checkout.mkdir(parents=True)
        (checkout / "out").symlink_to(outside)
        head = git_repo(
            checkout,
            {
                "calc.py": "def double(x):\n    return x + x + 1\n",
                ".hindsight-fix.patch/x": "planted\n",
            },
        )
        patch = "@@ -0,0 +1,2 @@\n+def double(x):\n+    return x + x + 1"
        h.sim.open_pull(REPO, files={"calc.py": patch}, head_sha=head)
        h.run()
        (post,) = h.sim.requests("POST", REVIEW_POSTS)
    (comment,) = post.body["comments"]
    assert "Off by one in double" in comment["body"] and "**Proven:**" not in comment["body"]
    with engine.connect() as conn:
        (row,) = conn.execute(select(ProofRow)).all()
    assert row.outcome == "unsafe-tree"
    assert "symbolic link: 'out'" in row.reason
    assert list(outside.iterdir()) == []
    shutil.rmtree(checkout)


def test_the_operator_sets_the_copy_cap(engine: Engine, tmp_path: Path) -> None:
    """`[review] proof_copy_mib` reaches the sandbox: a head over it is not copied, the review
    still posts."""
    toml = (
        seat_toml(tmp_path, "alpha", findings=[HOSTILE_FINDING])
        + lenses_toml("correctness")
        + "[review]\nproof_copy_mib = 1\n"
    )
    with harness(engine, tmp_path, toml) as h:
        checkout = checkout_dir(h.store_dir, REPO)
        head = git_repo(
            checkout,
            {"calc.py": "def double(x):\n    return x + x + 1\n", "big.txt": "x" * (3 << 20)},
        )
        patch = "@@ -0,0 +1,2 @@\n+def double(x):\n+    return x + x + 1"
        h.sim.open_pull(REPO, files={"calc.py": patch}, head_sha=head)
        h.run()
        (post,) = h.sim.requests("POST", REVIEW_POSTS)
    assert len(post.body["comments"]) == 1
    with engine.connect() as conn:
        (row,) = conn.execute(select(ProofRow)).all()
    assert row.outcome == "copy-failed"
    assert "(at most 1 MiB)" in row.reason
