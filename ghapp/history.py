"""The history back-fill at the door: read a repository's merged pull requests and their review
comments from GitHub within its rate limit, keep the maintainers' comments with their evidence,
and publish the addressed ones as cited facts (docs/history.md). The rules are the core's
(``continual.history``); this module reads GitHub, paces itself and persists the cursor."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, Engine, select

from continual.history.evidence import Kept, PastComment, PastPull, base_commit, counted, judge
from continual.history.runs import (
    DEFAULT_DAYS,
    DEFAULT_MAX_PRS,
    Run,
    RunState,
    acquire,
    advance,
    read_run,
    release,
    request_run,
    stop_runs,
)
from continual.history.store import discard_generation, publish, pulls_read, save_pull
from continual.tables import Repository
from continual.times import to_ms
from continual.writeback.authors import Author
from ghapp.github.errors import Forbidden, Gone, RetryAt, Transient
from ghapp.github.installation import InstallationClient
from ghapp.github.values import PullRequest, ReviewComment
from ghapp.jobs import JobSpec, enqueue
from ghapp.tables import Installation

log = logging.getLogger(__name__)

JOB_KIND = "history.backfill"
LEASE_MS = 120_000
# The most one pull request costs beyond pages of its comments: its comments, who merged it,
# one comparison.
PER_PULL = 3

Progress = Callable[[Run], None]


def serial_key(repository_id: int) -> str:
    """Back-fill jobs of one repository run one at a time."""
    return f"history:{repository_id}"


def repository_of(key: str | None) -> int | None:
    prefix, _, rest = (key or "").partition(":")
    return int(rest) if prefix == "history" and rest.isdecimal() else None


def schedule(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    installation_id: int,
    now_ms: int,
    days: int = DEFAULT_DAYS,
    max_prs: int = DEFAULT_MAX_PRS,
) -> tuple[Run, bool]:
    """Ask for a back-fill in the caller's transaction, with its durable job; a live run of the
    repository stands for this one (answers it, and False)."""
    run, new = request_run(
        conn,
        account_id=account_id,
        repository_id=repository_id,
        installation_id=installation_id,
        days=days,
        max_prs=max_prs,
        now_ms=now_ms,
    )
    if new:
        spec = JobSpec(
            kind=JOB_KIND, serial_key=serial_key(repository_id), installation_id=installation_id
        )
        enqueue(conn, [spec], now=now_ms)
    return run, new


@dataclass(frozen=True, slots=True)
class Options:
    """How a back-fill paces itself and what it publishes."""

    budget_share: float = 0.25
    fact_cap: int = 200


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one turn of a back-fill ended: the run as it stands, and when to come back (paused),
    or that another runner holds it."""

    run: Run | None
    resume_at: datetime | None = None
    held_elsewhere: bool = False


class Stop(Exception):
    """The installation or the repository went away: stop, publish nothing."""


def past_comment(comment: ReviewComment) -> PastComment | None:
    if comment.created_at is None:
        return None
    author = Author(
        login=comment.user.login,
        type=comment.user.type,
        association=comment.author_association,
        via_app=comment.via_app is not None,
    )
    return PastComment(
        id=comment.id,
        author=author,
        path=comment.path,
        line=comment.line,
        commit_sha=comment.commit_id,
        body=comment.body,
        in_reply_to=comment.in_reply_to_id,
        created_at=comment.created_at,
        url=comment.html_url,
    )


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
                return self._finish(run)
            run = self._write(run, page=run.page + 1, prs_seen=run.prs_seen + len(pulls))

    async def _read_pull(self, run: Run, name: str, pull: PullRequest) -> Run:
        with self.engine.connect() as conn:
            self._repository(conn, run)
        before = self.client.sent
        past, kept, missing = await self._evidence(name, pull)
        requests = self.client.sent - before
        with self.engine.begin() as conn:
            addressed = save_pull(
                conn,
                account_id=run.account_id,
                repository_id=self.repository_id,
                generation=run.generation,
                pull=past,
                kept=kept,
                requests=requests,
                evidence_missing=missing,
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

    async def _evidence(
        self, name: str, pull: PullRequest
    ) -> tuple[PastPull, list[Kept], str | None]:
        """The pull request's counted comments judged: its comments (pages), who merged it, and
        one comparison from the earliest commented commit to its head; why evidence is missing."""
        assert pull.merged_at is not None
        try:
            found = await self.client.list_review_comments(name, pull.number)
        except Gone:
            found = []
        comments = [c for c in map(past_comment, found) if c is not None]
        past = PastPull(pull.number, pull.user.login, pull.head_sha, pull.merged_at)
        counting = counted(past, comments)
        if not counting:
            return past, [], None
        try:
            merged = await self.client.get_pull(name, pull.number)
            if merged.merged_by is not None:
                past = PastPull(
                    past.number,
                    past.author,
                    merged.head_sha or past.head_sha,
                    past.merged_at,
                    merged.merged_by.login,
                    merged.merged_by.is_bot,
                )
        except Gone:
            pass
        base = base_commit(counting)
        patches: dict[str, str | None] | None = None
        first: str | None = None
        missing: str | None = None
        if base is None or not past.head_sha:
            missing = "no-head"
        elif base == past.head_sha:
            patches = {}
        else:
            try:
                comparison = await self.client.compare(name, base, past.head_sha)
            except Gone:
                missing = "force-pushed"
            else:
                patches = {entry.filename: entry.patch for entry in comparison.files}
                first = comparison.commits[0].sha if comparison.commits else None
        return past, judge(past, comments, patches=patches, first_commit=first), missing

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

    def _finish(self, run: Run) -> Outcome:
        """Publish the repository's facts and the run's end in one transaction."""
        now = self.clock()
        with self.engine.begin() as conn:
            self._repository(conn, run)
            facts = publish(
                conn,
                account_id=run.account_id,
                repository_id=self.repository_id,
                cap=self.options.fact_cap,
                now_ms=now,
            )
            release(
                conn,
                self.repository_id,
                token=self.token,
                state=RunState.DONE,
                now_ms=now,
                facts=facts,
                last_error=None,
            )
            done = read_run(conn, self.repository_id)
        log.info("history back-fill done", extra={"repository": self.repository_id, "facts": facts})
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


def stop_for(
    conn: Connection,
    *,
    reason: str,
    now_ms: int,
    installation_id: int | None = None,
    repository_ids: Sequence[int] = (),
) -> int:
    """The installation was removed (or these repositories left it): its live back-fills stop,
    and what they read and did not publish is forgotten. Answers how many stopped."""
    stopped = stop_runs(
        conn,
        reason=reason,
        now_ms=now_ms,
        installation_id=installation_id,
        repository_ids=repository_ids,
    )
    for run in stopped:
        discard_generation(conn, run.repository_id, run.generation)
    return len(stopped)


def schedule_all(conn: Connection, repository_ids: Sequence[int], now_ms: int) -> int:
    """Ask for a back-fill of each of these repositories (just installed); answers how many."""
    rows = conn.execute(
        select(Repository.id, Repository.account_id, Repository.installation_id).where(
            Repository.id.in_(list(repository_ids)), Repository.removed_ms.is_(None)
        )
    ).all()
    made = 0
    for row in rows:
        if row.installation_id is None:
            continue
        _, new = schedule(
            conn,
            account_id=row.account_id,
            repository_id=row.id,
            installation_id=row.installation_id,
            now_ms=now_ms,
        )
        made += new
    return made
