"""Queue bar: jobs/s through the real worker on SQLite (synchronous=FULL) and PostgreSQL.

Run: `python bench/jobqueue.py [--jobs 3000] [--postgres URL]`. Side by side in the same run: the bare
claim/complete loop (the queue's floor) and the full worker (payload read, handler, settle).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import Engine, create_engine, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bar, pin  # noqa: E402
from ghapp.app import build_deps  # noqa: E402
from ghapp.db import make_engine, migrate  # noqa: E402
from ghapp.deps import Deps  # noqa: E402
from ghapp.jobs import ClaimedJob, JobQueue, JobSpec, enqueue  # noqa: E402
from ghapp.router import Payload, Route, Router  # noqa: E402
from ghapp.settings import Settings  # noqa: E402
from ghapp.worker import Worker  # noqa: E402

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def fill(engine: Engine, count: int) -> None:
    with engine.begin() as conn:
        enqueue(conn, [JobSpec("noop", serial_key=f"pr:1:{i % 50}") for i in range(count)], now=0)


def bare_loop(engine: Engine, count: int) -> float:
    queue = JobQueue(engine, lease_ms=60_000, max_attempts=3)
    fill(engine, count)
    started = time.perf_counter()
    done = 0
    while (job := queue.claim()) is not None:
        queue.complete(job)
        done += 1
    assert done == count, (done, count)
    return count / (time.perf_counter() - started)


def worker_loop(engine: Engine, url: str, count: int, concurrency: int) -> float:
    async def noop(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
        return None

    router = Router([Route(event="bench", actions=None, kind="noop", handler=noop)])
    deps = build_deps(Settings(database_url=url), engine=engine)
    worker = Worker(deps, router, concurrency=concurrency)
    fill(engine, count)

    async def run() -> None:
        task = asyncio.create_task(worker.run())
        while True:
            counts = await asyncio.to_thread(deps.queue.counts)
            if counts.get("done", 0) >= 2 * count:  # the bare loop's jobs are done too
                break
            await asyncio.sleep(0.02)
        worker.stop()
        await task

    started = time.perf_counter()
    asyncio.run(run())
    return count / (time.perf_counter() - started)


def postgres_engine(url: str) -> tuple[Engine, str] | None:
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    try:
        admin = create_engine(url)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        admin.dispose()
    except Exception as exc:
        print(f"  postgresql: not reachable ({type(exc).__name__}); skipped")
        return None
    scoped = f"{url}?options=-csearch_path%3D{schema}"
    return make_engine(scoped), scoped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--postgres", default=os.environ.get("HINDSIGHT_TEST_DATABASE_URL", DEFAULT_POSTGRES)
    )
    args = parser.parse_args()
    pin(0)
    results: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'queue.db'}"
        engine = make_engine(url)
        migrate(engine)
        results["sqlite"] = (
            bare_loop(engine, args.jobs),
            worker_loop(engine, url, args.jobs, args.concurrency),
        )
        engine.dispose()
    made = postgres_engine(args.postgres) if args.postgres else None
    if made is not None:
        engine, url = made
        migrate(engine)
        results["postgresql"] = (
            bare_loop(engine, args.jobs),
            worker_loop(engine, url, args.jobs, args.concurrency),
        )
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA IF EXISTS " + url.rsplit("%3D", 1)[1] + " CASCADE"))
        engine.dispose()
    print(f"queue: {args.jobs} jobs, worker concurrency {args.concurrency}, one core")
    for name, (bare, full) in results.items():
        print(
            f"  {name:<10}: claim+complete loop {bare:,.0f} jobs/s, worker {full:,.0f} jobs/s ({full / bare:.2f}x)"
        )
    lines = [bar("queue-sqlite", round(results["sqlite"][1]), "jobs/s", ">=", 500)]
    if "postgresql" in results:
        lines.append(bar("queue-postgresql", round(results["postgresql"][1]), "jobs/s", ">=", 500))
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
