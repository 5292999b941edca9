"""Agent hook benchmark: a cold `hindsight context --hook` process, as a coding agent starts one
before every Read and Edit, against a bare `python -c pass` process measured beside it.

Run: `python bench/hook.py [--runs N] [--lessons N]`. A git checkout of a repository whose store
holds the lesson on `src/app.py` among `--lessons` others on other files (the recall index is
built over all of them); each round starts four processes in turn (bare Python, the hook asking
a running server, the hook answering from the local SQLite store as it does by default, through
the warm helper the first such hook started, and the hook answering from the store itself with
the helper switched off), each with the PreToolUse JSON of a Read of `src/app.py` on stdin, and
checks that every hook handed the lesson. Bars: the p95 of the server and default store hooks in
milliseconds, and their ratio to the bare process's p95 in the same run; the hook without its
helper is printed beside them (what the first call of a store pays, and every call with
`HINDSIGHT_HOOK_HELPER_IDLE_S=0`).

Every process runs as an installed package does: with its bytecode cached (pip compiles it on
install), here in a scratch `PYTHONPYCACHEPREFIX` filled by the warm-up rounds, whatever
`PYTHONDONTWRITEBYTECODE` the shell has; the warm-up rounds also fill the page cache.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import Engine

from bench.common import bar, percentile
from ghapp.db import make_engine, migrate
from ghapp.jobs import now_ms
from tests.support.hooks import read_app
from tests.support.recall import Clock, Tenant, accept, api, seed, token

ROOT = Path(__file__).resolve().parents[1]
SERVER_P95_MS = 150.0
STORE_P95_MS = 300.0
# On a quiet machine a bare interpreter starts in about 20 ms: the bars above, as ratios to it.
SERVER_RATIO = 7.5
STORE_RATIO = 15.0
WARM_UP = 3  # rounds not counted: the bytecode cache and the page cache fill


def checkout(folder: Path) -> Path:
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("print('hi')\n")
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    subprocess.run(
        ["git", "remote", "add", "origin", "git@github.com:octo/app.git"], cwd=folder, check=True
    )
    return folder


def timed(command: list[str], stdin: str, cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(command, input=stdin, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = (time.perf_counter() - started) * 1000
    if result.returncode != 0:
        raise SystemExit(f"{command[1:]} exited {result.returncode}: {result.stderr[-500:]}")
    return elapsed, result.stdout


def other_lessons(engine: Engine, tenant: Tenant, count: int, at: int) -> None:
    """``count`` accepted lessons on other files and names, so recall has an index to search."""
    for number in range(count):
        path = f"src/part_{number % 40}.py"
        accept(engine, tenant, "octo/app", name=f"load_part_{number}", path=path, at=at)


def handed(stdout: str) -> bool:
    return "parse_config" in stdout and "additionalContext" in stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40, help="rounds of the three processes")
    parser.add_argument("--lessons", type=int, default=200, help="other lessons in the store")
    args = parser.parse_args()
    hindsight = [sys.executable, "-m", "ghapp.cli", "context", "--hook"]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        repo = checkout(folder / "checkout")
        database_url = f"sqlite:///{folder / 'hindsight.db'}"
        engine = make_engine(database_url)
        migrate(engine)
        org = seed(engine, 1, "octo", "app")
        accept(engine, org, "octo/app", at=now_ms())
        other_lessons(engine, org, args.lessons, now_ms())
        secret = token(engine, "octo", "mona", now=now_ms())
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("HINDSIGHT_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env.update(
            PYTHONPATH=str(ROOT),
            PYTHONPYCACHEPREFIX=str(folder / "bytecode"),
            HINDSIGHT_DATABASE_URL=database_url,
            HINDSIGHT_STORE_DIR=str(folder / "store"),
        )
        runtime = tempfile.mkdtemp(prefix="hook-", dir="/tmp")  # the helper's socket folder
        env["XDG_RUNTIME_DIR"] = runtime
        alone = {**env, "HINDSIGHT_HOOK_HELPER_IDLE_S": "0"}
        times: dict[str, list[float]] = {"bare": [], "server": [], "store": [], "alone": []}
        try:
            with api(engine, folder / "served", Clock(now_ms())) as url:
                served = {**env, "HINDSIGHT_URL": url, "HINDSIGHT_TOKEN": secret}
                for index in range(args.runs + WARM_UP):
                    bare, _ = timed([sys.executable, "-c", "pass"], read_app(repo, "b"), repo, env)
                    rounds = {
                        "server": timed(hindsight, read_app(repo, f"a{index}"), repo, served),
                        "store": timed(hindsight, read_app(repo, f"s{index}"), repo, env),
                        "alone": timed(hindsight, read_app(repo, f"o{index}"), repo, alone),
                    }
                    missed = {k: out for k, (_, out) in rounds.items() if not handed(out)}
                    if missed:
                        raise SystemExit(f"a hook handed no lesson: {missed!r}")
                    if index >= WARM_UP:
                        times["bare"].append(bare)
                        for name, (elapsed, _) in rounds.items():
                            times[name].append(elapsed)
        finally:
            stop = [sys.executable, "-m", "ghapp.cli", "hook-helper", "--stop"]
            subprocess.run(stop, env=env, capture_output=True, check=False)
            shutil.rmtree(runtime, ignore_errors=True)
        engine.dispose()
    p95 = {name: percentile(values, 95) for name, values in times.items()}
    p50 = {name: percentile(values, 50) for name, values in times.items()}
    labels = {"alone": "store, no helper"}
    for name in times:
        print(
            f"{labels.get(name, name):<16} p50 {p50[name]:7.1f} ms   p95 {p95[name]:7.1f} ms   ({args.runs} runs)"
        )
    print(f"store of {args.lessons + 1} lessons")
    print(bar("hook-cold-ms server p95", round(p95["server"], 1), "ms", "<=", SERVER_P95_MS))
    print(bar("hook-cold-ms store p95", round(p95["store"], 1), "ms", "<=", STORE_P95_MS))
    print(
        bar("hook-cold server/bare", round(p95["server"] / p95["bare"], 2), "x", "<=", SERVER_RATIO)
    )
    print(bar("hook-cold store/bare", round(p95["store"] / p95["bare"], 2), "x", "<=", STORE_RATIO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
