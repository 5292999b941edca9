"""The durable job queue: leases, retries, dead jobs, per-PR order, and crash recovery."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, select, update

from ghapp.app import build_deps
from ghapp.cli import main as cli_main
from ghapp.deps import Deps
from ghapp.github.errors import Gone, RetryAt, Transient
from ghapp.jobs import ClaimedJob, JobQueue, JobSpec, backoff_ms, enqueue
from ghapp.router import Payload, Route, Router
from ghapp.settings import Settings
from ghapp.tables import Job, JobState
from ghapp.worker import Worker
from tests.support.events import heard
from tests.support.web import wait_for

ROOT = Path(__file__).resolve().parents[2]
FAR_FUTURE = datetime.datetime(2100, 1, 1, tzinfo=datetime.UTC)


class FakeClock:
    """A settable clock in milliseconds (the queue never sleeps; time only moves when told)."""

    def __init__(self, start: int = 1_700_000_000_000) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now


def add(engine: Engine, *specs: JobSpec, now: int) -> None:
    with engine.begin() as conn:
        enqueue(conn, specs, now=now)


def state_of(engine: Engine, job_id: int) -> Job:
    with engine.connect() as conn:
        return conn.execute(select(Job).where(Job.id == job_id)).one()  # type: ignore[return-value]


def test_claim_complete_and_lease_token_check(engine: Engine) -> None:
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=1000, max_attempts=3, clock=clock)
    add(engine, JobSpec("a"), now=clock.now)
    job = queue.claim()
    assert job is not None and job.attempts == 1
    assert queue.claim() is None  # leased: nobody else gets it
    stale = dataclasses.replace(job, lease_token="0" * 32)
    assert not queue.complete(stale)
    assert queue.complete(job)
    assert state_of(engine, job.id).state == JobState.DONE
    assert not queue.complete(job)  # the lease is gone once settled


def test_expired_lease_is_reclaimed_and_old_holder_cannot_finish(engine: Engine) -> None:
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=1000, max_attempts=3, clock=clock)
    add(engine, JobSpec("a"), now=clock.now)
    first = queue.claim()
    assert first is not None
    clock.now += 999
    assert queue.claim() is None
    clock.now += 2
    second = queue.claim()
    assert second is not None and second.id == first.id and second.attempts == 2
    assert not queue.complete(first)
    assert queue.complete(second)


def test_failures_back_off_then_park_dead_and_retry_requeues(engine: Engine) -> None:
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=1000, max_attempts=2, clock=clock)
    add(engine, JobSpec("a"), now=clock.now)
    job = queue.claim()
    assert job is not None
    queue.fail(job, "boom")
    row = state_of(engine, job.id)
    assert row.state == JobState.QUEUED and row.run_after_ms > clock.now
    assert queue.claim() is None  # not due until the backoff passes
    clock.now = row.run_after_ms
    job = queue.claim()
    assert job is not None and job.attempts == 2
    queue.fail(job, "boom again")
    assert state_of(engine, job.id).state == JobState.DEAD
    assert queue.retry([job.id]) == 1
    again = queue.claim()
    assert again is not None and again.attempts == 1


def test_backoff_grows_and_is_capped() -> None:
    import random

    rng = random.Random(7)
    assert 1000 <= backoff_ms(1, rng=rng) <= 2000
    assert 4000 <= backoff_ms(3, rng=rng) <= 8000
    assert backoff_ms(40, rng=rng) <= 15 * 60_000


def test_reschedule_does_not_spend_an_attempt(engine: Engine) -> None:
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=1000, max_attempts=1, clock=clock)
    add(engine, JobSpec("a"), now=clock.now)
    job = queue.claim()
    assert job is not None
    queue.reschedule(job, clock.now + 60_000, "rate limited")
    row = state_of(engine, job.id)
    assert (row.state, row.attempts, row.run_after_ms) == ("queued", 0, clock.now + 60_000)
    clock.now += 60_000
    assert queue.claim() is not None


def queue_of(engine: Engine, *kinds: tuple[str, str]) -> JobQueue:
    """A queue holding a job of each ``(kind, serial key)``, enqueued in that order."""
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=1000, max_attempts=3, clock=clock)
    add(engine, *(JobSpec(kind, serial_key=key) for kind, key in kinds), now=clock.now)
    return queue


def test_jobs_of_one_pull_request_run_one_at_a_time_in_order(engine: Engine) -> None:
    queue = queue_of(engine, ("writeback", "pr:1:7"), ("review", "pr:1:7"), ("other", "pr:1:8"))
    first = queue.claim()
    second = queue.claim()
    assert first is not None and second is not None
    assert (first.kind, second.kind) == ("writeback", "other")
    assert queue.claim() is None  # "review" waits for "writeback"
    queue.complete(first)
    third = queue.claim()
    assert third is not None and third.kind == "review"


def test_finishing_a_head_promotes_its_follower_in_two_statements(engine: Engine) -> None:
    """A settle that promotes is the finish and one promotion (on PostgreSQL the finish also
    takes the key's lock): no separate reads of the head and of the next job."""
    queue = queue_of(engine, ("writeback", "pr:1:7"), ("review", "pr:1:7"), ("later", "pr:1:7"))
    head = queue.claim()
    assert head is not None and head.kind == "writeback"
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, sql: str, *_rest: object) -> None:
        statements.append(sql)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        assert queue.complete(head)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert len(statements) == 2 and all("UPDATE jobs" in sql for sql in statements), statements
    assert ("pg_advisory_xact_lock" in statements[0]) == (engine.dialect.name == "postgresql")
    with engine.connect() as conn:
        states = dict(conn.execute(select(Job.kind, Job.state)).all())
    assert states == {"writeback": "done", "review": "queued", "later": "waiting"}
    second = queue.claim()
    assert second is not None and second.kind == "review"
    assert queue.claim() is None  # "later" waits behind "review"
    assert queue.fail(second, "boom")  # a retry keeps its key's head: nothing is promoted
    with engine.connect() as conn:
        states = dict(conn.execute(select(Job.kind, Job.state)).all())
    assert states == {"writeback": "done", "review": "queued", "later": "waiting"}


def test_a_completion_on_sqlite_claims_the_next_job_in_its_own_transaction(
    engine: Engine,
) -> None:
    """On SQLite the follower its finish promotes is claimed by the same transaction, under a
    lease of its own; on PostgreSQL the completion claims nothing (the worker claims apart)."""
    queue = queue_of(engine, ("writeback", "pr:1:7"), ("review", "pr:1:7"), ("later", "pr:1:7"))
    head = queue.claim()
    assert head is not None
    with heard(engine, "commit") as commits:
        following = queue.complete_and_claim(head, 1)
    assert len(commits) == 1
    with engine.connect() as conn:
        states = dict(conn.execute(select(Job.kind, Job.state)).all())
    if engine.dialect.name != "sqlite":
        assert following == []
        assert states == {"writeback": "done", "review": "queued", "later": "waiting"}
        return
    (review,) = following
    assert review.kind == "review" and review.attempts == 1
    assert review.lease_token != head.lease_token
    assert states == {"writeback": "done", "review": "running", "later": "waiting"}
    assert queue.claim() is None  # "later" waits behind the running "review"
    assert not queue.complete_and_claim(head, 1), "a lost lease completes nothing"
    assert queue.complete_and_claim(review, 1)[0].kind == "later"


def one_slot_worker_of_ten(
    engine: Engine, database_url: str, key_of: Callable[[int], str]
) -> tuple[Worker, list[int]]:
    """A worker of one slot and ten jobs, the nth on the serial key `key_of(n)`; it stops after
    running the tenth. Answers it and the ids of the jobs it ran, in order."""
    ran: list[int] = []

    async def handler(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
        ran.append(job.id)
        if len(ran) == 10:
            worker.stop()

    worker = worker_for(engine, database_url, handler)
    worker.concurrency = 1
    add(engine, *[JobSpec("t", serial_key=key_of(number)) for number in range(10)], now=0)
    return worker, ran


@pytest.mark.parametrize("until_idle", [False, True], ids=["run", "until-idle"])
def test_a_worker_on_sqlite_runs_a_line_of_jobs_with_a_commit_each(
    engine: Engine, database_url: str, until_idle: bool
) -> None:
    """Ten jobs of one pull request, one slot: each completion claims the next, so the worker
    commits once a job, not twice (a claim and a completion)."""
    worker, ran = one_slot_worker_of_ten(engine, database_url, lambda _number: "pr:1:7")
    with heard(engine, "commit") as commits:
        if until_idle:
            assert asyncio.run(worker.run_until_idle()) == 10
        else:
            asyncio.run(worker.run())
    assert ran == sorted(ran) and len(set(ran)) == 10
    with engine.connect() as conn:
        assert set(conn.execute(select(Job.state)).scalars()) == {"done"}
    # A claim to start and ten completions; on PostgreSQL a claim of its own after each of the
    # first nine. The last completion is made as the worker stops: it claims nothing, and
    # `run_until_idle` then claims once more to find nothing due.
    claims = 1 + (9 if engine.dialect.name == "postgresql" else 0) + (1 if until_idle else 0)
    assert len(commits) == claims + 10


def test_a_job_enqueued_while_its_head_finishes_does_not_wait_for_good(engine: Engine) -> None:
    """The enqueue sees the head still running and holds its transaction open; the head finishes
    meanwhile. Whichever commits first, the new job ends up the head of its key."""
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=60_000, max_attempts=3, clock=clock)
    add(engine, JobSpec("writeback", serial_key="pr:1:7"), now=clock.now)
    head = queue.claim()
    assert head is not None
    inserted, finished = threading.Event(), threading.Event()

    def enqueue_slowly() -> None:
        with engine.begin() as conn:
            enqueue(conn, [JobSpec("review", serial_key="pr:1:7")], now=clock.now)
            inserted.set()
            finished.wait(timeout=1.0)  # the head finishes while this is not committed yet

    writer = threading.Thread(target=enqueue_slowly)
    writer.start()
    assert inserted.wait(timeout=10)
    finishing = threading.Thread(target=lambda: (queue.complete(head), finished.set()))
    finishing.start()
    writer.join(timeout=30)
    finishing.join(timeout=30)
    with engine.connect() as conn:
        states = dict(conn.execute(select(Job.kind, Job.state)).all())
    assert states == {"writeback": "done", "review": "queued"}
    follower = queue.claim()
    assert follower is not None and follower.kind == "review"


def test_concurrent_claimers_never_share_a_job(engine: Engine) -> None:
    queue = JobQueue(engine, lease_ms=60_000, max_attempts=3)
    add(engine, *[JobSpec("a") for _ in range(200)], now=0)
    claimed: list[int] = []
    lock = threading.Lock()

    def claimer() -> None:
        while (job := queue.claim()) is not None:
            with lock:
                claimed.append(job.id)
            queue.complete(job)

    threads = [threading.Thread(target=claimer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == sorted(set(claimed))
    assert len(claimed) == 200


def worker_for(engine: Engine, database_url: str, handler: object, **settings: object) -> Worker:
    router = Router([Route(event="t", actions=None, kind="t", handler=handler)])  # type: ignore[arg-type]
    deps = build_deps(Settings(database_url=database_url, **settings), engine=engine)  # type: ignore[arg-type]
    return Worker(deps, router, concurrency=2)


@pytest.mark.parametrize(
    ("error", "state", "attempts_left_counted"),
    [
        (Transient("502 from GitHub"), JobState.QUEUED, True),
        (RetryAt(FAR_FUTURE, "secondary rate limit"), JobState.QUEUED, False),
        (Gone("comment 5"), JobState.DONE, True),
        (RuntimeError("a bug"), JobState.QUEUED, True),
        (KeyError("pull_request"), JobState.DEAD, True),
        (json.JSONDecodeError("Expecting value", "<html>", 0), JobState.QUEUED, True),
    ],
    ids=["transient", "retry-at", "gone", "crash", "payload-shape", "garbled-answer"],
)
def test_worker_settles_each_outcome(
    engine: Engine,
    database_url: str,
    error: Exception,
    state: JobState,
    attempts_left_counted: bool,
) -> None:
    async def handler(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
        raise error

    worker = worker_for(engine, database_url, handler)
    add(engine, JobSpec("t"), now=0)
    assert asyncio.run(worker.run_until_idle()) == 1
    with engine.connect() as conn:
        row = conn.execute(select(Job)).one()
    assert row.state == state
    assert row.attempts == (1 if attempts_left_counted else 0)
    if isinstance(error, RetryAt):
        assert row.run_after_ms == 4102444800000


def test_a_job_with_no_delivery_whose_leases_ran_out_is_parked_without_running(
    engine: Engine, database_url: str
) -> None:
    ran: list[int] = []

    async def handler(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
        ran.append(job.id)

    worker = worker_for(engine, database_url, handler, job_max_attempts=2)
    add(engine, JobSpec("t"), JobSpec("t"), now=0)
    with (
        engine.begin() as conn
    ):  # the first one's holders died twice: its third claim is one too many
        conn.execute(update(Job).where(Job.id == 1).values(attempts=2))
    assert asyncio.run(worker.run_until_idle()) == 2
    assert ran == [2]
    parked = state_of(engine, 1)
    assert parked.state == JobState.DEAD and parked.last_error == "its lease expired too often"
    assert state_of(engine, 2).state == JobState.DONE


def test_suspended_installation_holds_jobs_until_unsuspended(
    engine: Engine, database_url: str
) -> None:
    from continual.tables import Account
    from ghapp.tables import Installation

    ran: list[int] = []

    async def handler(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
        ran.append(job.id)

    with engine.begin() as conn:
        conn.execute(
            Account.__table__.insert(), {"id": 1, "login": "o", "type": "User", "created_ms": 0}
        )
        conn.execute(
            Installation.__table__.insert(),
            {"id": 9, "account_id": 1, "created_ms": 0, "suspended_ms": 5},
        )
    add(engine, JobSpec("t", installation_id=9), now=0)
    worker = worker_for(engine, database_url, handler)
    asyncio.run(worker.run_until_idle())
    with engine.connect() as conn:
        assert conn.execute(select(Job.state)).scalar_one() == JobState.HELD
    assert ran == []
    with engine.begin() as conn:
        JobQueue.release_installation(conn, 9, now=0)
        conn.execute(Installation.__table__.update().values(suspended_ms=None))
    asyncio.run(worker.run_until_idle())
    assert len(ran) == 1


def test_worker_killed_mid_job_is_reclaimed_and_completes_once(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    """A real worker process is killed with SIGKILL while it runs a job; another finishes it."""
    add(engine, JobSpec("test.block"), now=0)
    log_path = tmp_path / "jobs.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # Run as a module from the root: as a script, tests/support/ would shadow the packages.
    script = ["-m", "tests.support.worker_proc"]
    victim = subprocess.Popen(
        [sys.executable, *script, database_url, str(log_path), "60"], env=env, cwd=ROOT
    )
    try:
        wait_for(lambda: log_path.exists() and "start" in log_path.read_text(), what="job start")
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
    finally:
        if victim.poll() is None:
            victim.kill()
    with engine.connect() as conn:
        assert conn.execute(select(Job.state)).scalar_one() == JobState.RUNNING

    # The lease (1 s) must run out before a second worker may take the job over.
    def finished() -> bool:
        subprocess.run(
            [sys.executable, *script, database_url, str(log_path), "0"],
            env=env,
            check=True,
            cwd=ROOT,
        )
        return "done" in log_path.read_text()

    wait_for(finished, timeout=30, what="the job to be reclaimed")
    lines = log_path.read_text().splitlines()
    assert Counter(line.split()[0] for line in lines) == {"start": 2, "done": 1}
    with engine.connect() as conn:
        row = conn.execute(select(Job)).one()
    assert (row.state, row.attempts) == (JobState.DONE, 2)


def test_jobs_cli_lists_and_retries_dead_jobs(
    engine: Engine,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    queue = JobQueue(engine, lease_ms=1000, max_attempts=1)
    add(engine, JobSpec("doomed"), now=0)
    job = queue.claim()
    assert job is not None
    queue.fail(job, "it broke")
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", database_url)
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    assert cli_main(["jobs", "list", "--state", "dead"]) == 0
    out = capsys.readouterr().out
    assert "dead" in out and "doomed" in out and "it broke" in out
    assert cli_main(["jobs", "retry", str(job.id)]) == 0
    assert "requeued 1" in capsys.readouterr().out
    assert state_of(engine, job.id).state == JobState.QUEUED


def test_a_burst_of_coalescing_jobs_makes_one_delayed_job_per_pull_request(engine: Engine) -> None:
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=1000, max_attempts=3, clock=clock)
    family = frozenset({"wb.reply", "wb.pull"})
    reply = JobSpec("wb.reply", "pr:1:7", coalesce_with=family, delay_ms=2000)
    for _ in range(20):  # twenty replies within the window, one delivery each
        add(engine, reply, now=clock.now)
    add(engine, dataclasses.replace(reply, serial_key="pr:1:8"), now=clock.now)
    add(engine, JobSpec("review", "pr:1:7"), now=clock.now)  # not of the family: always created
    with engine.connect() as conn:
        kinds = Counter(conn.execute(select(Job.serial_key, Job.kind)).all())
    assert kinds == {("pr:1:7", "wb.reply"): 1, ("pr:1:8", "wb.reply"): 1, ("pr:1:7", "review"): 1}
    assert queue.claim() is None  # the write-backs wait out the window; the review waits behind
    clock.now += 2000
    first = queue.claim()
    assert first is not None and first.kind == "wb.reply"


def test_a_started_job_does_not_absorb_a_later_event(engine: Engine) -> None:
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=60_000, max_attempts=3, clock=clock)
    family = frozenset({"wb.reply"})
    reply = JobSpec("wb.reply", "pr:1:7", coalesce_with=family)
    add(engine, reply, now=clock.now)
    running = queue.claim()
    assert running is not None
    # It may have read the thread already: the next reply needs a run of its own (one, however
    # many replies follow before that run starts).
    add(engine, reply, now=clock.now)
    add(engine, reply, now=clock.now)
    with engine.connect() as conn:
        states = sorted(conn.execute(select(Job.state).where(Job.kind == "wb.reply")).scalars())
    assert states == [JobState.RUNNING, JobState.WAITING]


def test_a_jobs_error_is_kept_with_its_secrets_redacted(engine: Engine) -> None:
    clock = FakeClock()
    queue = JobQueue(engine, lease_ms=1000, max_attempts=2, clock=clock)
    add(engine, JobSpec("a"), now=clock.now)
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    job = queue.claim()
    assert job is not None
    assert queue.fail(job, f"payload: KeyError: the answer quoted {key}")
    kept = state_of(engine, job.id).last_error
    assert kept is not None and key not in kept
    assert "[redacted aws-access-key]" in kept


def test_a_handler_receives_its_routes_shape_and_a_body_without_it_parks_dead(
    engine: Engine, database_url: str
) -> None:
    """The worker parses the delivery with the route's shape once; the handler reads typed
    fields. A stored body without the shape (kept from before the shape asked for a field) is
    parked dead at once, the handler never called."""
    from ghapp.envelopes import PullRequestEvent
    from ghapp.jobs import insert_jobs, job_rows
    from ghapp.tables import Delivery

    seen: list[object] = []

    async def handler(deps: Deps, job: ClaimedJob, event: PullRequestEvent) -> None:
        seen.append((event.pull_request.number, event.repository.full_name))

    route = Route(event="pull_request", actions=None, kind="t", handler=handler)
    route = dataclasses.replace(route, shape=PullRequestEvent)
    deps = build_deps(Settings(database_url=database_url), engine=engine)
    worker = Worker(deps, Router([route]), concurrency=1)
    good = {
        "action": "opened",
        "repository": {"id": 1, "full_name": "o/r"},
        "pull_request": {"number": 7},
    }
    bodies = {"good": good, "bad": {**good, "pull_request": {"number": "seven"}}}
    with engine.begin() as conn:
        for name, body in bodies.items():
            text = json.dumps(body)
            conn.execute(
                Delivery.__table__.insert(),
                {"id": name, "body_sha256": name, "event": "pull_request", "action": "opened",
                 "received_ms": 0, "body": text},
            )  # fmt: skip
            insert_jobs(conn, job_rows([JobSpec("t")], delivery_id=name, now=0))
    assert asyncio.run(worker.run_until_idle()) == 2
    assert seen == [(7, "o/r")]
    with engine.connect() as conn:
        states = {row.delivery_id: row.state for row in conn.execute(select(Job))}
        error = conn.execute(select(Job.last_error).where(Job.delivery_id == "bad")).scalar_one()
    assert states == {"good": JobState.DONE, "bad": JobState.DEAD}
    assert error is not None
    assert error.startswith("payload: BadPayload: the pull_request payload is malformed")


def test_jobs_inserted_on_sqlites_driver_keep_the_callers_transaction_and_errors(
    engine: Engine,
) -> None:
    """On SQLite the driver runs the insert of jobs (`Prepared.run_many`): on a connection with no
    transaction it begins one that the caller commits or drops, and a row the database refuses
    raises SQLAlchemy's `IntegrityError`, naming no value of the rows."""
    from sqlalchemy.exc import IntegrityError

    from ghapp.jobs import insert_jobs, job_rows

    if engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL's jobs are inserted through SQLAlchemy")
    rows = job_rows([JobSpec("t", serial_key="pr:1:1")], delivery_id=None, now=0)
    with engine.connect() as conn:
        assert insert_jobs(conn, [dict(row) for row in rows]) == 1
        assert conn.in_transaction()
    with engine.connect() as conn:  # the first connection closed without committing
        assert conn.execute(select(Job.id)).all() == []
        insert_jobs(conn, [dict(row) for row in rows])
        conn.commit()
    orphan = job_rows(
        [JobSpec("t", serial_key="secret-key-value")], delivery_id="no-such-delivery", now=0
    )
    with pytest.raises(IntegrityError) as refused, engine.begin() as conn:
        insert_jobs(conn, orphan)
    assert "FOREIGN KEY" in str(refused.value)
    assert "secret-key-value" not in str(refused.value)
    assert "no-such-delivery" not in str(refused.value)
    with engine.connect() as conn:
        assert [row.state for row in conn.execute(select(Job))] == [JobState.QUEUED]


def test_on_postgresql_a_claim_commits_without_waiting_for_its_flush_and_a_settle_waits(
    engine: Engine,
) -> None:
    """A claim a server crash loses only leaves its job to run again, so on PostgreSQL it does not
    wait for the disk; the settle, the job's outcome, does (and flushes the claim with it)."""
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite's durability is the connection's (synchronous=FULL)")
    queue = queue_of(engine, ("review", "pr:1:1"), ("later", "pr:1:1"))
    at_commit: list[str] = []

    def seen(conn: object) -> None:
        setting = conn.exec_driver_sql("SHOW synchronous_commit").scalar_one()  # type: ignore[attr-defined]
        at_commit.append(setting)

    event.listen(engine, "commit", seen)
    try:
        head = queue.claim()
        assert head is not None and head.kind == "review"
        assert queue.complete(head)
        following = queue.claim()
        assert following is not None and following.kind == "later"
        assert queue.fail(following, "boom")
    finally:
        event.remove(engine, "commit", seen)
    assert at_commit == ["off", "on", "off", "on"]
    with engine.connect() as conn:
        states = dict(conn.execute(select(Job.kind, Job.state)).all())
        attempts = dict(conn.execute(select(Job.kind, Job.attempts)).all())
    assert states == {"review": "done", "later": "queued"}
    assert attempts == {"review": 1, "later": 1}


def test_a_worker_claims_on_one_connection_it_keeps_and_gives_back_when_it_stops(
    engine: Engine, database_url: str
) -> None:
    """Claims go through the connection the worker keeps for its run, not one from the pool each
    (on PostgreSQL each of those cost a ping); stopped, the worker holds no connection."""
    worker, ran = one_slot_worker_of_ten(engine, database_url, lambda number: f"pr:1:{number}")
    with heard(engine, "checkout") as taken:
        asyncio.run(worker.run())
    assert len(ran) == 10
    # The kept connection, then one for each settle (the worker runs one job at a time, so no
    # settle waits for another); the claims after the first settle take none.
    assert len(taken) == 1 + 10, len(taken)
    assert engine.pool.checkedout() == 0


def test_a_claim_on_a_kept_connection_the_server_dropped_is_made_on_another(
    engine: Engine,
) -> None:
    """The pool pings a connection it hands out; a kept one is not pinged. When the server has
    dropped it, the claim is made on a connection from the pool and the kept one reconnects."""
    if engine.dialect.name != "postgresql":
        pytest.skip("a SQLite connection is a file: no server drops it")
    from sqlalchemy import text

    queue = queue_of(engine, ("first", "pr:1:1"), ("second", "pr:1:2"), ("third", "pr:1:3"))
    kept = engine.connect()
    try:
        first = queue.claim_many(1, on=kept)
        assert [job.kind for job in first] == ["first"]
        pid = kept.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        kept.rollback()
        with engine.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        second = queue.claim_many(1, on=kept)
        assert [job.kind for job in second] == ["second"]
        third = queue.claim_many(1, on=kept)  # the kept connection, connected anew
        assert [job.kind for job in third] == ["third"]
        assert kept.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() != pid
    finally:
        kept.close()
