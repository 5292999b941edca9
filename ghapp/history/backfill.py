"""One turn of a repository's history back-fill at the door: read its merged pull requests
from GitHub within its rate limit, keep the maintainers' comments with their evidence, persist
the cursor, and at the end publish everything at once (docs/history.md). The rules are the
core's (``continual.history``)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, Engine, select

from continual.history.lessons import save_refusals
from continual.history.publication import Discovery, publish_all
from continual.history.runs import Run, RunState, acquire, advance, read_run, release
from continual.history.store import discard_generation, pulls_read, save_pull
from continual.tables import Repository
from continual.times import to_ms
from ghapp.github.errors import Forbidden, Gone, RetryAt, Transient
from ghapp.github.installation import InstallationClient
from ghapp.github.values import PullRequest
from ghapp.history.publishing import discovery
from ghapp.history.reading import read_pull
from ghapp.tables import Installation
from review.seats import TextSeat

log = logging.getLogger(__name__)

LEASE_MS = 120_000
# The most one pull request costs beyond pages of its comments: its comments, who merged it,
# one comparison.
PER_PULL = 3

Progress = Callable[[Run], None]


@dataclass(frozen=True, slots=True)
class Options:
    """How a back-fill paces itself and what it publishes."""

    budget_share: float = 0.25
    fact_cap: int = 200
    app_slug: str | None = None  # this app's own bot's suggestions are not another bot's
    seat: TextSeat | None = None  # the discovery seat (`[history] seat`), if any


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one turn of a back-fill ended: the run as it stands, and when to come back (paused),
    or that another runner holds it."""

    run: Run | None
    resume_at: datetime | None = None
    held_elsewhere: bool = False


class Stop(Exception):
    """The installation or the repository went away: stop, publish nothing."""


class Backfill:
    """One turn of a repository's back-fill, held under its lease until it pauses, ends or stops."""

    def __init__(
        self,
        client: InstallationClient,
        engine: Engine,
        repository_id: int,
        *,
        options: Options,
        clock: Callable[[], int],
        on_progress: Progress | None = None,
    ) -> None:
        self.client = client
        self.engine = engine
        self.repository_id = repository_id
        self.options = options
        self.clock = clock
        self.on_progress = on_progress
        self.token = secrets.token_hex(16)

    async def run(self) -> Outcome:
        with self.engine.begin() as conn:
            run = acquire(
                conn, self.repository_id, token=self.token, now_ms=self.clock(), lease_ms=LEASE_MS
            )
            if run is None:
                held = read_run(conn, self.repository_id)
                return Outcome(held, held_elsewhere=held is not None and held.live)
            name = self._repository(conn, run)
        try:
            return await self._turn(run, name)
        except Stop as exc:
            return self._stop(run, str(exc))
        except RetryAt as exc:
            return self._pause(exc.at, f"GitHub asked to wait: {exc.reason}")
        except Forbidden as exc:
            return self._stop(run, f"GitHub refused: {exc}")
        except BaseException as exc:
            # A transient failure (or a crash): hand the run back queued, the cursor kept.
            with self.engine.begin() as conn:
                release(
                    conn,
                    self.repository_id,
                    token=self.token,
                    state=RunState.QUEUED,
                    now_ms=self.clock(),
                    last_error=f"{type(exc).__name__}: {exc}"[:500],
                )
            raise

    def _repository(self, conn: Connection, run: Run) -> str:
        """The repository's name, or Stop when it or its installation went away."""
        row = conn.execute(
            select(Repository.full_name, Repository.removed_ms, Repository.installation_id).where(
                Repository.id == self.repository_id
            )
        ).first()
        installation = conn.execute(
            select(Installation.deleted_ms).where(Installation.id == run.installation_id)
        ).first()
        if row is None or row.removed_ms is not None or row.installation_id != run.installation_id:
            raise Stop("the repository left the installation")
        if installation is None or installation.deleted_ms is not None:
            raise Stop("the installation was removed")
        return str(row.full_name)

    async def _turn(self, run: Run, name: str) -> Outcome:
        while True:
            pause = self._pause_at(run)
            if pause is not None:
                return self._pause(pause, "the back-fill's share of the rate limit is spent")
            before = self.client.sent
            try:
                pulls, more = await self.client.list_merged_candidates(name, run.page)
            except Gone as exc:
                raise Stop(f"the repository cannot be read: {exc}") from None
            run = self._write(run, requests=run.requests + self.client.sent - before)
            since = run.since_ms
            fresh = [p for p in pulls if p.merged_at is not None and to_ms(p.merged_at) >= since]
            with self.engine.connect() as conn:
                done = pulls_read(conn, self.repository_id, [p.number for p in fresh])
            for pull in fresh:
                if run.prs_read >= run.max_prs:
                    break
                if pull.number in done:
                    continue
                pause = self._pause_at(run)
                if pause is not None:
                    return self._pause(pause, "the back-fill's share of the rate limit is spent")
                run = await self._read_pull(run, name, pull)
            older = all(p.updated_at is not None and to_ms(p.updated_at) < since for p in pulls)
            if run.prs_read >= run.max_prs or not more or older:
                return await self._finish(run)
            run = self._write(run, page=run.page + 1, prs_seen=run.prs_seen + len(pulls))

    async def _read_pull(self, run: Run, name: str, pull: PullRequest) -> Run:
        with self.engine.connect() as conn:
            self._repository(conn, run)
        before = self.client.sent
        read = await read_pull(self.client, name, pull, app_slug=self.options.app_slug)
        kept = read.kept
        requests = self.client.sent - before
        with self.engine.begin() as conn:
            addressed = save_pull(
                conn,
                account_id=run.account_id,
                repository_id=self.repository_id,
                generation=run.generation,
                pull=read.pull,
                kept=kept,
                requests=requests,
                evidence_missing=read.missing,
                now_ms=self.clock(),
            )
            save_refusals(
                conn,
                account_id=run.account_id,
                repository_id=self.repository_id,
                pr=pull.number,
                generation=run.generation,
                refusals=read.refusals,
                now_ms=self.clock(),
            )
            run = self._advance(
                conn,
                run,
                prs_read=run.prs_read + 1,
                comments_kept=run.comments_kept + len(kept),
                addressed=run.addressed + addressed,
                requests=run.requests + requests,
            )
        return self._shown(run)

    # --- pacing ----------------------------------------------------------------------------

    def _pause_at(self, run: Run) -> datetime | None:
        """When the budget is spent: the reset of the rate-limit window; else None."""
        rate = self.client.rate
        if rate is None or to_ms(rate.reset_at) <= self.clock():
            return None  # nothing read yet, or that window is over: a fresh budget
        # At least one pull request per window, however small the share: it always moves on.
        allowed = max(int(rate.limit * self.options.budget_share), PER_PULL + 1)
        spent = run.window_spent if run.window_reset_ms == to_ms(rate.reset_at) else 0
        if spent + PER_PULL + 1 > allowed or rate.remaining <= PER_PULL + 1:
            return rate.reset_at
        return None

    def _window(self, run: Run, requests: int) -> dict[str, int | None]:
        rate = self.client.rate
        spent = requests - run.requests
        if rate is None:
            return {"window_spent": run.window_spent + spent}
        reset = to_ms(rate.reset_at)
        held = run.window_spent if run.window_reset_ms == reset else 0
        return {"window_reset_ms": reset, "window_spent": held + spent}

    def _advance(self, conn: Connection, run: Run, **values: int) -> Run:
        requests = values.get("requests", run.requests)
        values = {**values, **self._window(run, requests)}  # type: ignore[dict-item]
        if not advance(
            conn,
            self.repository_id,
            token=self.token,
            now_ms=self.clock(),
            lease_ms=LEASE_MS,
            **values,
        ):
            raise Transient("the back-fill's lease was taken over")
        found = read_run(conn, self.repository_id)
        assert found is not None
        return found

    def _shown(self, run: Run) -> Run:
        """``run``, once its progress is committed, shown to whoever follows it."""
        if self.on_progress is not None:
            self.on_progress(run)
        return run

    def _write(self, run: Run, **values: int) -> Run:
        with self.engine.begin() as conn:
            run = self._advance(conn, run, **values)
        return self._shown(run)

    # --- ends ------------------------------------------------------------------------------

    def _pause(self, at: datetime, reason: str) -> Outcome:
        now = self.clock()
        with self.engine.begin() as conn:
            held = read_run(conn, self.repository_id)
            release(
                conn,
                self.repository_id,
                token=self.token,
                state=RunState.PAUSED,
                now_ms=now,
                paused_until_ms=max(to_ms(at), now),
                pauses=(held.pauses if held is not None else 0) + 1,
                last_error=reason,
            )
            run = read_run(conn, self.repository_id)
        log.info("history back-fill paused", extra={"repository": self.repository_id})
        return Outcome(run, resume_at=at)

    async def _finish(self, run: Run) -> Outcome:
        """Ask the discovery seat, then publish the repository's facts, lessons and refusals
        and the run's end in one transaction, with its publication receipt."""
        found: Discovery = await discovery(
            self.engine,
            self.options.seat,
            account_id=run.account_id,
            repository_id=self.repository_id,
        )
        now = self.clock()
        with self.engine.begin() as conn:
            self._repository(conn, run)
            receipt = publish_all(
                conn,
                account_id=run.account_id,
                repository_id=self.repository_id,
                generation=run.generation,
                cap=self.options.fact_cap,
                discovery=found,
                now_ms=now,
            )
            if not release(
                conn,
                self.repository_id,
                token=self.token,
                state=RunState.DONE,
                now_ms=now,
                facts=receipt["facts"],
                last_error=found.failure and f"discovery seat: {found.failure}"[:500],
            ):
                raise Transient("the back-fill's lease was taken over before it published")
            done = read_run(conn, self.repository_id)
        log.info("history back-fill done", extra={"repository": self.repository_id, **receipt})
        return Outcome(done)

    def _stop(self, run: Run, reason: str) -> Outcome:
        with self.engine.begin() as conn:
            discard_generation(conn, self.repository_id, run.generation)
            release(
                conn,
                self.repository_id,
                token=self.token,
                state=RunState.STOPPED,
                now_ms=self.clock(),
                last_error=reason,
            )
            stopped = read_run(conn, self.repository_id)
        log.info("history back-fill stopped", extra={"repository": self.repository_id})
        return Outcome(stopped)
