"""`hindsight serve` and `hindsight worker` as real processes, configured only by the environment."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.tables import Repository
from ghapp.db import reading
from ghapp.tables import Job
from ghsim import GitHubSimulator
from tests.conftest import WEBHOOK_SECRET
from tests.support.processes import environment, free_port, ready, start, stop
from tests.support.simulator import APP_ID, ORG, REPO, app_key
from tests.support.web import wait_for


@pytest.fixture
def sim() -> Iterator[GitHubSimulator]:
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as simulator:
        yield simulator


def test_serve_records_webhooks_and_its_worker_runs_them(
    engine: Engine, database_url: str, tmp_path: Path, sim: GitHubSimulator
) -> None:
    port = free_port()
    server = start(
        ["serve", "--no-review", "--port", str(port)],
        environment(sim, database_url, tmp_path),
        tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: ready(url) or server.poll() is not None, timeout=120, what="serve to be ready"
        )
        assert server.poll() is None
        sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET)
        sim.add_installation(ORG, repositories=[REPO])

        def installed() -> bool:
            with reading(engine) as conn:
                return conn.execute(select(Repository.full_name)).scalars().all() == [REPO]

        wait_for(installed, what="the installation job to run")
    finally:
        output = stop(server)
    assert "key SHA256:" in output, "the key is shown only by its fingerprint"
    assert "PRIVATE KEY" not in output and WEBHOOK_SECRET not in output


def test_web_only_replica_and_a_separate_worker(
    engine: Engine, database_url: str, tmp_path: Path, sim: GitHubSimulator
) -> None:
    env = environment(sim, database_url, tmp_path)
    port = free_port()
    server = start(["serve", "--no-worker", "--no-review", "--port", str(port)], env, tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            lambda: ready(url) or server.poll() is not None, timeout=120, what="serve to be ready"
        )
        sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET)
        sim.add_installation(ORG, repositories=[REPO])
        with reading(engine) as conn:
            (state,) = conn.execute(select(Job.state)).scalars().all()
        assert state == "queued", "a web-only replica runs no job"
    finally:
        stop(server)
    worker = start(["worker", "--until-idle", "--no-review"], env, tmp_path)
    output = stop_after_exit(worker)
    assert "ran 2 jobs" in output  # the installation, and the history back-fill it schedules
    with reading(engine) as conn:
        assert conn.execute(select(Job.state)).scalars().all() == ["done", "done"]
        assert conn.execute(select(Repository.full_name)).scalars().all() == [REPO]


def stop_after_exit(process: subprocess.Popen[str]) -> str:
    assert process.wait(timeout=60) == 0
    return stop(process)


def test_serve_refuses_a_missing_key_file(
    database_url: str, tmp_path: Path, sim: GitHubSimulator
) -> None:
    env = environment(sim, database_url, tmp_path)
    env["HINDSIGHT_GITHUB_PRIVATE_KEY_FILE"] = str(tmp_path / "missing.pem")
    result = subprocess.run(
        [sys.executable, "-m", "ghapp.cli", "serve"], env=env, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "HINDSIGHT_GITHUB_PRIVATE_KEY_FILE" in result.stderr


@pytest.mark.skipif(
    not os.environ.get("HINDSIGHT_TEST_DATABASE_URL"),
    reason="PostgreSQL is never migrated implicitly",
)
def test_serve_and_worker_refuse_an_unmigrated_postgresql(
    tmp_path: Path, sim: GitHubSimulator
) -> None:
    from sqlalchemy import create_engine, text

    url = os.environ["HINDSIGHT_TEST_DATABASE_URL"]
    schema = f"unmigrated_{os.getpid()}"
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        scoped = f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
        env = environment(sim, scoped, tmp_path)
        for command in (["serve", "--no-review"], ["worker", "--until-idle", "--no-review"]):
            result = subprocess.run(
                [sys.executable, "-m", "ghapp.cli", *command],
                env=env,
                capture_output=True,
                text=True,
            )
            assert result.returncode == 2, result.stderr
            assert "run `hindsight migrate`" in result.stderr
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
