"""The proof sandbox: a finding's test must fail on the head commit and pass with its fix."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from continual.memory import repository_dir
from review.contract import Proof
from review.seats.command import child_environment, kill_process_group

GIT_TIMEOUT_S = 60.0
OUTPUT_TAIL_CHARS = 2000
GIT_LOCATION_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
)

CHECKOUT_DIR = "checkout"

log = logging.getLogger(__name__)


def checkout_dir(store_dir: Path, repository: str) -> Path:
    """The local git repository proofs check the head out of: ``<store>/<owner>/<name>/checkout``."""
    return repository_dir(store_dir, repository) / CHECKOUT_DIR


class ProofOutcome(StrEnum):
    """What running a proof showed."""

    PROVEN = "proven"
    PASSED_BEFORE_FIX = "passed-before-fix"
    STILL_FAILING = "still-failing"
    PATCH_DOES_NOT_APPLY = "patch-does-not-apply"
    TIMEOUT = "timeout"
    NO_FIX = "no-fix"
    NO_CHECKOUT = "no-checkout"


@dataclass(frozen=True)
class StepResult:
    """One command run in the sandbox."""

    returncode: int | None
    output: str
    timed_out: bool = False


@dataclass(frozen=True)
class ProofReport:
    """The outcome, a sentence saying why, and the test runs before and after the fix."""

    outcome: ProofOutcome
    reason: str
    before: StepResult | None = None
    after: StepResult | None = None

    @property
    def proven(self) -> bool:
        return self.outcome is ProofOutcome.PROVEN


def sandbox_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of sandboxed commands: no credentials, no git location overrides.

    Python bytecode caches are off: a cache written by the first run could outlive a fix that
    keeps the file's size and modification second.
    """
    env = child_environment(environ)
    for name in GIT_LOCATION_VARS:
        env.pop(name, None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


async def _run(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    stdin: bytes | None = None,
) -> StepResult:
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        async with asyncio.timeout(timeout_s):
            output, _ = await process.communicate(stdin)
    except TimeoutError:
        await kill_process_group(process)
        return StepResult(returncode=None, output="", timed_out=True)
    except BaseException:
        await kill_process_group(process)
        raise
    text = output.decode("utf-8", errors="replace")[-OUTPUT_TAIL_CHARS:]
    return StepResult(returncode=process.returncode, output=text)


async def run_proof(
    proof: Proof,
    *,
    repo: Path,
    sha: str,
    timeout_s: float,
    environ: Mapping[str, str] | None = None,
) -> ProofReport:
    """Check out ``sha`` of the local repository ``repo`` in a throwaway worktree and run the proof.

    ``timeout_s`` bounds each run of the test command. The worktree is always removed.
    """
    fix = proof.fix
    if fix is None or not fix.strip():
        return ProofReport(ProofOutcome.NO_FIX, "the proof has no fix patch to apply")
    env = sandbox_environment(os.environ if environ is None else environ)
    scratch = Path(tempfile.mkdtemp(prefix="hindsight-proof-"))
    worktree = scratch / "head"
    added = False
    try:
        checkout = await _run(
            ["git", "-C", str(repo), "worktree", "add", "--detach", str(worktree), sha],
            cwd=scratch,
            env=env,
            timeout_s=GIT_TIMEOUT_S,
        )
        if checkout.returncode != 0:
            return ProofReport(
                ProofOutcome.NO_CHECKOUT,
                f"could not check out {sha} of {repo}: {checkout.output.strip()[-300:]}",
            )
        added = True
        report = await _prove(proof.test, fix, worktree=worktree, env=env, timeout_s=timeout_s)
        log.info("proof run", extra={"sha": sha, "outcome": report.outcome.value})
        return report
    finally:
        if added:
            await _run(
                ["git", "-C", str(repo), "worktree", "remove", "--force", str(worktree)],
                cwd=scratch,
                env=env,
                timeout_s=GIT_TIMEOUT_S,
            )
        shutil.rmtree(scratch, ignore_errors=True)
        if added:
            await _run(
                ["git", "-C", str(repo), "worktree", "prune"],
                cwd=repo,
                env=env,
                timeout_s=GIT_TIMEOUT_S,
            )


async def _prove(
    test_command: str, fix: str, *, worktree: Path, env: Mapping[str, str], timeout_s: float
) -> ProofReport:
    test = ["/bin/sh", "-c", test_command]
    before = await _run(test, cwd=worktree, env=env, timeout_s=timeout_s)
    if before.timed_out:
        return ProofReport(
            ProofOutcome.TIMEOUT,
            f"the test did not finish within {timeout_s:g} s before the fix",
            before=before,
        )
    if before.returncode == 0:
        return ProofReport(
            ProofOutcome.PASSED_BEFORE_FIX,
            "the test passed before the fix, so it proves nothing",
            before=before,
        )
    # The fix applies to the head as checked out, not to whatever the first run left behind.
    for reset in (["git", "reset", "--hard", "-q"], ["git", "clean", "-fdxq"]):
        await _run(reset, cwd=worktree, env=env, timeout_s=GIT_TIMEOUT_S)
    if not fix.endswith("\n"):
        fix += "\n"
    applied = await _run(
        ["git", "apply", "--whitespace=nowarn", "-"],
        cwd=worktree,
        env=env,
        timeout_s=GIT_TIMEOUT_S,
        stdin=fix.encode(),
    )
    if applied.returncode != 0:
        return ProofReport(
            ProofOutcome.PATCH_DOES_NOT_APPLY,
            f"the fix does not apply to the head commit: {applied.output.strip()[-300:]}",
            before=before,
        )
    after = await _run(test, cwd=worktree, env=env, timeout_s=timeout_s)
    if after.timed_out:
        return ProofReport(
            ProofOutcome.TIMEOUT,
            f"the test did not finish within {timeout_s:g} s after the fix",
            before=before,
            after=after,
        )
    if after.returncode != 0:
        return ProofReport(
            ProofOutcome.STILL_FAILING,
            f"the test still fails with the fix applied (exit {after.returncode})",
            before=before,
            after=after,
        )
    return ProofReport(
        ProofOutcome.PROVEN,
        "the test failed on the head commit and passed with the fix",
        before=before,
        after=after,
    )
