"""Maintenance bars: a push touching 200 files against 10,000 lessons, beside a naive re-check.

Run: `python bench/maintenance.py`. The simulator's default branch holds 1,000 files of ten
functions each; the store (SQLite) holds 10,000 lessons, one per function, proven at that commit.
One push then deletes 50 files, renames 50, removes a function from 50 and adds a line to 50.
Maintenance (compare, then contents only where a diff removed a line naming a lesson's
identifier) runs against a naive re-check that reads every lesson's file at the head and checks
its names, in the same run; both decide the same retirements, and their GitHub requests and wall
time are printed side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import Engine, insert

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bar  # noqa: E402
from continual.maintenance import Anchors, live_lessons  # noqa: E402
from continual.maintenance.anchors import contains_name  # noqa: E402
from continual.tables import Account, Entry, LessonProvenance, Repository  # noqa: E402
from ghapp.db import make_engine, migrate, reading  # noqa: E402
from ghapp.github.client import GitHubClient  # noqa: E402
from ghapp.github.installation import InstallationClient  # noqa: E402
from ghapp.maintenance import CONCURRENT_READS, maintain  # noqa: E402
from ghsim import GitHubSimulator, generate_app_key  # noqa: E402

APP_ID = 4343
REPO = "bench-org/service"
REPO_ID = 9001
FUNCTIONS = 10
MAX_REQUEST_RATIO = 0.1
MAX_TIME_RATIO = 0.5


def source(i: int, drop: int | None = None, extra: str = "") -> str:
    names = [f"fn_{i}_{j}" for j in range(FUNCTIONS) if j != drop]
    return "".join(f"def {name}(x):\n    return x\n\n\n" for name in names) + extra


def seed(engine: Engine, head: str, files: int) -> None:
    """One lesson per function, proven at ``head``, inserted in bulk."""
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=1, login="bench-org", created_ms=0))
        conn.execute(
            insert(Repository).values(id=REPO_ID, account_id=1, installation_id=1, full_name=REPO)
        )
        entries, provenance = [], []
        for i in range(files):
            path = f"src/mod_{i}.py"
            for j in range(FUNCTIONS):
                name, entry_id = f"fn_{i}_{j}", f"e_{i}_{j}"
                entries.append(
                    {
                        "id": entry_id,
                        "account_id": 1,
                        "repository_id": REPO_ID,
                        "key": f"lesson/{name}",
                        "lens": "correctness",
                        "title": f"Unchecked {name} result",
                        "text": f"Check the result of `{name}` in {path} before using it.",
                        "associations": "{}",
                        "revision": 1,
                        "created_ms": 0,
                    }
                )
                anchors = Anchors((path,), ((name, path),))
                provenance.append(
                    {
                        "entry_id": entry_id,
                        "account_id": 1,
                        "repository_id": REPO_ID,
                        "pr": 1,
                        "head_sha": head,
                        "basis_sha": head,
                        "anchors": anchors.to_json(),
                        "updated_ms": 0,
                    }
                )
        conn.execute(insert(Entry), entries)
        conn.execute(insert(LessonProvenance), provenance)


async def naive(client: InstallationClient, engine: Engine, head: str) -> tuple[int, int]:
    """Read every lesson's file at the head and check its names: (requests, retirements)."""
    with reading(engine) as conn:
        lessons = live_lessons(conn, REPO_ID)
    paths = sorted({p for x in lessons if x.anchors for p in x.anchors.paths})
    gate = asyncio.Semaphore(CONCURRENT_READS)

    async def read(path: str) -> str | None:
        async with gate:
            return await client.get_text(REPO, path, head)

    texts = dict(zip(paths, await asyncio.gather(*(read(p) for p in paths)), strict=True))
    retired = 0
    for lesson in lessons:
        assert lesson.anchors is not None
        for name, home in lesson.anchors.identifiers:
            text = texts.get(home)
            retired += text is None or not contains_name(text, name)
    return len(paths), retired


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=1_000)
    args = parser.parse_args()
    files, touched = args.files, args.files // 5
    quarter = touched // 4
    key = generate_app_key()
    lines = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim,
    ):
        sim.add_installation("bench-org", repositories=[REPO], installation_id=1)
        base = sim.push(REPO, {f"src/mod_{i}.py": source(i) for i in range(files)})
        engine = make_engine(f"sqlite:///{tmp}/bench.db")
        migrate(engine)
        seed(engine, base, files)
        change: dict[str, str | None] = {}
        for i in range(quarter):
            change[f"src/mod_{i}.py"] = None
            change[f"src/mod_{quarter * 2 + i}.py"] = source(quarter * 2 + i, drop=0)
            change[f"src/mod_{quarter * 3 + i}.py"] = source(quarter * 3 + i, extra="y = 1\n")
        renames = {f"src/mod_{quarter + i}.py": f"lib/mod_{quarter + i}.py" for i in range(quarter)}
        head = sim.push(REPO, change, renames=renames)
        client = GitHubClient(
            app_id=APP_ID, private_key_pem=key.private_pem, base_url=sim.base_url, trust_env=False
        )
        installation = client.installation(1)
        asyncio.run(client.installation_token(1))
        lessons = files * FUNCTIONS
        print(f"maintenance: {lessons:,} lessons over {files:,} files; one push touching {touched}")

        sim.reset_log()
        started = time.perf_counter()
        naive_requests, naive_retired = asyncio.run(naive(installation, engine, head))
        naive_s = time.perf_counter() - started
        assert sim.count() == naive_requests

        sim.reset_log()
        started = time.perf_counter()
        run = asyncio.run(maintain(installation, engine, repo=REPO, head=head, now=1))
        ours_s = time.perf_counter() - started
        requests = sim.count()
        published = run.published
        assert published is not None
        print(
            f"  maintenance: {requests} GitHub requests ({run.reads.compare} compare, "
            f"{run.reads.trees} trees, {run.reads.contents} contents), {ours_s:.2f} s; "
            f"retired {published.retired}, adapted {published.adapted}, kept {published.kept}, "
            f"{published.advanced:,} lessons moved to the head"
        )
        print(
            f"  naive re-check: {naive_requests} GitHub requests (one per lesson file), "
            f"{naive_s:.2f} s; retired {naive_retired} (renamed files count as gone to it)"
        )
        engine.dispose()
        expected = quarter * FUNCTIONS + quarter  # deleted files' lessons + one per dropped fn
        lines.append(bar("maintenance-retired", published.retired, "lessons", "==", expected))
        lines.append(bar("maintenance-requests", requests, "requests", "<=", touched + 1))
        lines.append(bar("maintenance-naive-requests", naive_requests, "requests", ">=", files))
        lines.append(
            bar(
                "maintenance-requests-vs-naive",
                round(requests / naive_requests, 4),
                "ratio",
                "<=",
                MAX_REQUEST_RATIO,
            )
        )
        lines.append(bar("maintenance-seconds", round(ours_s, 3), "s", "<=", naive_s))
        lines.append(bar("maintenance-naive-seconds", round(naive_s, 3), "s", ">=", 0))
        lines.append(
            bar(
                "maintenance-time-vs-naive",
                round(ours_s / naive_s, 3),
                "ratio",
                "<=",
                MAX_TIME_RATIO,
            )
        )
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
