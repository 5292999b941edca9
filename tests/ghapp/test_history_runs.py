"""The history back-fill under pressure: two at once, a second request, the installation removed
mid-run, the runner killed and restarted; each over real HTTP to the simulator."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, update

from continual.history.runs import Run, RunState
from continual.tables import (
    HistoryLesson,
    HistoryPublication,
    HistoryPull,
    HistoryRefusal,
    MemoryItemRow,
)
from ghapp.db import reading
from ghapp.history import LEASE_MS, Backfill, Options, schedule
from ghapp.jobs import now_ms
from ghapp.tables import Installation
from ghsim import GitHubSimulator
from ghsim.history import History, seed_history
from review.seats import make_seat
from tests.support.discover_seat import discovery_seat
from tests.support.history import comments_of, facts_of, run_of
from tests.support.simulator import APP_ID, ORG, REPO, app_key, make_client, wait_until

INSTALLATION = 77


@pytest.fixture
def sim() -> Iterator[GitHubSimulator]:
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim:
        yield sim


def installed(
    engine: Engine, sim: GitHubSimulator, pulls: int, comments: int = 4, refuse_bots: bool = False
) -> History:
    """The repository with a past, and the app's rows for it as an install leaves them."""
    sim.world.add_repository(REPO)
    history = seed_history(
        sim.world, REPO, pulls_count=pulls, comments_per_pull=comments, refuse_bots=refuse_bots
    )
    sim.world.add_installation(ORG, installation_id=INSTALLATION)
    sim.world.attach(REPO, INSTALLATION)
    repo = sim.world.repo(REPO)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO accounts (id, login, type, created_ms, store_generation) "
            f"VALUES ({repo.owner.id}, '{ORG}', 'Organization', 0, 0)"
        )
        conn.exec_driver_sql(
            "INSERT INTO installations (id, account_id, created_ms) "
            f"VALUES ({INSTALLATION}, {repo.owner.id}, 0)"
        )
        conn.exec_driver_sql(
            "INSERT INTO repositories (id, account_id, installation_id, full_name) "
            f"VALUES ({repo.id}, {repo.owner.id}, {INSTALLATION}, '{REPO}')"
        )
    return history


def ask(engine: Engine, sim: GitHubSimulator) -> tuple[Run, bool]:
    repo = sim.world.repo(REPO)
    with engine.begin() as conn:
        return schedule(
            conn,
            account_id=repo.owner.id,
            repository_id=repo.id,
            installation_id=INSTALLATION,
            now_ms=now_ms(),
        )


def backfill(engine: Engine, sim: GitHubSimulator, **options: object) -> Backfill:
    client = make_client(sim).installation(INSTALLATION)
    return Backfill(
        client,
        engine,
        sim.world.repo(REPO).id,
        options=Options(),
        clock=options.pop("clock", now_ms),  # type: ignore[arg-type]
        **options,  # type: ignore[arg-type]
    )


def list_reads(sim: GitHubSimulator) -> int:
    return len([r for r in sim.requests("GET") if r.path == f"/repos/{REPO}/pulls"])


def pulls_kept(engine: Engine) -> int:
    with reading(engine) as conn:
        return int(conn.execute(select(func.count()).select_from(HistoryPull)).scalar_one())


def test_two_back_fills_of_one_repository_at_once_one_runs(
    engine: Engine, sim: GitHubSimulator
) -> None:
    history = installed(engine, sim, pulls=4)
    first, new = ask(engine, sim)
    again, second_new = ask(engine, sim)
    assert new and not second_new and again.generation == first.generation
    sim.inject("GET", r"/comments$", latency_s=0.05, times=None)

    async def both() -> list[object]:
        return list(await asyncio.gather(backfill(engine, sim).run(), backfill(engine, sim).run()))

    outcomes = asyncio.run(both())
    held = [o for o in outcomes if getattr(o, "held_elsewhere", False)]
    assert len(held) == 1
    run = run_of(engine)
    assert run is not None and run.state is RunState.DONE
    assert pulls_kept(engine) == 4 and len(facts_of(engine)) == history.addressed
    assert list_reads(sim) == 1


def test_a_new_request_reads_only_what_is_new(engine: Engine, sim: GitHubSimulator) -> None:
    history = installed(engine, sim, pulls=3)
    ask(engine, sim)
    asyncio.run(backfill(engine, sim).run())
    facts = sorted(f.subject for f in facts_of(engine))
    sim.reset_log()
    run, new = ask(engine, sim)
    assert new and run.generation == 2
    asyncio.run(backfill(engine, sim).run())
    again = run_of(engine)
    assert again is not None and again.state is RunState.DONE and again.prs_read == 0
    # One list page (a new client mints its token): every pull request on it was read before.
    assert len(sim.requests("GET")) == list_reads(sim) == 1
    assert sorted(f.subject for f in facts_of(engine)) == facts
    assert len(facts) == history.addressed


def nothing_else_kept(engine: Engine) -> bool:
    with reading(engine) as conn:
        return all(
            conn.execute(select(func.count()).select_from(table)).scalar_one() == 0
            for table in (HistoryRefusal, HistoryLesson, HistoryPublication)
        )


@pytest.mark.parametrize("at", [2, 5])  # mid-run; after the last read, while the seat answers
def test_the_installation_removed_mid_run_stops_with_nothing_published(
    engine: Engine, sim: GitHubSimulator, tmp_path: Path, at: int
) -> None:
    installed(engine, sim, pulls=5, refuse_bots=True)
    ask(engine, sim)
    seat = discovery_seat(tmp_path / "finder")

    def remove_after_two(run: Run) -> None:
        if run.prs_read == at:
            with engine.begin() as conn:
                conn.execute(
                    update(Installation)
                    .where(Installation.id == INSTALLATION)
                    .values(deleted_ms=now_ms())
                )

    client = make_client(sim).installation(INSTALLATION)
    options = Options(app_slug="hindsight", seat=make_seat(seat.config()))
    run = Backfill(
        client,
        engine,
        sim.world.repo(REPO).id,
        options=options,
        clock=now_ms,
        on_progress=remove_after_two,
    )
    outcome = asyncio.run(run.run())
    assert outcome.run is not None and outcome.run.state is RunState.STOPPED
    assert outcome.run.last_error == "the installation was removed"
    assert pulls_kept(engine) == 0 and comments_of(engine) == [] and facts_of(engine) == []
    assert nothing_else_kept(engine)
    assert len(seat.calls()) == (1 if at == 5 else 0)  # asked, and still nothing published


RUNNER = """
import asyncio, sys
from sqlalchemy import create_engine
from ghapp.github.client import GitHubClient
from ghapp.history import Backfill, Options
from ghapp.jobs import now_ms
url, base, key, repo_id = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
client = GitHubClient(app_id=424242, private_key_pem=open(key).read(), base_url=base,
                      trust_env=False)
engine = create_engine(url)
asyncio.run(Backfill(client.installation(77), engine, repo_id, options=Options(),
                     clock=now_ms).run())
"""


def test_a_runner_killed_mid_run_is_resumed_where_it_stopped(
    engine: Engine, sim: GitHubSimulator, tmp_path: Path
) -> None:
    history = installed(engine, sim, pulls=8)
    ask(engine, sim)
    key = tmp_path / "key.pem"
    key.write_text(app_key().private_pem)
    sim.inject("GET", r"/comments$", latency_s=0.3, times=None)
    url = engine.url.render_as_string(hide_password=False)
    argv = [sys.executable, "-c", RUNNER, url, sim.base_url, str(key)]
    child = subprocess.Popen([*argv, str(sim.world.repo(REPO).id)], cwd=Path.cwd())
    try:
        assert wait_until(lambda: pulls_kept(engine) >= 3, timeout_s=30)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    stopped_at = pulls_kept(engine)
    assert 3 <= stopped_at < 8
    sim.clear_faults()
    # Its lease still holds the run: a second runner waits until it lapses, then resumes.
    held = asyncio.run(backfill(engine, sim).run())
    assert held.held_elsewhere
    assert sim.wait_quiet()  # the killed runner's last request, answered late, is not counted
    sim.reset_log()
    outcome = asyncio.run(backfill(engine, sim, clock=lambda: now_ms() + LEASE_MS + 1).run())
    assert outcome.run is not None and outcome.run.state is RunState.DONE
    assert outcome.run.prs_read == 8 and pulls_kept(engine) == 8
    assert len(facts_of(engine)) == history.addressed
    read = [request.path for request in sim.requests("GET")]
    assert len(read) <= 1 + 3 * (8 - stopped_at), read  # the pull requests read before: not again
    with reading(engine) as conn:
        rows = conn.execute(select(func.count()).select_from(MemoryItemRow)).scalar_one()
    assert rows == history.addressed
