"""Queue bar: the worker's jobs/s as a ratio of a bare durable loop on the same database.

Run: `python bench/jobqueue.py [--jobs 2000] [--rounds 3] [--postgres URL]`.

A queue's floor is its durable commits: a job is recorded (one commit) and its outcome is recorded
(another). The baseline is that and nothing else, on the same database with the same durability
(SQLite in WAL with synchronous=FULL, PostgreSQL with its default synchronous_commit): a loop of
`INSERT` one row, commit, `UPDATE … RETURNING` it, commit, on a table with no other column or
index. Beside it, in alternating rounds (so a slow minute of the machine falls on both): the
queue's own claim/complete loop, one job at a time, and the real worker (four at a time, batch
claims, payload read, handler, settle; on SQLite a completion claims its slot's next job)
draining the same number of jobs. Where the worker's time goes beyond the baseline is printed with
the figures: commits per job, and the time inside claims and completions.
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

from sqlalchemy import Connection, Engine, event, exists, select, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import pin, postgres_engine, ratio_bar  # noqa: E402
from ghapp.app import build_deps  # noqa: E402
from ghapp.db import make_engine, migrate  # noqa: E402
from ghapp.deliveries import UNFINISHED  # noqa: E402
from ghapp.deps import Deps  # noqa: E402
from ghapp.jobs import ClaimedJob, JobQueue, JobSpec, enqueue  # noqa: E402
from ghapp.router import Payload, Route, Router  # noqa: E402
from ghapp.settings import Settings  # noqa: E402
from ghapp.tables import Job  # noqa: E402
from ghapp.worker import Worker  # noqa: E402

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
# The bare loop makes two durable commits a job; the worker, whose settles share commits and, on
# SQLite, claim the next job in the same transaction, about half of one there and one on
# PostgreSQL (docs/performance.md, The queue).
RATIO_TARGET = 1.0


class Commits:
    """Counts the commits an engine makes (the unit a durable queue pays for)."""

    def __init__(self, engine: Engine) -> None:
        self.count = 0
        event.listen(engine, "commit", self._commit)

    def _commit(self, _conn: object) -> None:
        self.count += 1


def fill(engine: Engine, count: int) -> None:
    with engine.begin() as conn:
        enqueue(conn, [JobSpec("noop", serial_key=f"pr:1:{i % 50}") for i in range(count)], now=0)


def bare_table(engine: Engine) -> None:
    key = "BIGSERIAL" if engine.dialect.name == "postgresql" else "INTEGER"
    with engine.begin() as conn:
        conn.execute(
            text(f"CREATE TABLE bare_jobs (id {key} PRIMARY KEY, state TEXT NOT NULL, token TEXT)")
        )


def bare_loop(engine: Engine, count: int) -> float:
    """Jobs/s of the floor: INSERT + commit, UPDATE … RETURNING + commit, per job."""
    insert = text("INSERT INTO bare_jobs (state) VALUES ('queued') RETURNING id")
    settle = text("UPDATE bare_jobs SET state = 'done', token = :token WHERE id = :id RETURNING id")
    started = time.perf_counter()
    for index in range(count):
        with engine.begin() as conn:
            job_id = conn.execute(insert).scalar_one()
        with engine.begin() as conn:
            conn.execute(settle, {"id": job_id, "token": f"t{index}"}).scalar_one()
    return count / (time.perf_counter() - started)


def queue_loop(engine: Engine, count: int) -> float:
    """Jobs/s of the queue's own claim/complete, one job at a time (jobs enqueued before)."""
    queue = JobQueue(engine, lease_ms=60_000, max_attempts=3)
    fill(engine, count)
    started = time.perf_counter()
    done = 0
    while (job := queue.claim()) is not None:
        queue.complete(job)
        done += 1
    assert done == count, (done, count)
    return count / (time.perf_counter() - started)


# Whether any job is left to run: one probe of the claim index, so that watching for the end
# costs the worker next to nothing (a count of every job by state, 50 times a second, cost it 6 %
# of its CPU on PostgreSQL).
LEFT_TO_RUN = select(exists().where(Job.state.in_([state.value for state in UNFINISHED])))


def unfinished(engine: Engine) -> bool:
    with engine.connect() as conn:
        return bool(conn.execute(LEFT_TO_RUN).scalar_one())


def worker_loop(deps: Deps, router: Router, count: int, concurrency: int) -> float:
    """Jobs/s of the real worker draining `count` jobs enqueued before it starts."""
    worker = Worker(deps, router, concurrency=concurrency)
    before = deps.queue.counts().get("done", 0)
    fill(deps.engine, count)

    async def run() -> None:
        task = asyncio.create_task(worker.run())
        while await asyncio.to_thread(unfinished, deps.engine):
            if task.done():  # the worker failed: its error, not a wait without end
                await task
            await asyncio.sleep(0.02)
        worker.stop()
        await task

    started = time.perf_counter()
    asyncio.run(run())
    elapsed = time.perf_counter() - started
    assert deps.queue.counts().get("done", 0) == before + count
    return count / elapsed


class Timed:
    """Wall time spent inside the queue's claims and completions (across the worker's threads),
    and how many completions claimed the next job in their own transaction (SQLite)."""

    def __init__(self, queue: JobQueue) -> None:
        self.seconds = {"claim": 0.0, "complete": 0.0}
        self.calls = {"claim": 0, "complete": 0}
        self.chained = 0
        claim, complete, chain = queue.claim_many, queue.complete, queue.complete_and_claim

        def timed_claim(limit: int, *, on: Connection | None = None) -> list[ClaimedJob]:
            started = time.perf_counter()
            try:
                return claim(limit, on=on)
            finally:
                self._add("claim", started)

        def timed_complete(job: ClaimedJob, *, note: str | None = None) -> bool:
            started = time.perf_counter()
            try:
                return complete(job, note=note)
            finally:
                self._add("complete", started)

        def timed_chain(job: ClaimedJob, limit: int) -> list[ClaimedJob]:
            started = time.perf_counter()
            try:
                following = chain(job, limit)
                self.chained += len(following)
                return following
            finally:
                self._add("complete", started)

        queue.claim_many = timed_claim  # type: ignore[method-assign]
        queue.complete = timed_complete  # type: ignore[method-assign]
        queue.complete_and_claim = timed_chain  # type: ignore[method-assign]

    def _add(self, name: str, started: float) -> None:
        self.seconds[name] += time.perf_counter() - started
        self.calls[name] += 1


def measure(engine: Engine, url: str, jobs: int, rounds: int, concurrency: int) -> dict[str, float]:
    async def noop(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
        return None

    router = Router([Route(event="bench", actions=None, kind="noop", handler=noop)])
    deps = build_deps(Settings(database_url=url), engine=engine)
    timed = Timed(deps.queue)
    commits = Commits(engine)
    bare_table(engine)
    bare_loop(engine, min(jobs, 500))  # warm-up: the WAL file grows once, not inside a round
    runs: dict[str, list[float]] = {"bare": [], "queue": [], "worker": []}
    worker_commits = 0
    for _ in range(rounds):
        runs["bare"].append(bare_loop(engine, jobs))
        runs["queue"].append(queue_loop(engine, jobs))
        before = commits.count
        runs["worker"].append(worker_loop(deps, router, jobs, concurrency))
        worker_commits += commits.count - before
    figures = {name: statistics.median(values) for name, values in runs.items()}
    figures["worker_commits_per_job"] = worker_commits / (jobs * rounds)
    figures["claim_ms"] = 1000 * timed.seconds["claim"] / max(1, timed.calls["claim"])
    figures["complete_ms"] = 1000 * timed.seconds["complete"] / max(1, timed.calls["complete"])
    figures["jobs_per_claim"] = (timed.calls["complete"] - timed.chained) / max(
        1, timed.calls["claim"]
    )
    figures["chained"] = timed.chained / max(1, timed.calls["complete"])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=2000, help="jobs per round and side")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--postgres", default=os.environ.get("HINDSIGHT_TEST_DATABASE_URL", DEFAULT_POSTGRES)
    )
    args = parser.parse_args()
    pin(0)
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'queue.db'}"
        engine = make_engine(url)
        migrate(engine)
        results["sqlite"] = measure(engine, url, args.jobs, args.rounds, args.concurrency)
        engine.dispose()
    made = postgres_engine(args.postgres) if args.postgres else None
    if made is not None:
        engine, url, schema = made
        migrate(engine)
        results["postgresql"] = measure(engine, url, args.jobs, args.rounds, args.concurrency)
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()
    print(
        f"queue: {args.jobs} jobs a side, median of {args.rounds} alternating rounds, "
        f"worker concurrency {args.concurrency}, one core"
    )
    lines = []
    for name, f in results.items():
        print(
            f"  {name:<10}: bare INSERT/UPDATE … RETURNING loop {f['bare']:,.0f} jobs/s "
            f"(2 commits a job); queue claim/complete loop {f['queue']:,.0f} jobs/s; "
            f"worker {f['worker']:,.0f} jobs/s"
        )
        print(
            f"  {'':<10}  worker: {f['worker_commits_per_job']:.2f} commits a job, "
            f"{f['chained']:.0%} of its jobs claimed by the completion before them, the rest "
            f"{f['jobs_per_claim']:.2f} a claim; claim {f['claim_ms']:.2f} ms, "
            f"complete {f['complete_ms']:.2f} ms (lock wait included)"
        )
        lines.append(
            ratio_bar(f"queue-{name}-vs-bare", f["worker"], f["bare"], "jobs/s", ">=", RATIO_TARGET)
        )
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
