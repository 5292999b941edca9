"""Two worker processes write back the same repository at once: one entry, every receipt, no loss."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import Engine, select

from continual.tables import Entry, Receipt
from ghapp.app import build_deps, create_app
from ghapp.db import reading
from ghapp.tables import Job
from ghsim import GitHubSimulator
from tests.conftest import WEBHOOK_SECRET
from tests.support.app_harness import INSTALLATION_ID, Harness
from tests.support.simulator import APP_ID, ORG, REPO, app_key, app_settings, make_client
from tests.support.web import serve

ROOT = Path(__file__).resolve().parents[2]
PULLS = 12


def test_two_workers_on_one_repository_keep_entries_consistent(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    key = app_key()
    with GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim:
        settings = app_settings(sim, database_url, tmp_path, config=tmp_path / "absent.toml")
        deps = build_deps(settings, engine=engine, github=make_client(sim))
        with serve(create_app(settings, deps=deps)) as url:
            # The web process runs its own worker only while the scene is set up.
            sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET)
            sim.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION_ID)
            harness = Harness(sim=sim, url=url, engine=engine, settings=settings)
            harness.settle()
            numbers = []
            for _ in range(PULLS):
                pull = sim.open_pull(REPO, files={"src/app.py": "@@ -1,1 +1,2 @@\n a\n+b"})
                numbers.append(int(pull["number"]))
            harness.settle()
            for number in numbers:  # the same mechanism on every PR, accepted every time
                _, comment = harness.plant_suggestion(number)
                sim.reply(
                    REPO, number, comment, "accept", author="octocat", author_association="OWNER"
                )
            harness.settle()
            sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET, emit=False)
            for number in numbers:
                sim.close(REPO, number)
        # Deliver the closes with no worker running, then let two processes race over them.
        with serve(create_app(settings, deps=deps, run_worker=False)) as url:
            sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET)
            for number in numbers:
                sim.deliver("pull_request", sim.payloads.pull_request("closed", REPO, number))
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "HINDSIGHT_DATABASE_URL": database_url,
            "HINDSIGHT_GITHUB_APP_ID": str(APP_ID),
            "HINDSIGHT_GITHUB_PRIVATE_KEY": key.private_pem,
            "HINDSIGHT_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "HINDSIGHT_GITHUB_API_URL": sim.base_url,
            "HINDSIGHT_CONFIG": str(tmp_path / "absent.toml"),
            "HINDSIGHT_STORE_DIR": str(tmp_path / "store"),
            "HINDSIGHT_WORKER_CONCURRENCY": "6",
        }
        command = [sys.executable, "-m", "ghapp.cli", "worker", "--until-idle", "--no-review"]
        workers = [subprocess.Popen(command, env=env, cwd=tmp_path) for _ in range(2)]
        for worker in workers:
            assert worker.wait(timeout=120) == 0

    with reading(engine) as conn:
        jobs = (
            conn.execute(select(Job.state).where(Job.kind == "pull_request.writeback"))
            .scalars()
            .all()
        )
        entries = conn.execute(select(Entry)).all()
        receipts = conn.execute(select(Receipt)).all()
    assert jobs and set(jobs) == {"done"}
    assert len(entries) == 1, "one entry per mechanism per repository"
    assert len(receipts) == PULLS and all(not r.superseded for r in receipts)
    assert entries[0].revision == 1 + PULLS, "every receipt bumped the revision once, none lost"
