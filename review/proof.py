"""Proofs: a finding's test must fail on a copy of the head commit and pass with its fix applied.

Each run gets a fresh copy of the head (``git archive``, no ``.git``, so no hook can run and the
operator's checkout is never touched) inside the sandbox (``review.sandbox``). A proof is
evidence shown on the suggestion, never a decision (docs/reviews.md).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from continual.memory import repository_dir
from review.contract import Proof
from review.sandbox import Limits, Mechanism, Ran, Sandbox, run_sandboxed
from review.sandbox.command import NOBODY, environment

GIT_TIMEOUT_S = 60.0
CHECKOUT_DIR = "checkout"
PATCH_NAME = ".hindsight-fix.patch"
COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")

log = logging.getLogger(__name__)


def checkout_dir(store_dir: Path, repository: str) -> Path:
    """The local git repository proofs copy the head out of: ``<store>/<owner>/<name>/checkout``."""
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
    SKIPPED = "skipped-no-sandbox"  # no sandbox works here and proofs may not run without one


@dataclass(frozen=True)
class ProofReport:
    """The outcome, a sentence saying why, the test runs before and after the fix, and what they
    ran in (``bwrap``, ``unsandboxed`` or ``none``)."""

    outcome: ProofOutcome
    reason: str
    before: Ran | None = None
    after: Ran | None = None
    sandbox: str = Mechanism.NONE.value

    @property
    def proven(self) -> bool:
        return self.outcome is ProofOutcome.PROVEN


def _is_safe(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """The archive member as the ``data`` filter would extract it, or None to leave it out
    (absolute paths, links out of the copy, devices)."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def _extract(archive: Path, dest: Path, *, owner: int | None) -> None:
    dest.mkdir()
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter=_is_safe)
    if owner is None:
        return
    os.chown(dest, owner, owner)
    for root, dirs, names in os.walk(dest):
        for name in (*dirs, *names):
            os.lchown(os.path.join(root, name), owner, owner)


async def _archive(repo: Path, sha: str, scratch: Path) -> Path | str:
    """The head commit's tree as a tar file (git runs no hook for this), or why it failed."""
    archive = scratch / "head.tar"
    env = environment(os.environ.get("PATH", "/usr/bin:/bin"), str(scratch))
    process = await asyncio.create_subprocess_exec(
        "git",
        "-C",
        str(repo),
        "archive",
        "--format=tar",
        "-o",
        str(archive),
        f"{sha}^{{commit}}",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(GIT_TIMEOUT_S):
            _, error = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        return f"git archive did not finish within {GIT_TIMEOUT_S:g} s"
    if process.returncode != 0:
        return error.decode(errors="replace").strip()[-300:]
    return archive


@dataclass(frozen=True)
class _Copies:
    """Fresh copies of the head, one per run, in a scratch directory the sandbox user owns."""

    archive: Path
    scratch: Path
    owner: int | None

    def fresh(self, name: str) -> Path:
        dest = self.scratch / name
        _extract(self.archive, dest, owner=self.owner)
        return dest


async def run_proof(
    proof: Proof,
    *,
    repo: Path,
    sha: str,
    timeout_s: float,
    sandbox: Sandbox,
    limits: Limits | None = None,
) -> ProofReport:
    """Copy ``sha`` of the local repository ``repo`` and run the proof in ``sandbox``.

    ``timeout_s`` bounds each run of the test command. The copies are always removed.
    """
    fix = proof.fix
    if fix is None or not fix.strip():
        return ProofReport(ProofOutcome.NO_FIX, "the proof has no fix patch to apply")
    if not sandbox.runs_proofs:
        return ProofReport(ProofOutcome.SKIPPED, f"proof skipped: no sandbox ({sandbox.detail})")
    if COMMIT_ID.fullmatch(sha) is None:
        return ProofReport(ProofOutcome.NO_CHECKOUT, f"{sha[:80]!r} is not a commit id")
    scratch = Path(tempfile.mkdtemp(prefix="hindsight-proof-"))
    try:
        archive = await _archive(repo, sha, scratch)
        if isinstance(archive, str):
            return ProofReport(
                ProofOutcome.NO_CHECKOUT,
                f"could not copy {sha} of {repo}: {archive}",
                sandbox=sandbox.mechanism.value,
            )
        owner = NOBODY if sandbox.drop_privileges else None
        if owner is not None:
            os.chown(scratch, owner, owner)
        copies = _Copies(archive, scratch, owner)
        report = await _prove(
            proof.test,
            fix,
            copies=copies,
            sandbox=sandbox,
            limits=limits or Limits(),
            timeout_s=timeout_s,
        )
        log.info(
            "proof run",
            extra={"sha": sha, "outcome": report.outcome.value, "sandbox": report.sandbox},
        )
        return report
    finally:
        await asyncio.to_thread(shutil.rmtree, scratch, True)


async def _prove(
    test_command: str,
    fix: str,
    *,
    copies: _Copies,
    sandbox: Sandbox,
    limits: Limits,
    timeout_s: float,
) -> ProofReport:
    test = ["/bin/sh", "-c", test_command]
    used = sandbox.mechanism.value

    async def run(command: list[str], workdir: Path) -> Ran:
        return await run_sandboxed(
            sandbox, command, workdir=workdir, limits=limits, timeout_s=timeout_s
        )

    before = await run(test, await asyncio.to_thread(copies.fresh, "before"))
    if before.timed_out:
        return ProofReport(
            ProofOutcome.TIMEOUT,
            f"the test did not finish within {timeout_s:g} s before the fix",
            before=before,
            sandbox=used,
        )
    if before.returncode == 0:
        return ProofReport(
            ProofOutcome.PASSED_BEFORE_FIX,
            "the test passed before the fix, so it proves nothing",
            before=before,
            sandbox=used,
        )
    # The fix applies to a fresh copy of the head, not to whatever the first run left behind.
    fixed = await asyncio.to_thread(copies.fresh, "after")
    patch = fixed / PATCH_NAME
    patch.write_text(fix if fix.endswith("\n") else fix + "\n")
    applied = await run(["git", "apply", "--whitespace=nowarn", PATCH_NAME], fixed)
    patch.unlink(missing_ok=True)
    if applied.returncode != 0:
        return ProofReport(
            ProofOutcome.PATCH_DOES_NOT_APPLY,
            f"the fix does not apply to the head commit: {applied.output.strip()[-300:]}",
            before=before,
            sandbox=used,
        )
    after = await run(test, fixed)
    if after.timed_out:
        return ProofReport(
            ProofOutcome.TIMEOUT,
            f"the test did not finish within {timeout_s:g} s after the fix",
            before=before,
            after=after,
            sandbox=used,
        )
    if after.returncode != 0:
        return ProofReport(
            ProofOutcome.STILL_FAILING,
            f"the test still fails with the fix applied (exit {after.returncode})",
            before=before,
            after=after,
            sandbox=used,
        )
    return ProofReport(
        ProofOutcome.PROVEN,
        "the test failed on the head commit and passed with the fix",
        before=before,
        after=after,
        sandbox=used,
    )
