"""The delivery writer called directly: a batch is deduplicated by its own insert, replays in and
across batches are duplicates that make no job, and a batch costs the same statements however
many deliveries it holds."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import replace

from sqlalchemy import Engine, select

from ghapp.ingress import DeliveryWriter, Incoming, Recorded, Unstorable
from ghapp.jobs import JobSpec
from ghapp.tables import Delivery, Job, JobState
from tests.support.events import heard, statements_run

NEW = Recorded(duplicate=False, jobs=1)
DUPLICATE = Recorded(duplicate=True, jobs=0)


def incoming(
    pull: int, *, delivery_id: str | None = None, body_sha256: str | None = None
) -> Incoming:
    return Incoming(
        delivery_id=delivery_id or str(uuid.uuid4()),
        body_sha256=body_sha256 or uuid.uuid4().hex * 2,
        event="pull_request",
        action="synchronize",
        installation_id=77,
        body=json.dumps({"number": pull}),
        jobs=(JobSpec("pull_request.review", serial_key=f"pr:1:{pull}"),),
    )


def write_as_one_batch(
    engine: Engine, batch: Sequence[Incoming]
) -> tuple[list[Recorded], list[int]]:
    """Queue the whole batch before the writer starts, so that one transaction takes it."""
    commits: list[int] = []
    writer = DeliveryWriter(engine, on_commit=commits.append)
    futures: list[Future[Recorded]] = [writer.submit(item) for item in batch]
    writer.start()
    try:
        return [future.result(timeout=30) for future in futures], commits
    finally:
        writer.stop()


def job_states(engine: Engine) -> dict[str, str]:
    with engine.connect() as conn:
        rows = conn.execute(select(Job.delivery_id, Job.state).order_by(Job.id))
        return {str(delivery): state for delivery, state in rows}


def test_replays_within_and_across_batches_are_duplicates_and_make_no_job(
    engine: Engine,
) -> None:
    first, second = incoming(1), incoming(2)
    assert write_as_one_batch(engine, [first, second]) == ([NEW, NEW], [2])
    fresh, other = incoming(3), incoming(4)
    batch = [
        fresh,
        incoming(1, delivery_id=first.delivery_id, body_sha256=first.body_sha256),  # redelivered
        incoming(2, body_sha256=second.body_sha256),  # the same body under a new id
        other,
        incoming(5, delivery_id=other.delivery_id),  # an id taken earlier in this batch
        incoming(6, body_sha256=fresh.body_sha256),  # a body taken earlier in this batch
    ]
    outcomes, commits = write_as_one_batch(engine, batch)
    assert outcomes == [NEW, DUPLICATE, DUPLICATE, NEW, DUPLICATE, DUPLICATE]
    assert commits == [2]
    with engine.connect() as conn:
        stored = set(conn.execute(select(Delivery.id)).scalars())
    assert stored == {first.delivery_id, second.delivery_id, fresh.delivery_id, other.delivery_id}
    assert set(job_states(engine)) == stored


def test_jobs_of_one_pull_request_wait_behind_its_head_within_a_batch_and_across(
    engine: Engine,
) -> None:
    head, behind, elsewhere = incoming(1), incoming(1), incoming(2)
    write_as_one_batch(engine, [head, behind, elsewhere])
    assert job_states(engine) == {
        head.delivery_id: JobState.QUEUED,
        behind.delivery_id: JobState.WAITING,
        elsewhere.delivery_id: JobState.QUEUED,
    }
    with engine.begin() as conn:
        conn.execute(Job.__table__.update().values(state=JobState.RUNNING.value))
        conn.execute(
            Job.__table__.update()
            .where(Job.delivery_id == elsewhere.delivery_id)
            .values(state=JobState.DONE.value)
        )
    later, after_done = incoming(1), incoming(2)
    write_as_one_batch(engine, [later, after_done])
    states = job_states(engine)
    assert states[later.delivery_id] == JobState.WAITING, "its pull request has a job running"
    assert states[after_done.delivery_id] == JobState.QUEUED, "its pull request's job is done"


def test_a_batch_of_new_deliveries_reads_nothing_and_inserts_each_row_once(
    engine: Engine,
) -> None:
    """Deduplication is the insert itself and a job's place behind its key is decided by its own
    insert: a batch of new deliveries is one transaction of inserts. On PostgreSQL the batch is two
    statements (and its key's lock) for one delivery as for twelve."""
    with statements_run(engine) as statements:
        write_as_one_batch(engine, [incoming(1)])
        one = list(statements)
        statements.clear()
        outcomes, _ = write_as_one_batch(engine, [incoming(1) for _ in range(12)])
        twelve = list(statements)
    assert outcomes == [NEW] * 12
    if engine.dialect.name == "postgresql":
        assert len(one) == len(twelve) == 3, twelve
        return
    for ran, size in ((one, 1), (twelve, 12)):
        kinds = [" ".join(sql.split()[:3]) for sql in ran]
        expected = ["BEGIN IMMEDIATE"]
        expected += ["INSERT INTO deliveries"] * size + ["INSERT INTO jobs"] * size + ["COMMIT"]
        assert kinds == expected, ran


def test_on_sqlite_the_writer_keeps_one_connection_through_batches_and_failures(
    engine: Engine,
) -> None:
    """The writer thread takes one connection for its life on SQLite; a batch the database refuses
    (written again row by row) leaves it writing the next batches. On PostgreSQL each batch takes
    a connection from the pool."""
    writer = DeliveryWriter(engine)
    with heard(engine, "checkout") as checkouts:
        writer.start()
        try:
            first = [writer.submit(incoming(number)) for number in range(1, 4)]
            assert [future.result(timeout=30) for future in first] == [NEW] * 3
            refused = writer.submit(replace(incoming(4), installation_id=2**63))
            assert isinstance(refused.exception(timeout=30), Unstorable)
            later = [writer.submit(incoming(number)) for number in range(5, 8)]
            assert [future.result(timeout=30) for future in later] == [NEW] * 3
        finally:
            writer.stop()
    if engine.dialect.name == "sqlite":
        assert len(checkouts) == 1, checkouts
    else:
        assert len(checkouts) >= 3, checkouts
    assert len(job_states(engine)) == 6
