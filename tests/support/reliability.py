"""Helpers for the reliability suite: a stage with the simulator and a web-only app, and worker
processes that can be killed."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, func, select, update

from continual import persons
from continual.markers import parse_suggestion_marker
from continual.tables import Receipt, ReviewRow, Suggestion
from ghapp.app import build_deps, create_app
from ghapp.db import reading
from ghapp.handlers import build_router
from ghapp.settings import Settings
from ghapp.tables import Job, JobState
from ghapp.worker import Worker
from ghsim import GitHubSimulator
from tests.conftest import WEBHOOK_SECRET
from tests.support.app_harness import INSTALLATION_ID
from tests.support.review import REVIEW_POSTS, Harness, MsClock
from tests.support.simulator import APP_ID, ORG, REPO, app_key, app_settings, make_client
from tests.support.web import serve, wait_for

ROOT = Path(__file__).resolve().parents[2]
TERMINAL = (JobState.DONE.value, JobState.DEAD.value, JobState.CANCELLED.value)
JOB_DONE = re.compile(r" job done .*\bjob=(\d+)\b")
COMMENTS_OF_PULL = r"^/repos/[^/]+/[^/]+/pulls/\d+/comments$"
COMMENTS_OF_REVIEW = r"^/repos/[^/]+/[^/]+/pulls/\d+/reviews/\d+/comments$"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class Stage:
    """The simulator, a web-only app taking its webhooks, and what worker processes need."""

    sim: GitHubSimulator
    engine: Engine
    url: str
    settings: Settings
    tmp: Path
    env: dict[str, str]
    logs: list[Path] = field(default_factory=list)

    def worker(self, *, until_idle: bool = False, concurrency: int = 2) -> subprocess.Popen[bytes]:
        """Start `hindsight worker` in a process of its own; its stderr goes to a file."""
        log_path = self.tmp / f"worker-{len(self.logs)}.log"
        self.logs.append(log_path)
        command = [sys.executable, "-m", "ghapp.cli", "worker"]
        if not Path(self.env["HINDSIGHT_CONFIG"]).is_file():
            command.append("--no-review")  # a stage without hindsight.toml runs no review
        if until_idle:
            command.append("--until-idle")
        env = {**self.env, "HINDSIGHT_WORKER_CONCURRENCY": str(concurrency)}
        with log_path.open("wb") as stderr:
            return subprocess.Popen(
                command, env=env, cwd=self.tmp, stdout=subprocess.DEVNULL, stderr=stderr
            )

    def worker_output(self) -> str:
        return "".join(path.read_text(errors="replace") for path in self.logs if path.exists())

    def jobs(self) -> list[Job]:
        with reading(self.engine) as conn:
            return list(conn.execute(select(Job).order_by(Job.id)).all())  # type: ignore[arg-type]

    def leases_expired(self) -> bool:
        with reading(self.engine) as conn:
            held = conn.execute(
                select(func.count())
                .select_from(Job)
                .where(Job.state == JobState.RUNNING.value, Job.lease_expires_ms > now_ms())
            ).scalar_one()
        return held == 0

    def all_settled(self) -> bool:
        return all(job.state in TERMINAL for job in self.jobs())

    def drain(self, *, rounds: int = 6) -> None:
        """Run fresh `worker --until-idle` processes until every job is settled.

        A worker only takes a job whose lease ran out, so each round first waits for the leases
        of killed workers to expire; a job backing off after a failure is made due at once.
        """
        for _ in range(rounds):
            wait_for(self.leases_expired, timeout=15, what="the leases of killed workers")
            with self.engine.begin() as conn:
                conn.execute(
                    update(Job).where(Job.state == JobState.QUEUED.value).values(run_after_ms=0)
                )
            process = self.worker(until_idle=True)
            assert process.wait(timeout=120) == 0, self.worker_output()[-3000:]
            if self.all_settled():
                return
        raise AssertionError(
            f"jobs left unsettled: {[(j.id, j.kind, j.state) for j in self.jobs()]}"
        )


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process (if it still runs) and reap it."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@contextmanager
def stage(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    toml: str = "",
    *,
    secret: str = WEBHOOK_SECRET,
    log_level: str = "INFO",
) -> Iterator[Stage]:
    """The simulator with the app installed on `octo-org/widgets`, its webhooks taken by a web-only
    app (no worker: jobs wait in the queue for worker processes), and `hindsight.toml` = `toml`."""
    config = tmp_path / "hindsight.toml"
    if toml:
        config.write_text(toml)
    key = app_key()
    with GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim:
        settings = app_settings(
            sim, database_url, tmp_path, webhook_secret=secret, app_slug="hindsight"
        )
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "HINDSIGHT_DATABASE_URL": database_url,
            "HINDSIGHT_GITHUB_APP_ID": str(APP_ID),
            "HINDSIGHT_GITHUB_PRIVATE_KEY": key.private_pem,
            "HINDSIGHT_WEBHOOK_SECRET": secret,
            "HINDSIGHT_GITHUB_API_URL": sim.base_url,
            "HINDSIGHT_APP_SLUG": "hindsight",
            "HINDSIGHT_CONFIG": str(config),
            "HINDSIGHT_STORE_DIR": str(tmp_path / "store"),
            "HINDSIGHT_JOB_LEASE_S": "1",
            "HINDSIGHT_WRITEBACK_COALESCE_MS": "0",
            "HINDSIGHT_LOG_LEVEL": log_level,
        }
        deps = build_deps(settings, engine=engine, github=make_client(sim))
        with serve(create_app(settings, deps=deps, run_worker=False)) as url:
            sim.configure_webhooks(f"{url}/webhooks", secret)
            sim.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION_ID)
            yield Stage(sim, engine, url, settings, tmp_path, env)


# --- what the invariants read ---------------------------------------------------------------


def jobs_completed_once(stage: Stage) -> None:
    """Every job is done, and no two runs of one job both finished it."""
    jobs = stage.jobs()
    assert jobs and {job.state for job in jobs} == {JobState.DONE.value}, [
        (job.id, job.kind, job.state, job.last_error) for job in jobs
    ]
    finished = Counter(int(n) for n in JOB_DONE.findall(stage.worker_output()))
    twice = {job: count for job, count in finished.items() if count > 1}
    assert not twice, f"jobs finished more than once: {twice}"


def one_review_per_pull(stage: Stage, numbers: list[int]) -> None:
    """Each PR got exactly one review: one POST answered, one review on GitHub, one record."""
    sim = stage.sim
    for number in numbers:
        posts = [
            r
            for r in sim.requests("POST", REVIEW_POSTS)
            if r.path.endswith(f"/pulls/{number}/reviews") and r.status == 200
        ]
        assert len(posts) == 1, f"PR {number}: {len(posts)} review POSTs"
        assert len(sim.reviews(REPO, number, include_implicit=False)) == 1, f"PR {number}"
    with reading(stage.engine) as conn:
        records = conn.execute(select(ReviewRow)).all()
    assert sorted(r.pr for r in records) == sorted(numbers), "one review record per PR"
    for record in records:
        (posted,) = sim.reviews(REPO, record.pr, include_implicit=False)
        assert (record.state, record.github_review_id) == ("posted", posted["id"])


def suggestions_match_comments(
    sim: GitHubSimulator, engine: Engine, numbers: list[int]
) -> dict[str, tuple[int, int]]:
    """The bot's comments and the stored suggestions are the same set, one for one; answers
    suggestion id → (PR, comment id)."""
    on_github: dict[str, tuple[int, int]] = {}
    for number in numbers:
        for comment in sim.review_comments(REPO, number):
            marker = parse_suggestion_marker(comment["body"])
            if marker is not None and comment["user"]["login"] == sim.bot_login:
                assert marker.suggestion_id not in on_github, "a suggestion posted twice"
                on_github[marker.suggestion_id] = (number, int(comment["id"]))
    with reading(engine) as conn:
        stored = conn.execute(select(Suggestion.id, Suggestion.pr)).all()
    ids = [row.id for row in stored]
    assert len(ids) == len(set(ids))
    assert set(ids) == set(on_github), "a stored suggestion without its comment, or the reverse"
    assert on_github, "the reviews found nothing: the scenario proves nothing"
    return on_github


def comment_ids_recorded(engine: Engine, on_github: dict[str, tuple[int, int]]) -> None:
    with reading(engine) as conn:
        stored = dict(conn.execute(select(Suggestion.id, Suggestion.comment_id)).all())
    expected = {sid: comment for sid, (_, comment) in on_github.items()}
    assert stored == expected, "every suggestion is tied to the comment carrying its marker"


def receipts(engine: Engine) -> list[Receipt]:
    with reading(engine) as conn:
        return list(conn.execute(select(Receipt).order_by(Receipt.id)).all())  # type: ignore[arg-type]


# --- the app in this process, its worker run by hand -----------------------------------------


@contextmanager
def in_process(
    engine: Engine, tmp_path: Path, toml: str, *, timeout_s: float = 5.0
) -> Iterator[Harness]:
    """The app (ingress served, worker run by hand with a clock tests can move) with a GitHub
    client whose requests time out after `timeout_s`."""
    config = tmp_path / "hindsight.toml"
    config.write_text(toml)
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim:
        settings = app_settings(
            sim, engine.url.render_as_string(hide_password=False), tmp_path, app_slug="hindsight"
        )
        clock = MsClock()
        github = make_client(sim, timeout_s=timeout_s)
        deps = build_deps(settings, engine=engine, github=github, clock=clock)
        with serve(create_app(settings, deps=deps, run_worker=False)) as url:
            sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET)
            sim.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION_ID)
            worker = Worker(deps, build_router(), concurrency=2)
            harness = Harness(sim, engine, settings, deps, url, worker, clock, tmp_path / "store")
            harness.run()
            yield harness


def job_of(engine: Engine, kind: str) -> Job:
    with reading(engine) as conn:
        rows = conn.execute(select(Job).where(Job.kind == kind)).all()
    assert len(rows) == 1, f"{len(rows)} jobs of kind {kind}"
    return rows[0]  # type: ignore[return-value]


def run_until_done(
    h: Harness, kind: str, *, between: Callable[[], None] | None = None, limit: int = 10
) -> list[tuple[int, str]]:
    """Run the worker, moving the clock past each backoff or rate limit, until the job of `kind`
    is settled; answers (attempts, last_error) as seen after each run that left it queued.
    `between` runs before the clock moves on."""
    seen: list[tuple[int, str]] = []
    for _ in range(limit):
        h.run()
        job = job_of(h.engine, kind)
        if job.state in TERMINAL:
            return seen
        assert job.state == JobState.QUEUED.value, (job.state, job.last_error)
        seen.append((job.attempts, job.last_error or ""))
        if between is not None:
            between()
        h.clock.advance((job.run_after_ms - h.clock()) / 1000 + 1)
    raise AssertionError(f"the {kind} job did not settle in {limit} runs: {seen}")


def maintainer_says(sim: GitHubSimulator, number: int, comment_id: int, body: str) -> None:
    """The repository's owner replies in the thread of `comment_id`."""
    sim.reply(REPO, number, comment_id, body, author="octocat", author_association="OWNER")


def api_token(engine: Engine, person: str = "octocat") -> str:
    """A `/v1` token for `person` in the installed account."""
    with engine.begin() as conn:
        return persons.create_token(conn, ORG, person, now=now_ms()).secret


def ledger_of(h: Harness, token: str) -> dict[str, Any]:
    """`GET /v1/review-ledger` for the repository, as an API client reads it."""
    response = httpx.get(
        f"{h.url}/v1/review-ledger", headers={"authorization": f"Bearer {token}"}, timeout=30
    )
    assert response.status_code == 200, response.text
    (repository,) = [r for r in response.json()["repositories"] if r["repository"] == REPO]
    return repository  # type: ignore[no-any-return]
