"""The durable job queue: enqueue with a delivery, claim under a lease, finish, retry or park."""

from __future__ import annotations

import functools
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from sqlalchemy import (
    Connection,
    Engine,
    Update,
    bindparam,
    case,
    func,
    insert,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.elements import BindParameter

from continual.prepared import Prepared
from continual.secrets import redact
from ghapp.db import reading
from ghapp.group_commit import GroupCommit
from ghapp.tables import Job, JobState

if TYPE_CHECKING:
    from ghapp.settings import Settings

log = logging.getLogger(__name__)

Clock = Callable[[], int]

BACKOFF_BASE_MS = 2_000
# The key under which a job row carries its `JobSpec.coalesce_with` until it is inserted.
COALESCE = "_coalesce_with"
BACKOFF_CAP_MS = 15 * 60_000
# States in which a job holds its serial key: later jobs with that key wait behind it.
HEAD_STATES = (JobState.QUEUED.value, JobState.RUNNING.value, JobState.HELD.value)
TERMINAL_STATES = frozenset({JobState.DONE, JobState.DEAD, JobState.CANCELLED})

# Jobs sharing a serial key (one pull request) run one at a time in arrival order: only the head
# of a key is ever `queued`; the rest are `waiting` until the head finishes and promotes the next.
# So a claim looks only at due heads (and expired leases), never past a long line of waiters. The
# NOT EXISTS guard keeps two heads of one key (enqueued at once by two replicas) from running
# together.
_CANDIDATE = """
SELECT j.id FROM jobs j
WHERE ((j.state = 'queued' AND j.run_after_ms <= :now)
       OR (j.state = 'running' AND j.lease_expires_ms <= :now))
  AND (j.serial_key IS NULL OR NOT EXISTS (
        SELECT 1 FROM jobs k
        WHERE k.serial_key = j.serial_key AND k.id <> j.id
          AND k.state = 'running' AND k.lease_expires_ms > :now))
ORDER BY j.run_after_ms, j.id
LIMIT :limit
"""
_CLAIM = """
UPDATE jobs SET state = 'running', lease_token = :token, lease_expires_ms = :expires,
                attempts = attempts + 1
WHERE id IN ({candidate})
RETURNING id, kind, delivery_id, installation_id, serial_key, attempts
"""
# On PostgreSQL a claim commits without waiting for its flush to disk. A claim that a crash of
# the database server loses only leaves its job queued, to run again, as an expired lease already
# may; the settle, whose commit waits, flushes the claim before it (on PostgreSQL a completion
# never claims in its own transaction). Set by the claim itself, so that no round trip is added;
# an unreferenced CTE would not run, hence the join.
_RELAXED_CLAIM = (
    "WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))"
    + _CLAIM.replace("WHERE id IN", "FROM relaxed WHERE id IN")
)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class JobSpec:
    """A job to create alongside its delivery."""

    kind: str
    serial_key: str | None = None
    installation_id: int | None = None
    # For a job that reads the newest state when it runs (a write-back): it is not created while
    # a job of one of these kinds waits, not started yet, on the same key — that one will read
    # what this one would — and it waits `delay_ms` first, so that a burst of events (twenty
    # replies in two seconds) becomes one run.
    coalesce_with: frozenset[str] = frozenset()
    delay_ms: int = 0


@dataclass(frozen=True, slots=True)
class ClaimedJob:
    id: int
    kind: str
    delivery_id: str | None
    installation_id: int | None
    serial_key: str | None
    attempts: int
    lease_token: str


@dataclass(frozen=True, slots=True)
class JobRow:
    id: int
    kind: str
    state: str
    attempts: int
    run_after_ms: int
    serial_key: str | None
    delivery_id: str | None
    last_error: str | None


UNSETTLED = (JobState.QUEUED.value, JobState.RUNNING.value, JobState.WAITING.value)


def due_count(engine: Engine) -> int:
    """How many jobs are due now and not finished: queued, running or waiting (a job
    rescheduled for later is not due yet). The demo and the tests wait for it to reach 0."""
    with reading(engine) as conn:
        return int(
            conn.execute(
                select(func.count())
                .select_from(Job)
                .where(Job.state.in_(UNSETTLED), Job.run_after_ms <= now_ms())
            ).scalar_one()
        )


def backoff_ms(attempts: int, *, rng: random.Random | None = None) -> int:
    """Exponential backoff with full jitter on the upper half: 2 s, 4 s, 8 s … capped at 15 min."""
    ceiling = min(BACKOFF_CAP_MS, BACKOFF_BASE_MS << min(30, max(0, attempts - 1)))
    jitter: int = (rng or random).randrange(ceiling // 2 + 1)
    return ceiling // 2 + jitter


def job_rows(
    specs: Sequence[JobSpec], *, delivery_id: str | None, now: int
) -> list[dict[str, object]]:
    return [
        {
            "kind": spec.kind,
            "delivery_id": delivery_id,
            "installation_id": spec.installation_id,
            "serial_key": spec.serial_key,
            "attempts": 0,
            "run_after_ms": now + spec.delay_ms,
            "created_ms": now,
            COALESCE: spec.coalesce_with,
        }
        for spec in specs
    ]


# Built once: every delivery's transaction runs them, and building a statement cost more CPU
# than running it (docs/performance.md, "Ingress").
_KEYS: BindParameter[list[object]] = bindparam("keys", expanding=True)
_NOT_STARTED = select(Job.serial_key, Job.kind).where(
    Job.serial_key.in_(_KEYS), Job.state.in_((JobState.QUEUED.value, JobState.WAITING.value))
)
# A job whose key has a head or a waiting job already starts `waiting` behind them, decided by its
# own insert: the statement runs once a row, in order, and each row sees those before it.
_INSERTED = (
    "kind",
    "delivery_id",
    "installation_id",
    "serial_key",
    "attempts",
    "run_after_ms",
    "created_ms",
)
_KEY_TAKEN = (
    select(Job.id)
    .where(
        Job.serial_key == bindparam("serial_key", type_=Job.serial_key.type),
        # Written out, not bound: an expanding list cannot run once a row.
        Job.state.in_(
            [literal_column(f"'{state}'") for state in (*HEAD_STATES, JobState.WAITING.value)]
        ),
    )
    .exists()
)
_INSERT_JOBS = Prepared(
    insert(Job).from_select(
        [*_INSERTED, "state"],
        select(
            *(bindparam(name, type_=Job.__table__.c[name].type) for name in _INSERTED),
            case(
                (_KEY_TAKEN, literal_column(f"'{JobState.WAITING.value}'")),
                else_=literal_column(f"'{JobState.QUEUED.value}'"),
            ),
        ),
    )
)


def _not_started(conn: Connection, keys: set[object]) -> set[tuple[object, object]]:
    """(serial key, kind) of every job on these keys that has not started yet."""
    if not keys:
        return set()
    found = conn.execute(_NOT_STARTED, {"keys": list(keys)})
    return {(key, kind) for key, kind in found}


def _coalesced(conn: Connection, rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """The rows left once those that a job not started yet on their key stands for are dropped."""
    keys = {row["serial_key"] for row in rows if row[COALESCE] and row["serial_key"] is not None}
    pending = _not_started(conn, keys)
    kept = []
    for row in rows:
        together = cast(frozenset[str], row.pop(COALESCE))
        key = row["serial_key"]
        if key is not None and any((key, kind) in pending for kind in together):
            continue
        pending.add((key, row["kind"]))
        kept.append(row)
    return kept


def insert_jobs(conn: Connection, rows: list[dict[str, object]]) -> int:
    """Insert job rows in the caller's transaction; a job whose key is busy starts `waiting`.

    Answers how many were created (rows a pending job stands for are not, see `JobSpec`).
    """
    lock_keys(conn, {row["serial_key"] for row in rows})
    rows = _coalesced(conn, rows)
    if rows:
        _INSERT_JOBS.run_many(conn, rows)  # each delivery's transaction: on SQLite, its driver
    return len(rows)


def lock_keys(conn: Connection, keys: set[object]) -> None:
    """Hold these serial keys until the caller's transaction ends (PostgreSQL; SQLite has one
    writer at a time already).

    Without it a job enqueued as `waiting` behind a running head, and that head finishing, can
    pass each other under READ COMMITTED: the finish looks for a waiting job before the enqueue
    is committed, the enqueue saw the head still running, and the new job waits for good.
    """
    if conn.dialect.name != "postgresql":
        return
    for key in sorted(str(key) for key in keys if key is not None):  # one order: no deadlock
        conn.execute(_ADVISORY_LOCK, {"key": key})


# Built once: every settled job runs them, and building a statement cost more CPU than running
# it (docs/performance.md, "The queue").
# The transaction lock of the serial key bound as ``key`` (PostgreSQL).
_KEY_LOCK = func.pg_advisory_xact_lock(func.hashtextextended(bindparam("key"), 0)).label("held")
_ADVISORY_LOCK = select(_KEY_LOCK)
# The next waiting job of a key becomes its head, unless the key has a head still: one statement
# (one round trip on PostgreSQL) for what was a read of the head, a read of the next and a write.
# The caller holds the key's lock (`lock_keys`) from an earlier statement, so this statement's
# snapshot already sees any job enqueued on the key before the lock was granted.
_PROMOTE_NEXT = text(
    f"""
UPDATE jobs SET state = '{JobState.QUEUED.value}'
WHERE id = (SELECT min(w.id) FROM jobs w
            WHERE w.serial_key = :key AND w.state = '{JobState.WAITING.value}')
  AND NOT EXISTS (SELECT 1 FROM jobs h
                  WHERE h.serial_key = :key AND h.state IN {HEAD_STATES!r})
"""
)


# The lock of a finishing job's key, taken by the statement that finishes it (PostgreSQL): the
# promotion that follows is then one more round trip, not two.
_HELD = _ADVISORY_LOCK.cte("held")


@functools.cache
def _finish_statement(names: tuple[str, ...], *, locking: bool = False) -> Update:
    """The settle of a leased job setting the columns ``names`` (bound as ``v_<name>``);
    `locking`, it also takes the lock of the key bound as ``key`` (`lock_keys`)."""
    stmt = (
        update(Job)
        .where(Job.id == bindparam("job"), Job.lease_token == bindparam("token"))
        .values(lease_token=None, lease_expires_ms=None, **{n: bindparam(f"v_{n}") for n in names})
    )
    return stmt.where(select(_HELD.c.held).exists()) if locking else stmt


def promote_next(conn: Connection, serial_key: str | None, *, locked: bool = False) -> None:
    """After the head of a key finished, make the next waiting job of that key the head
    (`locked`: the caller holds the key's lock already)."""
    if serial_key is None:
        return
    if not locked:
        lock_keys(conn, {serial_key})
    conn.execute(_PROMOTE_NEXT, {"key": serial_key})


def enqueue(conn: Connection, specs: Sequence[JobSpec], *, now: int) -> int:
    """Create jobs with no delivery in the caller's transaction; answers how many were created."""
    return insert_jobs(conn, job_rows(specs, delivery_id=None, now=now))


class JobQueue:
    """Queue operations on one engine; every method is one short transaction."""

    def __init__(
        self, engine: Engine, *, lease_ms: int, max_attempts: int, clock: Clock = now_ms
    ) -> None:
        self.engine = engine
        self.lease_ms = lease_ms
        self.max_attempts = max_attempts
        self.clock = clock
        if engine.dialect.name == "postgresql":
            claim = _RELAXED_CLAIM.format(candidate=_CANDIDATE + " FOR UPDATE OF j SKIP LOCKED")
        else:
            claim = _CLAIM.format(candidate=_CANDIDATE)
        self._claim_sql = text(claim)
        self._settles: GroupCommit[tuple[bool, list[ClaimedJob]]] = GroupCommit(engine)

    @classmethod
    def from_settings(
        cls, engine: Engine, settings: Settings, *, clock: Clock = now_ms
    ) -> JobQueue:
        """The queue with the lease and the attempts the settings give (HINDSIGHT_JOB_LEASE_S,
        HINDSIGHT_JOB_MAX_ATTEMPTS): the one the app, the worker and `hindsight jobs` use."""
        return cls(
            engine,
            lease_ms=int(settings.job_lease_s * 1000),
            max_attempts=settings.job_max_attempts,
            clock=clock,
        )

    def claim(self) -> ClaimedJob | None:
        """Take the next due job under a fresh lease, or None when nothing is due."""
        claimed = self.claim_many(1)
        return claimed[0] if claimed else None

    def claim_many(self, limit: int, *, on: Connection | None = None) -> list[ClaimedJob]:
        """Take up to `limit` due jobs in one transaction, all under one fresh lease token; `on`,
        a connection the caller keeps for its claims (a worker's), else one from the pool.

        A kept connection is not checked as the pool checks one it hands out: when the server
        has dropped it, the claim is made on one from the pool, and the kept one reconnects at
        its next use."""
        if on is not None:
            try:
                with on.begin():
                    return self._claim(on, limit)
            except DBAPIError as exc:
                if not exc.connection_invalidated:
                    raise
                log.warning("a kept connection was dropped; claiming on another")
        with self.engine.begin() as conn:
            return self._claim(conn, limit)

    def _claim(self, conn: Connection, limit: int) -> list[ClaimedJob]:
        token = secrets.token_hex(16)
        now = self.clock()
        params = {"now": now, "token": token, "expires": now + self.lease_ms, "limit": limit}
        rows = conn.execute(self._claim_sql, params).all()
        return sorted(
            (
                ClaimedJob(
                    id=row.id,
                    kind=row.kind,
                    delivery_id=row.delivery_id,
                    installation_id=row.installation_id,
                    serial_key=row.serial_key,
                    attempts=row.attempts,
                    lease_token=token,
                )
                for row in rows
            ),
            key=lambda job: job.id,
        )

    def _finish(
        self, job: ClaimedJob, values: dict[str, object], *, claim: int = 0
    ) -> tuple[bool, list[ClaimedJob]]:
        """Settle the job with these column values (False: its lease was lost), then take up to
        `claim` due jobs in the same transaction."""
        error = values.get("last_error")
        if isinstance(error, str):
            # An error's text can quote what a payload, a seat or GitHub sent: no secret is kept.
            values["last_error"] = redact(error)
        expressions = {n: v for n, v in values.items() if isinstance(v, ClauseElement)}
        promotes = values.get("state") in TERMINAL_STATES and job.serial_key is not None
        # On PostgreSQL the finish itself takes the key's lock that the promotion needs.
        locking = promotes and self.engine.dialect.name == "postgresql"
        names = tuple(sorted(values.keys() - expressions.keys()))
        stmt = _finish_statement(names, locking=locking)
        if expressions:  # a value read from the row itself (an attempt given back)
            stmt = stmt.values(**expressions)
        params = {f"v_{n}": v for n, v in values.items() if n not in expressions}
        params.update(job=job.id, token=job.lease_token)
        if locking:
            params["key"] = job.serial_key

        def finish(conn: Connection) -> tuple[bool, list[ClaimedJob]]:
            done = conn.execute(stmt, params).rowcount == 1
            if done and promotes:
                promote_next(conn, job.serial_key, locked=locking)
            return done, self._claim(conn, claim) if claim else []

        # Jobs settled at the same moment by the worker's threads share one durable commit.
        done, claimed = self._settles.write(finish, order=str(job.serial_key or ""))
        if not done:
            log.warning("job lease lost", extra={"job": job.id, "kind": job.kind})
        return done, claimed

    def complete(self, job: ClaimedJob, *, note: str | None = None) -> bool:
        """Mark done if we still hold the lease; False means another worker took it over."""
        return self._finish(job, self._done(note))[0]

    def complete_and_claim(self, job: ClaimedJob, limit: int) -> list[ClaimedJob]:
        """Mark done as `complete` does and, on SQLite, take up to `limit` due jobs in the same
        transaction: a worker's slot goes from one job to the next with one commit and one trip
        to a thread. SQLite has one writer at a time, so a claim of its own would only wait for
        the settle's commit; on PostgreSQL it runs on another connection while the settle
        commits, and folding the two together made the worker slower (docs/performance.md, "The
        queue"). There this takes none and the worker claims as before."""
        claim = limit if self.engine.dialect.name == "sqlite" else 0
        return self._finish(job, self._done(None), claim=claim)[1]

    def _done(self, note: str | None) -> dict[str, object]:
        return {"state": JobState.DONE.value, "finished_ms": self.clock(), "last_error": note}

    def fail(self, job: ClaimedJob, error: str) -> bool:
        """Retry later with backoff, or park as dead once the attempts are spent."""
        if job.attempts >= self.max_attempts:
            log.error("job dead", extra={"job": job.id, "kind": job.kind, "error": error})
            return self.park(job, JobState.DEAD, error)
        values: dict[str, object] = {
            "state": JobState.QUEUED.value,
            "last_error": error,
            "run_after_ms": self.clock() + backoff_ms(job.attempts),
        }
        return self._finish(job, values)[0]

    def reschedule(self, job: ClaimedJob, at_ms: int, reason: str) -> bool:
        """Come back at `at_ms` (rate limit); the attempt is not counted against the job."""
        values: dict[str, object] = {
            "state": JobState.QUEUED.value,
            "last_error": reason,
            "run_after_ms": max(at_ms, self.clock()),
            "attempts": Job.attempts - 1,
        }
        return self._finish(job, values)[0]

    def park(self, job: ClaimedJob, state: JobState, note: str) -> bool:
        """Stop a claimed job without running it (HELD, CANCELLED or DEAD)."""
        values: dict[str, object] = {
            "state": state.value,
            "last_error": note,
            "finished_ms": self.clock(),
        }
        return self._finish(job, values)[0]

    def extend(self, job: ClaimedJob) -> bool:
        """Renew the lease of a long-running job."""
        stmt = (
            update(Job)
            .where(Job.id == job.id, Job.lease_token == job.lease_token)
            .values(lease_expires_ms=self.clock() + self.lease_ms)
        )
        with self.engine.begin() as conn:
            return conn.execute(stmt).rowcount == 1

    @staticmethod
    def hold_installation(conn: Connection, installation_id: int, state: JobState) -> int:
        """Stop the jobs of a suspended (HELD: queued ones) or deleted (CANCELLED: all that have
        not started) installation. Jobs waiting behind a held one stay waiting."""
        stopped = [JobState.QUEUED.value]
        if state is JobState.CANCELLED:
            stopped += [JobState.WAITING.value, JobState.HELD.value]
        stmt = (
            update(Job)
            .where(Job.installation_id == installation_id, Job.state.in_(stopped))
            .values(state=state.value)
        )
        return conn.execute(stmt).rowcount

    @staticmethod
    def release_installation(conn: Connection, installation_id: int, now: int) -> int:
        """Requeue the jobs held while an installation was suspended."""
        stmt = (
            update(Job)
            .where(Job.installation_id == installation_id, Job.state == JobState.HELD.value)
            .values(state=JobState.QUEUED.value, run_after_ms=now)
        )
        return conn.execute(stmt).rowcount

    def list(self, *, states: Sequence[str] = (), limit: int = 50) -> list[JobRow]:
        stmt = select(*Job.__table__.c).order_by(Job.id.desc()).limit(limit)
        if states:
            stmt = stmt.where(Job.state.in_(list(states)))
        with reading(self.engine) as conn:
            rows = conn.execute(stmt).all()
            return [
                JobRow(
                    id=r.id,
                    kind=r.kind,
                    state=r.state,
                    attempts=r.attempts,
                    run_after_ms=r.run_after_ms,
                    serial_key=r.serial_key,
                    delivery_id=r.delivery_id,
                    last_error=r.last_error,
                )
                for r in rows
            ]

    def counts(self) -> dict[str, int]:
        with reading(self.engine) as conn:
            rows = conn.execute(select(Job.state, func.count()).group_by(Job.state)).all()
        return {state: count for state, count in rows}

    def retry(self, job_ids: Sequence[int] = (), *, all_dead: bool = False) -> int:
        """Requeue dead jobs (the given ids, or every dead one) with their attempts reset."""
        stmt = update(Job).where(Job.state == JobState.DEAD.value)
        if not all_dead:
            stmt = stmt.where(Job.id.in_(list(job_ids)))
        with self.engine.begin() as conn:
            return conn.execute(
                stmt.values(state=JobState.QUEUED.value, attempts=0, run_after_ms=self.clock())
            ).rowcount
