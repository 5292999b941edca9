"""The job runner: claims due jobs, runs their handlers with bounded concurrency, settles each one."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.exc import DataError

from continual.times import to_ms
from ghapp.db import reading
from ghapp.deliveries import PRUNED
from ghapp.deps import Deps
from ghapp.github.errors import Forbidden, Gone, RetryAt, Transient
from ghapp.jobs import ClaimedJob, JobQueue
from ghapp.router import Router
from ghapp.tables import Delivery, Installation, JobState

log = logging.getLogger(__name__)

IDLE_POLL_S = 0.5
# What a handler raises when its payload has a shape it cannot read (a missing key, a value of the
# wrong type, a value the database refuses): running the job again reads the same payload, so the
# job is parked as dead at once, with the reason, instead of retried.
PAYLOAD_SHAPE_ERRORS = (LookupError, TypeError, ValueError, AttributeError, DataError)
REASON_CHARS = 500


def from_payload(error: Exception) -> bool:
    """Whether a job's error comes from the shape of its payload. A body that is not JSON never
    does: every payload was parsed at the door, so that one is an answer GitHub garbled."""
    return isinstance(error, PAYLOAD_SHAPE_ERRORS) and not isinstance(error, json.JSONDecodeError)


class Worker:
    """Runs jobs from the queue until stopped; `concurrency` jobs at most at once."""

    def __init__(self, deps: Deps, router: Router, *, concurrency: int) -> None:
        self.deps = deps
        self.queue: JobQueue = deps.queue
        self.router = router
        self.concurrency = concurrency
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._running: set[asyncio.Task[None]] = set()

    def wake(self) -> None:
        """Called (from any thread, via the loop) when new jobs were committed."""
        self._wake.set()

    async def run(self) -> None:
        log.info("worker started", extra={"concurrency": self.concurrency})
        # The claims go through one connection kept for the run: on PostgreSQL a connection taken
        # from the pool for each claim cost one more round trip, the pool's ping
        # (docs/performance.md, "The queue").
        claims = await asyncio.to_thread(self.queue.engine.connect)
        try:
            await self._claim_and_start(claims)
        finally:
            await asyncio.to_thread(claims.close)
        log.info("worker stopped")

    async def _claim_and_start(self, claims: Connection) -> None:
        """Claim due jobs for the free slots and start them, until stopped; then wait for the
        slots still running."""
        while not self._stopping.is_set():
            if len(self._running) >= self.concurrency:
                await asyncio.wait(self._running, return_when=asyncio.FIRST_COMPLETED)
                continue
            self._wake.clear()  # before claiming: a wake-up during the claim is not lost
            free = self.concurrency - len(self._running)
            jobs = await asyncio.to_thread(self.queue.claim_many, free, on=claims)
            if not jobs:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), IDLE_POLL_S)
                continue
            for job in jobs:
                task = asyncio.create_task(self._slot(job), name=f"slot-from-job-{job.id}")
                self._running.add(task)
                task.add_done_callback(self._finished)
        if self._running:
            await asyncio.wait(self._running)

    async def run_until_idle(self) -> int:
        """Run jobs until none is due (tests, the demo, `hindsight worker --until-idle`)."""
        ran = 0
        job = await asyncio.to_thread(self.queue.claim)
        while job is not None:
            job = await self._settle(job) or await asyncio.to_thread(self.queue.claim)
            ran += 1
        return ran

    def _finished(self, task: asyncio.Task[None]) -> None:
        # A settled job frees a slot and may have promoted the next job of its pull request:
        # claim again now rather than after the idle poll.
        self._running.discard(task)
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()

    async def _slot(self, job: ClaimedJob | None) -> None:
        """One of the worker's `concurrency` slots: run jobs while each completion brings the
        next one."""
        while job is not None:
            job = await self._settle(job)

    async def _settle(self, job: ClaimedJob) -> ClaimedJob | None:
        """Run one job, record its outcome and count it with how long it took; answers the job
        claimed together with its completion, if any."""
        started = time.monotonic()
        outcome, following = await self._run(job)
        if outcome is not None:
            self.deps.metrics.jobs_run.labels(job.kind, outcome).inc()
            self.deps.metrics.job_seconds.labels(job.kind).observe(time.monotonic() - started)
        return following

    async def _run(self, job: ClaimedJob) -> tuple[str | None, ClaimedJob | None]:
        """Run one job and record its outcome; the one catch-all of the job runner. Answers the
        outcome (None: parked before it ran) and, when the job completed and the worker is not
        stopping, the next due job, claimed in the completion's transaction."""
        fields = {"job": job.id, "kind": job.kind, "attempt": job.attempts}
        try:
            route = self.router.route(job.kind)
            if self._reads(job, route.lifecycle):
                payload = await asyncio.to_thread(self._prepare, job, route.lifecycle)
            else:
                payload = {}  # nothing to read or park: no thread hop
            if payload is None:
                return None, None
            event = route.parse(payload)  # the value its handler reads; BadPayload parks the job
            heartbeat = asyncio.create_task(self._heartbeat(job))
            try:
                await route.handler(self.deps, job, event)
            finally:
                heartbeat.cancel()
        except RetryAt as exc:
            log.warning("job rescheduled", extra={**fields, "reason": exc.reason})
            at_ms = to_ms(exc.at)
            await asyncio.to_thread(self.queue.reschedule, job, at_ms, str(exc))
            return "rescheduled", None
        except Transient as exc:
            log.warning("job will retry", extra={**fields, "error": str(exc)})
            await asyncio.to_thread(self.queue.fail, job, f"transient: {exc}")
            return "retry", None
        except Gone as exc:
            log.info("job target gone", extra={**fields, "what": exc.what})
            await asyncio.to_thread(self.queue.complete, job, note=str(exc))
            return "gone", None
        except Forbidden as exc:
            await asyncio.to_thread(self.queue.park, job, JobState.DEAD, f"forbidden: {exc}")
            return "dead", None
        except Exception as exc:
            if from_payload(exc):
                log.exception("job parked: its payload cannot be read", extra=fields)
                reason = f"payload: {type(exc).__name__}: {exc}"[:REASON_CHARS]
                await asyncio.to_thread(self.queue.park, job, JobState.DEAD, reason)
                return "dead", None
            log.exception("job failed", extra=fields)
            await asyncio.to_thread(self.queue.fail, job, f"{type(exc).__name__}: {exc}")
            return "failed", None
        if self._stopping.is_set():
            await asyncio.to_thread(self.queue.complete, job)
            following = []
        else:
            following = await asyncio.to_thread(self.queue.complete_and_claim, job, 1)
        log.info("job done", extra=fields)
        return "done", following[0] if following else None

    def _reads(self, job: ClaimedJob, lifecycle: bool) -> bool:
        """Whether preparing the job touches the database: a delivery's body to read, an
        installation to check, or a job to park for its spent leases."""
        gated = not lifecycle and job.installation_id is not None
        return job.attempts > self.queue.max_attempts or job.delivery_id is not None or gated

    def _prepare(self, job: ClaimedJob, lifecycle: bool) -> dict[str, Any] | None:
        """The job's payload, or None when the job was parked instead of run (one read; called
        only for a job that `_reads`)."""
        if job.attempts > self.queue.max_attempts:
            self.queue.park(job, JobState.DEAD, "its lease expired too often")
            return None
        gated = not lifecycle and job.installation_id is not None
        installation = body = None
        with reading(self.deps.engine) as conn:
            if gated:
                installation = conn.execute(
                    select(Installation.suspended_ms, Installation.deleted_ms).where(
                        Installation.id == job.installation_id
                    )
                ).one_or_none()
            if job.delivery_id is not None:
                body = conn.execute(
                    select(Delivery.body).where(Delivery.id == job.delivery_id)
                ).scalar_one()
        if installation is not None and installation.deleted_ms is not None:
            self.queue.park(job, JobState.CANCELLED, "installation deleted")
            return None
        if installation is not None and installation.suspended_ms is not None:
            self.queue.park(job, JobState.HELD, "installation suspended")
            return None
        if body == PRUNED:
            self.queue.park(job, JobState.DEAD, "its delivery's body was pruned (retention)")
            return None
        payload: dict[str, Any] = json.loads(body) if body is not None else {}
        return payload

    async def _heartbeat(self, job: ClaimedJob) -> None:
        interval = self.queue.lease_ms / 3000
        while True:
            await asyncio.sleep(interval)
            if not await asyncio.to_thread(self.queue.extend, job):
                log.warning("job lease lost during run", extra={"job": job.id})
                return
