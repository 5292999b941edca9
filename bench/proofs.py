"""Proof benchmark: what the sandbox costs a proof, against the same proof on the same copies
without namespaces, measured in the same run.

Run: `python bench/proofs.py [--proofs N]`. Each proof copies the head twice, applies the fix and
runs a small Python test twice (fail, then pass), so the ratio is what a typical proof pays for
bubblewrap, `setpriv` and the namespaces it creates.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import bar
from review.contract import Proof
from review.proof import run_proof
from review.sandbox import UNSANDBOXED, Isolation, Sandbox, detect_sandbox
from review.sandbox.command import INSIDE_PATH
from tests.support.proofs import FIX, TEST, first_commit, make_repo

MAX_OVERHEAD = 2.5  # a sandboxed proof at most 2.5 × the same proof without namespaces


async def seconds_per_proof(sandbox: Sandbox, repo: Path, sha: str, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        report = await run_proof(
            Proof(test=TEST, fix=FIX), repo=repo, sha=sha, timeout_s=60, sandbox=sandbox
        )
        times.append(time.perf_counter() - started)
        if not report.proven:
            raise SystemExit(f"the benchmark proof did not prove: {report.reason}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--proofs", type=int, default=20)
    args = parser.parse_args()
    # The same programs for both: the baseline finds `python3` where the sandbox does.
    os.environ["PATH"] = INSIDE_PATH
    sandbox = detect_sandbox()
    if sandbox.isolation is not Isolation.BWRAP:
        print(f"no sandbox: {sandbox.detail}")
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        repo = make_repo(Path(scratch) / "repo")
        sha = first_commit(repo)
        asyncio.run(seconds_per_proof(sandbox, repo, sha, 2))  # warm the page cache
        # Interleaved rounds, so that the machine's other load falls on both alike.
        boxed: list[float] = []
        bare: list[float] = []
        for _ in range(args.proofs):
            boxed += asyncio.run(seconds_per_proof(sandbox, repo, sha, 1))
            bare += asyncio.run(seconds_per_proof(UNSANDBOXED, repo, sha, 1))
    boxed_ms = statistics.median(boxed) * 1000
    bare_ms = statistics.median(bare) * 1000
    print(f"proof in bubblewrap: median {boxed_ms:.1f} ms ({args.proofs} proofs)")
    print(f"same proof without namespaces (baseline): median {bare_ms:.1f} ms")
    print(bar("proof sandbox overhead", boxed_ms / bare_ms, "× baseline", "<=", MAX_OVERHEAD))
    return 0 if boxed_ms / bare_ms <= MAX_OVERHEAD else 1


if __name__ == "__main__":
    raise SystemExit(main())
