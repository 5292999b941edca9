"""GitHub faults through the job runner, and the installation lifecycle keeping the tables true."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.tables import Account, Repository
from ghapp.db import reading
from ghapp.tables import Installation, Job
from tests.support.app_harness import INSTALLATION_ID, Harness, running_app
from tests.support.simulator import ORG, REPO


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def writeback_jobs(app: Harness) -> list[Job]:
    with reading(app.engine) as conn:
        return list(
            conn.execute(
                select(Job).where(Job.kind == "pull_request.writeback").order_by(Job.id)
            ).all()  # type: ignore[arg-type]
        )


def pull_with_suggestion(app: Harness) -> int:
    pull = app.sim.open_pull(REPO, files={"src/app.py": "@@ -1,1 +1,2 @@\n import os\n+x = 1"})
    app.settle()
    number = int(pull["number"])
    app.plant_suggestion(number)
    return number


def test_secondary_rate_limit_reschedules_for_retry_after(app: Harness) -> None:
    number = pull_with_suggestion(app)
    app.sim.inject(
        "GET",
        rf"/pulls/{number}/comments",
        status=403,
        headers={"retry-after": "120"},
        body={"message": "You have exceeded a secondary rate limit."},
    )
    app.sim.close(REPO, number)
    app.settle()
    (job,) = writeback_jobs(app)
    assert (job.state, job.attempts) == ("queued", 0), "rescheduled without spending an attempt"
    assert job.run_after_ms - job.created_ms >= 110_000
    assert "rate limit" in (job.last_error or "")


def test_bad_gateway_is_retried_with_backoff_then_succeeds(app: Harness) -> None:
    number = pull_with_suggestion(app)
    fault = app.sim.inject("GET", rf"/pulls/{number}/comments", status=502)
    app.sim.close(REPO, number)
    app.settle()
    (job,) = writeback_jobs(app)
    assert (job.state, job.attempts) == ("queued", 1)
    assert "transient" in (job.last_error or "")
    assert fault.hits == 1
    with app.engine.begin() as conn:  # let the backoff pass
        conn.execute(Job.__table__.update().where(Job.id == job.id).values(run_after_ms=0))
    app.settle()
    (job,) = writeback_jobs(app)
    assert (job.state, job.attempts) == ("done", 2)


def test_installation_lifecycle_keeps_the_tables_true(app: Harness) -> None:
    def state() -> tuple[object, ...]:
        with reading(app.engine) as conn:
            installation = conn.execute(
                select(Installation).where(Installation.id == INSTALLATION_ID)
            ).one()
            repos = conn.execute(
                select(Repository.full_name, Repository.removed_ms).order_by(Repository.full_name)
            ).all()
            login = conn.execute(select(Account.login)).scalar_one()
        return (
            login,
            installation.suspended_ms is not None,
            installation.deleted_ms is not None,
            [(name, removed is not None) for name, removed in repos],
        )

    assert state() == (ORG, False, False, [(REPO, False)])
    app.sim.add_repository(f"{ORG}/gadgets")
    app.sim.add_repositories_to_installation(INSTALLATION_ID, [f"{ORG}/gadgets"])
    app.settle()
    assert state()[3] == [(f"{ORG}/gadgets", False), (REPO, False)]
    app.sim.remove_repositories_from_installation(INSTALLATION_ID, [f"{ORG}/gadgets"])
    app.settle()
    assert state()[3] == [(f"{ORG}/gadgets", True), (REPO, False)]

    app.sim.suspend_installation(INSTALLATION_ID)
    app.settle()
    assert state()[1] is True
    app.sim.open_pull(REPO)  # its review job is held while suspended
    app.settle()
    with reading(app.engine) as conn:
        held = conn.execute(select(Job.state).where(Job.kind == "pull_request.review")).scalar_one()
    assert held == "held"
    app.sim.unsuspend_installation(INSTALLATION_ID)
    app.settle()
    with reading(app.engine) as conn:
        ran = conn.execute(select(Job.state).where(Job.kind == "pull_request.review")).scalar_one()
    assert (state()[1], ran) == (False, "done")

    app.sim.delete_installation(INSTALLATION_ID)
    app.settle()
    assert state() == (ORG, False, True, [(f"{ORG}/gadgets", True), (REPO, True)])
