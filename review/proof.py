"""Proofs: a finding's test must fail on a copy of the head commit and pass with its fix applied.

Each run gets a fresh copy of the head inside the sandbox (``review.sandbox``): git lists and
checks the commit's tree (``review.sandbox.tree``) and writes it as a tar file; ``tar`` unpacks it
inside the sandbox, into the size-capped tmpfs at ``/proof``, as the sandbox's user. The app never
opens anything the pull request controls; its tar file and the fix patch live outside the copy.
No ``.git``, so no hook can run, and the operator's checkout is never touched. A proof is evidence
shown on the suggestion, never a decision (docs/reviews.md).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO

from continual.memory import repository_dir
from review.config import ReviewSettings
from review.contract import Proof
from review.sandbox import Isolation, Limits, Ran, Sandbox, run_sandboxed
from review.sandbox.command import INSIDE_DIR, MIB, NOBODY
from review.sandbox.tree import UnsafeTree, archive, check_tree

CHECKOUT_DIR = "checkout"
COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
INSIDE_TAR = "/hindsight/head.tar"
INSIDE_PATCH = "/hindsight/fix.patch"
STATUS_TAIL_BYTES = 2000
# The init of a proof's run: unpack the copy, apply the fix if one is given, then run the test.
# The steps' output and exit statuses go to the status file (the init's standard input, opened
# for writing), each status marked with a word only this run knows; the file is closed before the
# test starts, so the test cannot forge a step.
PREPARE = r"""
mark=$1 tar=$2 copy=$3 patch=$4; shift 4
step() { printf '\n%s %s %s\n' "$mark" "$1" "$2" >&0; }
tar -x -f "$tar" -C "$copy" --no-same-owner --no-same-permissions >&0 2>&1 </dev/null
rc=$?; step copy $rc; [ $rc -eq 0 ] || exit 125
if [ -n "$patch" ]; then
    (cd "$copy" && GIT_CEILING_DIRECTORIES="${copy%/*}" git apply --whitespace=nowarn "$patch") \
        >&0 2>&1 </dev/null
    rc=$?; step apply $rc; [ $rc -eq 0 ] || exit 125
fi
exec 0</dev/null
cd "$copy" && "$@"; exit $?
"""

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
    UNSAFE_TREE = "unsafe-tree"  # the head's tree holds an entry no copy may contain
    COPY_FAILED = "copy-failed"  # the copy could not be made (over its size cap, tar failed)
    ERROR = "error"  # the proof could not run (git missing, an unexpected failure)


@dataclass(frozen=True)
class ProofReport:
    """The outcome, a sentence saying why, the test runs before and after the fix, and what they
    ran in (``bwrap``, ``unsandboxed`` or ``none``)."""

    outcome: ProofOutcome
    reason: str
    before: Ran | None = None
    after: Ran | None = None
    sandbox: str = Isolation.NONE.value

    @property
    def proven(self) -> bool:
        return self.outcome is ProofOutcome.PROVEN


def proof_limits(settings: ReviewSettings) -> Limits:
    """The limits of a proof's runs under the operator's ``[review]`` settings."""
    return Limits(
        total_memory_bytes=settings.proof_memory_mib * MIB,
        processes=settings.proof_processes,
        copy_bytes=settings.proof_copy_mib * MIB,
        files=settings.proof_files,
    )


@dataclass(frozen=True)
class _Steps:
    """What the init of one run said of its steps: each step's exit status, and their output."""

    statuses: dict[str, int]
    output: str

    @classmethod
    def read(cls, handle: IO[bytes], mark: str) -> _Steps:
        handle.seek(0)
        statuses: dict[str, int] = {}
        kept: list[str] = []
        for line in handle.read().decode("utf-8", errors="replace").splitlines():
            word, _, rest = line.partition(" ")
            name, _, status = rest.partition(" ")
            if word == mark and status.isdigit():
                statuses[name] = int(status)
            elif line:
                kept.append(line)
        return cls(statuses, "\n".join(kept)[-STATUS_TAIL_BYTES:])


@dataclass(frozen=True)
class _Runner:
    """Runs a proof's steps, each time on a fresh copy: in the sandbox, unpacked into the tmpfs
    at ``/proof``; unsandboxed, into a new directory of ``scratch``."""

    sandbox: Sandbox
    scratch: Path
    tar: Path
    patch: Path
    limits: Limits
    timeout_s: float

    async def run(self, test: str, *, name: str, fix: bool) -> tuple[Ran, _Steps]:
        mark = uuid.uuid4().hex
        read_only: list[tuple[Path, str]] = []
        if self.sandbox.isolation is Isolation.BWRAP:
            workdir = None
            copy, tar, patch = INSIDE_DIR, INSIDE_TAR, INSIDE_PATCH if fix else ""
            read_only = [(self.tar, INSIDE_TAR)] + ([(self.patch, INSIDE_PATCH)] if fix else [])
        else:
            workdir = self.scratch / name
            workdir.mkdir()
            copy, tar, patch = str(workdir), str(self.tar), str(self.patch) if fix else ""
        with tempfile.TemporaryFile(prefix="hindsight-proof-steps-") as status:
            ran = await run_sandboxed(
                self.sandbox,
                [mark, tar, copy, patch, "/bin/sh", "-c", test],
                workdir=workdir,
                limits=self.limits,
                timeout_s=self.timeout_s,
                read_only=read_only,
                init=PREPARE,
                stdin=status,
            )
            return ran, _Steps.read(status, mark)


def _bounds(ran: Ran, limits: Limits) -> str:
    said = {
        "memory": f"the sandbox's total memory bound ({limits.total_memory_bytes // MIB} MiB)",
        "processes": f"the sandbox's process bound ({limits.processes})",
    }
    reached = [said[name] for name in ran.bounds_hit if name in said]
    return f"; the run reached {' and '.join(reached)}" if reached else ""


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

    ``timeout_s`` bounds each run (the copy, the fix and the test). Whatever goes wrong, the
    answer is a report: a proof is the boundary of code that runs a pull request's tree, so any
    failure in it makes the finding unproven and never fails the review. The scratch files are
    always removed.
    """
    fix = proof.fix
    if fix is None or not fix.strip():
        return ProofReport(ProofOutcome.NO_FIX, "the proof has no fix patch to apply")
    if not sandbox.runs_proofs:
        return ProofReport(ProofOutcome.SKIPPED, f"proof skipped: no sandbox ({sandbox.detail})")
    if COMMIT_ID.fullmatch(sha) is None:
        return ProofReport(ProofOutcome.NO_CHECKOUT, f"{sha[:80]!r} is not a commit id")
    used = sandbox.isolation.value
    try:
        scratch = Path(tempfile.mkdtemp(prefix="hindsight-proof-"))
    except OSError as exc:
        return ProofReport(ProofOutcome.ERROR, f"no scratch directory: {exc}", sandbox=used)
    try:
        report = await _copy_and_prove(
            proof.test,
            fix,
            repo=repo,
            sha=sha,
            scratch=scratch,
            sandbox=sandbox,
            limits=limits or Limits(),
            timeout_s=timeout_s,
        )
    except Exception as exc:  # the proof's boundary: unproven, never a crash
        log.exception("proof failed", extra={"sha": sha})
        report = ProofReport(
            ProofOutcome.ERROR,
            f"the proof could not run: {type(exc).__name__}: {str(exc)[:300]}",
            sandbox=used,
        )
    finally:
        await asyncio.to_thread(shutil.rmtree, scratch, True)
    log.info("proof run", extra={"sha": sha, "outcome": report.outcome.value, "sandbox": used})
    return report


async def _copy_and_prove(
    test: str,
    fix: str,
    *,
    repo: Path,
    sha: str,
    scratch: Path,
    sandbox: Sandbox,
    limits: Limits,
    timeout_s: float,
) -> ProofReport:
    used = sandbox.isolation.value
    home = scratch / "home"
    home.mkdir()
    tar, patch = scratch / "head.tar", scratch / "fix.patch"
    try:
        listing = await check_tree(repo, sha, home=home, max_files=limits.files)
        await archive(repo, sha, tar, home=home)
    except UnsafeTree as exc:
        return ProofReport(
            ProofOutcome.UNSAFE_TREE,
            f"the head's tree is not copied: {exc}",
            sandbox=used,
        )
    except OSError as exc:
        return ProofReport(
            ProofOutcome.NO_CHECKOUT, f"could not copy {sha} of {repo}: {exc}", sandbox=used
        )
    patch.write_text(fix if fix.endswith("\n") else fix + "\n")
    # The sandbox's user reads both files, and only those: the scratch directory can be passed
    # through, not listed.
    if sandbox.drop_privileges:
        for path in (tar, patch):
            os.chown(path, NOBODY, NOBODY)
    for path in (tar, patch):
        path.chmod(0o400)
    scratch.chmod(0o711)
    log.debug("proof tree", extra={"sha": sha, "files": listing.files})
    runner = _Runner(sandbox, scratch, tar, patch, limits, timeout_s)
    return await _prove(test, runner)


def _copy_failed(ran: Ran, steps: _Steps, runner: _Runner, when: str) -> ProofReport | None:
    """The report when a run's copy (or its fix) was not made, else None."""
    used = runner.sandbox.isolation.value
    copied = steps.statuses.get("copy")
    if copied is None or copied != 0:
        if ran.timed_out and copied is None:
            why = f"the copy of the head was not made within {runner.timeout_s:g} s"
            return ProofReport(ProofOutcome.TIMEOUT, why, sandbox=used)
        said = steps.output.strip() or ran.output.strip()
        detail = said[-300:] or f"exit {ran.returncode}"
        cap = f"at most {runner.limits.copy_bytes // MIB} MiB"
        why = f"the copy of the head {when} could not be made ({cap}): {detail}"
        why += _bounds(ran, runner.limits)
        return ProofReport(ProofOutcome.COPY_FAILED, why, sandbox=used)
    return None


async def _prove(test_command: str, runner: _Runner) -> ProofReport:
    used = runner.sandbox.isolation.value
    timeout_s = runner.timeout_s
    before, steps = await runner.run(test_command, name="before", fix=False)
    failed = _copy_failed(before, steps, runner, "before the fix")
    if failed is not None:
        return failed
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
    after, steps = await runner.run(test_command, name="after", fix=True)
    failed = _copy_failed(after, steps, runner, "for the fix")
    if failed is not None:
        return ProofReport(failed.outcome, failed.reason, before=before, sandbox=used)
    applied = steps.statuses.get("apply")
    if applied != 0:
        if applied is None and after.timed_out:
            why = f"the fix was not applied within {timeout_s:g} s"
            return ProofReport(ProofOutcome.TIMEOUT, why, before=before, sandbox=used)
        return ProofReport(
            ProofOutcome.PATCH_DOES_NOT_APPLY,
            f"the fix does not apply to the head commit: {steps.output.strip()[-300:]}",
            before=before,
            sandbox=used,
        )
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
            f"the test still fails with the fix applied (exit {after.returncode})"
            + _bounds(after, runner.limits),
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
