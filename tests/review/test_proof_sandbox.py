"""A hostile proof tries every way out of the sandbox; each attempt fails and shows in its report.

Real bubblewrap, real processes: the test command is what a prompt-injected seat would write.
"""

from __future__ import annotations

import os
import shlex
import socket
import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest

from review.contract import Proof
from review.proof import ProofOutcome, ProofReport
from review.sandbox import UNSANDBOXED, Limits
from review.sandbox.cgroup import Bound, bounded_group
from tests.support.proofs import FIX, TEST, first_commit, git, make_repo, prove

SECRET = f"whsec-{uuid.uuid4().hex}"
MIB = 1 << 20


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "checkout")


def attack(repo: Path, script: str, *, limits: Limits | None = None) -> ProofReport:
    """Run ``script`` as a proof's test (before and after the fix); it always ends failing."""
    report = prove(
        Proof(test=f"{script}\nexit 1", fix=FIX), repo, first_commit(repo), limits=limits
    )
    assert report.outcome is ProofOutcome.STILL_FAILING, report
    assert report.before is not None and not report.before.timed_out
    return report


def output(report: ProofReport) -> str:
    assert report.before is not None
    return report.before.output


def test_a_benign_proof_still_proves(repo: Path) -> None:
    report = prove(Proof(test=f"id -u; {TEST}", fix=FIX), repo, first_commit(repo))
    assert report.outcome is ProofOutcome.PROVEN
    assert output(report).splitlines()[0] == "65534", "never root inside"


def test_the_app_environment_is_out_of_reach(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", f"postgresql://app:{SECRET}@db/app")
    monkeypatch.setenv("INNOCENT_LOOKING", SECRET)
    script = """
    for f in /proc/$PPID/environ /proc/1/environ /proc/[0-9]*/environ; do
        tr '\\0' '\\n' < "$f" 2>/dev/null
    done
    echo ENV-BEGIN; env; echo ENV-END
    """
    text = output(attack(repo, script))
    assert SECRET not in text
    env_lines = text.split("ENV-BEGIN\n", 1)[1].split("ENV-END", 1)[0].splitlines()
    names = {line.split("=", 1)[0] for line in env_lines}
    assert {"PATH", "HOME", "LANG"} <= names <= {"PATH", "HOME", "LANG", "PWD", "SHLVL", "OLDPWD"}
    assert "HOME=/tmp" in env_lines


def test_the_key_the_database_and_the_checkout_are_out_of_sight(repo: Path, tmp_path: Path) -> None:
    key = tmp_path / "app.private-key.pem"
    key.write_text(f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n-----END PRIVATE KEY-----\n")
    database = tmp_path / "hindsight.db"
    with sqlite3.connect(database) as conn:
        conn.execute("CREATE TABLE tokens (secret TEXT)")
        conn.execute("INSERT INTO tokens VALUES (?)", (SECRET,))
    script = f"""
    cat {shlex.quote(str(key))} || echo HELD key
    python3 -c "import sqlite3; print(sqlite3.connect('file:{database}?mode=ro', uri=True).execute('select * from tokens').fetchall())" || echo HELD database
    ls {shlex.quote(str(repo))} || echo HELD checkout
    ls /root /home /srv /var /opt /run 2>&1 | head -5
    """
    text = output(attack(repo, script))
    assert SECRET not in text
    for held in ("HELD key", "HELD database", "HELD checkout"):
        assert held in text


def test_nothing_is_written_outside_the_copy(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    host_tmp = Path("/tmp") / f"hindsight-escape-{uuid.uuid4().hex}"
    script = f"""
    echo pwned > {shlex.quote(str(outside))} || echo HELD outside
    echo pwned > /usr/pwned-{uuid.uuid4().hex} || echo HELD usr
    echo pwned > ../escape || echo HELD parent
    echo pwned > {host_tmp} && echo "private /tmp only"
    """
    text = output(attack(repo, script))
    assert not outside.exists()
    assert not host_tmp.exists()
    assert not (repo.parent / "escape").exists()
    assert "HELD outside" in text and "HELD usr" in text and "HELD parent" in text


def test_a_planted_hook_never_runs_and_the_checkout_is_untouched(
    repo: Path, tmp_path: Path
) -> None:
    ran = tmp_path / "hook-ran"
    hook = f"#!/bin/sh\ntouch {ran}\n"
    target = repo / ".git" / "hooks" / "post-checkout"
    script = f"""
    mkdir -p .git/hooks && printf {shlex.quote(hook)} > .git/hooks/post-checkout
    chmod +x .git/hooks/post-checkout && echo "own copy only"
    printf {shlex.quote(hook)} > {shlex.quote(str(target))} || echo HELD hook
    git rev-parse --git-dir 2>&1 || echo HELD git
    """
    before = git(repo, "rev-parse", "HEAD")
    text = output(attack(repo, script))
    assert "HELD hook" in text
    assert not target.exists()
    # The operator's next checkouts run hooks if any were planted: none runs.
    git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "next"), before)
    git(repo, "checkout", "-q", "--detach", first_commit(repo))
    assert not ran.exists()
    assert git(repo, "status", "--porcelain") == ""


def test_no_network_even_to_loopback(repo: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        script = f"""
        python3 -c "import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)" \
            && echo CONNECTED || echo HELD network
        """
        text = output(attack(repo, script))
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert "HELD network" in text and "CONNECTED" not in text


def _running(marker: str) -> list[str]:
    found = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True)
    return [line for line in found.stdout.splitlines() if marker in line]


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_setsid_child_is_ended_with_the_proof(repo: Path, loop: str) -> None:
    """The escaped children sleep far past the time limit and hold the test's output open; the
    proof ends when its test does, on asyncio's loop and on uvloop's."""
    seconds = 4000 + uuid.uuid4().int % 1000
    script = f"""
    setsid sh -c 'sleep {seconds}' &
    setsid sleep {seconds + 1} &
    (trap '' HUP; sleep {seconds + 2}) &
    echo "children left running"
    """
    report = prove(
        Proof(test=f"{script}\nexit 1", fix=FIX), repo, first_commit(repo), timeout_s=120, loop=loop
    )
    assert report.outcome is ProofOutcome.STILL_FAILING
    assert report.before is not None and not report.before.timed_out
    assert report.after is not None and not report.after.timed_out
    assert "children left running" in report.before.output
    for n in range(3):
        assert _running(f"sleep {seconds + n}") == []


def test_memory_processes_and_file_size_are_limited(repo: Path) -> None:
    limits = Limits(memory_bytes=256 * MIB, processes=32, file_bytes=MIB, tmp_bytes=4 * MIB)
    script = """
    python3 -c "b = bytearray(1024 * 2**20)" 2>&1 | tail -1
    i=0; while [ $i -lt 100 ]; do sleep 60 >/dev/null 2>&1 & i=$((i+1)); done 2>&1 | tail -1
    (head -c 8388608 /dev/zero > big) 2>&1; echo "big: $(wc -c < big)"
    for n in 1 2 3 4 5 6; do head -c 900000 /dev/zero > /tmp/fill$n || echo HELD tmp; done
    """
    text = output(attack(repo, script, limits=limits))
    assert "MemoryError" in text
    assert "fork" in text.lower() or "resource temporarily unavailable" in text.lower()
    assert f"big: {MIB}" in text
    assert "HELD tmp" in text


def test_cpu_time_is_limited(repo: Path) -> None:
    report = prove(
        Proof(test="while :; do :; done", fix=FIX),
        repo,
        first_commit(repo),
        timeout_s=120,
        limits=Limits(cpu_s=1),
    )
    assert report.outcome is ProofOutcome.STILL_FAILING
    assert report.before is not None and not report.before.timed_out
    assert report.before.returncode not in (0, None)


def total_bounds_work_here() -> bool:
    with bounded_group(Bound(memory_bytes=64 * MIB, processes=16)) as group:
        return group.kind != "none"


def test_dev_is_read_only_and_dev_shm_is_small(repo: Path) -> None:
    script = """
    head -c 419430400 /dev/zero > /dev/shm/fill 2>&1 || echo HELD shm
    echo "shm: $(wc -c < /dev/shm/fill)"
    head -c 419430400 /dev/zero > /dev/fill 2>&1 || echo HELD dev
    echo ok > /dev/null && echo "null writable"
    """
    text = output(attack(repo, script))
    assert "HELD shm" in text and f"shm: {16 * MIB}" in text
    assert "HELD dev" in text and "Read-only file system" in text
    assert "null writable" in text


def test_the_copy_is_a_capped_tmpfs(repo: Path) -> None:
    script = """
    head -c 16777216 /dev/zero > /proof/fill || echo HELD copy
    echo "copy: $(wc -c < /proof/fill)"; df -k /proof | tail -1
    """
    text = output(attack(repo, script, limits=Limits(copy_bytes=8 * MIB, file_bytes=64 * MIB)))
    assert "No space left on device" in text and "HELD copy" in text
    assert "copy: 16777216" not in text


@pytest.mark.skipif(not total_bounds_work_here(), reason="no writable cgroup on this machine")
def test_memory_is_bounded_for_the_whole_proof(repo: Path) -> None:
    """Six processes of 800 MiB each are under the 4 GiB per-process limit; together they pass
    the proof's total (1024 MiB here, 2048 MiB by default): not all of them keep their memory."""
    script = """
    for n in 1 2 3 4 5 6; do
        python3 -c "import time; b = b'x' * (800 << 20); time.sleep(1); print('kept')" &
    done 2>&1
    wait
    """
    # Passing before the fix, the script runs once.
    limits = Limits(total_memory_bytes=1024 * MIB)
    report = prove(Proof(test=script, fix=FIX), repo, first_commit(repo), limits=limits)
    assert report.outcome is ProofOutcome.PASSED_BEFORE_FIX
    assert report.before is not None
    kept = output(report).count("kept")
    assert kept <= 1, output(report)
    assert "memory" in report.before.bounds_hit


def fork_bomb() -> tuple[str, str]:
    """A fork bomb, then 200 sleepers; and the sleepers' command line, unique to this run (another
    test, or another run on the machine, may have sleepers of its own)."""
    sleeper = f"sleep {3000 + uuid.uuid4().int % 1000}"
    bomb = f"""
bomb() {{ bomb | bomb & }}
(bomb) 2>/dev/null
i=0; while [ $i -lt 200 ]; do {sleeper} >/dev/null 2>&1 & i=$((i+1)); done 2>&1 | tail -1
"""
    return bomb, sleeper


def test_a_fork_bomb_in_the_sandbox_is_bounded(repo: Path) -> None:
    """Under bubblewrap both the per-namespace process limit and the cgroup hold it; which one
    refuses a fork first depends on what else the machine runs as 65534."""
    bomb, sleeper = fork_bomb()
    report = attack(repo, bomb, limits=Limits(processes=64))
    assert "Cannot fork" in output(report)
    assert _running(sleeper) == []


@pytest.mark.skipif(
    os.geteuid() != 0 or not total_bounds_work_here(),
    reason="needs root (no process limit applies to root) and a writable cgroup",
)
def test_a_fork_bomb_run_as_root_is_bounded_by_the_cgroup(repo: Path) -> None:
    """Unsandboxed as root, `prlimit --nproc` binds nothing (root is exempt): only the run's
    cgroup stops the bomb, and it ends what is left."""
    bomb, sleeper = fork_bomb()
    report = prove(
        Proof(test=f"{bomb}\nexit 1", fix=FIX),
        repo,
        first_commit(repo),
        sandbox=UNSANDBOXED,
        limits=Limits(processes=64),
    )
    assert report.outcome is ProofOutcome.STILL_FAILING, report
    assert report.before is not None and "processes" in report.before.bounds_hit
    assert _running(sleeper) == []


@pytest.mark.skipif(not total_bounds_work_here(), reason="no writable cgroup on this machine")
def test_the_cgroup_ends_what_escaped_an_unsandboxed_run_and_goes(repo: Path) -> None:
    seconds = 5000 + uuid.uuid4().int % 1000
    script = f"setsid sleep {seconds} >/dev/null 2>&1 &\nexit 1"
    report = prove(Proof(test=script, fix=FIX), repo, first_commit(repo), sandbox=UNSANDBOXED)
    assert report.outcome is ProofOutcome.STILL_FAILING
    assert _running(f"sleep {seconds}") == []
    with bounded_group(Bound(memory_bytes=64 * MIB, processes=16)) as group:
        made = group.dirs
        assert made and all(d.is_dir() for d in made)
    assert not any(d.exists() for d in made)
