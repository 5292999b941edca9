"""Group commit: writes ready at once share a transaction; each caller gets its own answer once
committed; a write the database refuses fails alone. And the worker's settles use it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from sqlalchemy import Connection, Engine, event, text

from ghapp.group_commit import GroupCommit
from ghapp.jobs import JobQueue, JobSpec, enqueue
from tests.support.events import heard

WAIT_S = 30.0


def _wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.001)


def _table(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE gc_rows (id INTEGER PRIMARY KEY, label VARCHAR(20))"))


def _insert(row_id: int) -> Callable[[Connection], int]:
    def work(conn: Connection) -> int:
        conn.execute(text("INSERT INTO gc_rows (id, label) VALUES (:id, 'row')"), {"id": row_id})
        return row_id * 10

    return work


def _run_together(
    group: GroupCommit[int], first: Callable[[Connection], int], rest: list[Callable[..., int]]
) -> list[int | BaseException]:
    """Start `first`, held in its transaction until the rest are waiting behind it, then the
    rest; answer each caller's value or exception, in order."""
    results: list[int | BaseException] = [0] * (1 + len(rest))

    def call(index: int, work: Callable[[Connection], int]) -> None:
        try:
            results[index] = group.write(work, order=str(index))
        except BaseException as exc:
            results[index] = exc

    gated = _gated(first, lambda: len(group._pending) == len(rest))
    threads = [threading.Thread(target=call, args=(0, gated))]
    threads[0].start()
    _wait_until(lambda: group._leading, "the first write to lead")
    for index, work in enumerate(rest, start=1):
        threads.append(threading.Thread(target=call, args=(index, work)))
        threads[-1].start()
    _wait_until(lambda: len(group._pending) == len(rest), "the other writes to wait")
    for thread in threads:
        thread.join(WAIT_S)
    return results


def _gated(work: Callable[[Connection], int], gate: Callable[[], bool]) -> Callable[..., int]:
    def gated(conn: Connection) -> int:
        _wait_until(gate, "the gate")
        return work(conn)

    return gated


def test_writes_waiting_together_share_one_commit_and_each_gets_its_answer(engine: Engine) -> None:
    _table(engine)
    group: GroupCommit[int] = GroupCommit(engine)
    commits: list[int] = []
    event.listen(engine, "commit", lambda _conn: commits.append(1))
    results = _run_together(group, _insert(1), [_insert(i) for i in range(2, 9)])
    assert results == [10, 20, 30, 40, 50, 60, 70, 80]
    # The first commits alone (the rest arrive while it is under way); the seven that waited
    # behind it commit together.
    assert len(commits) == 2 and group.transactions == 2
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM gc_rows")).scalar_one() == 8


def test_a_refused_write_fails_alone_and_the_rest_are_committed(engine: Engine) -> None:
    _table(engine)
    group: GroupCommit[int] = GroupCommit(engine)
    results = _run_together(group, _insert(1), [_insert(2), _insert(2), _insert(3)])
    # Rows 2 and 2 share a batch: the second is a duplicate key, so the batch is written one at
    # a time and only that write fails.
    assert results[0] == 10 and results[1] == 20 and results[3] == 30
    assert isinstance(results[2], Exception) and "gc_rows" in str(results[2]).lower()
    with engine.connect() as conn:
        ids = conn.execute(text("SELECT id FROM gc_rows ORDER BY id")).scalars().all()
    assert ids == [1, 2, 3]


def test_a_busy_group_keeps_its_connection_and_gives_it_back_when_idle(engine: Engine) -> None:
    """The leader hands its connection to the next leader while writes wait: two commits, one
    connection taken from the pool. With nothing waiting it goes back, and a failed shared
    transaction drops it: its writes are made again on connections taken (and checked) anew."""
    _table(engine)
    group: GroupCommit[int] = GroupCommit(engine)
    with heard(engine, "checkout") as taken:
        results = _run_together(group, _insert(1), [_insert(i) for i in range(2, 5)])
        assert results == [10, 20, 30, 40] and group.transactions == 2
        assert len(taken) == 1, "the second commit took a connection of its own"
        assert engine.pool.checkedout() == 0, "the idle group kept its connection"
        taken.clear()
        results = _run_together(group, _insert(5), [_insert(6), _insert(6), _insert(7)])
    assert results[0] == 50 and results[1] == 60 and results[3] == 70
    assert isinstance(results[2], Exception)
    # The first commit and the failed shared one on the held connection; each write of the failed
    # batch on one of its own.
    assert len(taken) == 1 + 3, taken
    assert engine.pool.checkedout() == 0
    assert group.write(_insert(8)) == 80


def test_an_error_raised_by_the_work_reaches_its_own_caller(engine: Engine) -> None:
    group: GroupCommit[int] = GroupCommit(engine)

    def refuse(conn: Connection) -> int:
        raise ValueError("not this one")

    with pytest.raises(ValueError, match="not this one"):
        group.write(refuse)
    assert group.write(lambda conn: conn.execute(text("SELECT 7")).scalar_one()) == 7


def test_jobs_settled_at_once_by_many_threads_are_each_done_once(engine: Engine) -> None:
    queue = JobQueue(engine, lease_ms=60_000, max_attempts=3)
    with engine.begin() as conn:
        enqueue(conn, [JobSpec("noop", serial_key=f"pr:{i}") for i in range(40)], now=0)
        enqueue(conn, [JobSpec("noop", serial_key=f"pr:{i}") for i in range(40)], now=0)
    claimed = queue.claim_many(40)
    assert len(claimed) == 40
    answers: list[bool] = []
    threads = [
        threading.Thread(target=lambda job=job: answers.append(queue.complete(job)))
        for job in claimed
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    assert answers == [True] * 40
    # Each finished head promoted its pull request's next job, and a second complete of the
    # same claim is refused (its lease is gone).
    assert queue.counts() == {"done": 40, "queued": 40}
    assert queue.complete(claimed[0]) is False
