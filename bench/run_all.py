"""Run every benchmark of bench/ and print one table of the bars (docs/performance.md) they measured.

Every timing bar is a ratio to a baseline measured in the same run, its absolute figures beside it.

Run: `python bench/run_all.py [--quick]`. Each benchmark runs in its own process; its `bar …`
lines are collected into the table, and the exit status is non-zero when any bar fails.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BAR = re.compile(
    r"^bar (?P<name>[^:]+): (?P<value>\S+) (?P<unit>.*?) \(target (?P<target>[^)]*)\) (?P<verdict>PASS|FAIL)$"
)
BENCHMARKS = {
    "ingress": (["bench/ingress.py", "--seconds", "60"], ["bench/ingress.py", "--seconds", "12"]),
    "door": (["bench/door.py", "--seconds", "15"], ["bench/door.py", "--seconds", "6"]),
    "jobqueue": (["bench/jobqueue.py", "--jobs", "3000"], ["bench/jobqueue.py", "--jobs", "1000"]),
    "recall": (["bench/recall.py"], ["bench/recall.py", "--entries", "100000", "--queries", "100"]),
    "surfaces": (
        ["bench/surfaces.py"],
        ["bench/surfaces.py", "--entries", "100000", "--queries", "300"],
    ),
    "recall_live": (
        ["bench/recall_live.py"],
        ["bench/recall_live.py", "--entries", "100000", "--queries", "300", "--changes", "100"],
    ),
    "decisions": (["bench/decisions.py"], ["bench/decisions.py"]),
    "untrusted_text": (["bench/untrusted_text.py"], ["bench/untrusted_text.py", "--repeat", "3"]),
    "writeback": (["bench/writeback.py"], ["bench/writeback.py"]),
    "fixes": (["bench/fixes.py"], ["bench/fixes.py"]),
    "review": (["bench/review.py"], ["bench/review.py"]),
    "maintenance": (["bench/maintenance.py"], ["bench/maintenance.py", "--files", "250"]),
    "proofs": (["bench/proofs.py"], ["bench/proofs.py", "--proofs", "8"]),
    "history": (
        ["bench/history.py"],
        ["bench/history.py", "--pulls", "60", "--baseline-pulls", "10"],
    ),
    "hook": (["bench/hook.py"], ["bench/hook.py", "--runs", "15"]),
    "tenants": (["bench/tenants.py"], ["bench/tenants.py", "--quick"]),
}


def machine() -> str:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{platform.system()} {platform.machine()}, {cpus} cores, Python {platform.python_version()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="shorter runs (12 s ingress)")
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    args = parser.parse_args()
    rows: list[tuple[str, dict[str, str]]] = []
    failures = []
    for name, (full, quick) in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        script = ROOT / (quick if args.quick else full)[0]
        if not script.exists():
            failures.append(f"{name}: {script.name} is missing")
            continue
        command = [sys.executable, *(quick if args.quick else full)]
        print(f"== {name}: {' '.join(command[1:])}", flush=True)
        started = time.monotonic()
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        print(result.stdout, end="")
        found = [
            m.groupdict() for line in result.stdout.splitlines() if (m := BAR.match(line.strip()))
        ]
        if not found:
            failures.append(f"{name}: printed no bar (exit {result.returncode})")
            print(result.stderr[-2000:], file=sys.stderr)
        rows += [(name, bar) for bar in found]
        print(f"   ({time.monotonic() - started:.0f} s)\n", flush=True)
    print(f"Bars — {machine()}; a ratio's absolute figures (this run) stand in brackets")
    print(f"{'benchmark':<14} {'bar':<30} {'target':<10} {'result':<6} measured")
    for name, bar in rows:
        measured = f"{bar['value']} {bar['unit']}"
        print(f"{name:<14} {bar['name']:<30} {bar['target']:<10} {bar['verdict']:<6} {measured}")
    for failure in failures:
        print(f"missing: {failure}")
    failed = [bar for _, bar in rows if bar["verdict"] == "FAIL"]
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or failures else 0


if __name__ == "__main__":
    sys.exit(main())
