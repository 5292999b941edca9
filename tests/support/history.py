"""A repository with a past on the simulator, and the app installed on it afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from continual.history.runs import Run, read_run
from continual.tables import HistoryComment, MemoryItemRow, Repository
from ghapp.app import build_deps, create_app
from ghapp.db import reading
from ghapp.history import schedule
from ghapp.jobs import now_ms
from ghsim import GitHubSimulator
from ghsim.history import History, seed_history
from tests.conftest import WEBHOOK_SECRET
from tests.support.app_harness import INSTALLATION_ID, Harness
from tests.support.simulator import (
    APP_ID,
    ORG,
    REPO,
    app_key,
    app_settings,
    make_client,
    wait_until,
)
from tests.support.web import serve


@contextmanager
def app_with_history(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    *,
    pulls: int,
    comments: int,
    install: bool = True,
    seed: dict[str, Any] | None = None,
    **settings: Any,
) -> Iterator[tuple[Harness, History]]:
    """The simulator holding ``pulls`` merged pull requests of ``comments`` review comments each
    in `octo-org/widgets`, then the app (web + worker) installed on it (installation 77) unless
    ``install`` is False."""
    key = app_key()
    with GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim:
        sim.world.add_repository(REPO)
        history = seed_history(
            sim.world, REPO, pulls_count=pulls, comments_per_pull=comments, **(seed or {})
        )
        config = app_settings(
            sim, database_url, tmp_path, **{"history_on_install": True, **settings}
        )
        deps = build_deps(config, engine=engine, github=make_client(sim))
        with serve(create_app(config, deps=deps)) as url:
            sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET)
            harness = Harness(sim=sim, url=url, engine=engine, settings=config)
            if install:
                sim.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION_ID)
                harness.settle()
            yield harness, history


def run_of(engine: Engine, full_name: str = REPO) -> Run | None:
    with reading(engine) as conn:
        repository_id = conn.execute(
            select(Repository.id).where(Repository.full_name == full_name)
        ).scalar_one_or_none()
        return read_run(conn, repository_id) if repository_id is not None else None


def wait_for_run(engine: Engine, *, timeout: float = 20.0, full_name: str = REPO) -> Run:
    """The repository's run once it has ended (done or stopped)."""
    ended: list[Run] = []

    def finished() -> bool:
        run = run_of(engine, full_name)
        if run is not None and not run.live:
            ended[:] = [run]
            return True
        return False

    assert wait_until(finished, timeout_s=timeout), f"the back-fill did not end: {run_of(engine)}"
    return ended[0]


def comments_of(engine: Engine) -> list[Any]:
    with reading(engine) as conn:
        return list(conn.execute(select(*HistoryComment.__table__.c)).all())


def facts_of(engine: Engine) -> list[Any]:
    with reading(engine) as conn:
        return list(
            conn.execute(
                select(*MemoryItemRow.__table__.c).where(MemoryItemRow.source == "history")
            ).all()
        )


def ask_backfill(engine: Engine, full_name: str = REPO) -> None:
    """Ask for the repository's next back-fill, as `hindsight backfill --detach` does."""
    with engine.begin() as conn:
        row = conn.execute(
            select(Repository.id, Repository.account_id, Repository.installation_id).where(
                Repository.full_name == full_name
            )
        ).one()
        schedule(
            conn,
            account_id=row.account_id,
            repository_id=row.id,
            installation_id=row.installation_id,
            now_ms=now_ms(),
        )
