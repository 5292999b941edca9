"""Catching up after downtime: deliveries GitHub could not make are listed through the app's
hook-deliveries API and redelivered under their own ids; running it twice changes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, func, select

from ghapp.app import build_deps, create_app
from ghapp.cli import main as cli_main
from ghapp.github.values import HookDelivery
from ghapp.redeliver import parse_duration, still_failed
from ghapp.tables import Delivery, Job
from ghsim import GitHubSimulator
from tests.conftest import WEBHOOK_SECRET
from tests.support.processes import free_port
from tests.support.simulator import APP_ID, ORG, REPO, app_key, app_settings, make_client
from tests.support.web import serve

DELIVERIES = "/app/hook/deliveries"


@pytest.fixture(autouse=True)
def quiet_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)


@pytest.fixture
def sim() -> Iterator[GitHubSimulator]:
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as simulator:
        yield simulator


def counts(engine: Engine) -> tuple[int, int]:
    with engine.connect() as conn:
        deliveries = conn.execute(select(func.count()).select_from(Delivery)).scalar_one()
        jobs = conn.execute(select(func.count()).select_from(Job)).scalar_one()
    return deliveries, jobs


def test_failed_deliveries_are_redelivered_once(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    sim: GitHubSimulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Yesterday's failure is outside the window; today's app is down (nothing listens).
    sim.configure_webhooks(f"http://127.0.0.1:{free_port()}/webhooks", WEBHOOK_SECRET)
    sim.advance_clock(-86_400)
    sim.add_installation("old-org", repositories=["old-org/app"])
    sim.advance_clock(86_400)
    sim.add_installation(ORG, repositories=[REPO])
    sim.open_pull(REPO, title="While the app was down")
    failed = [d for d in sim.deliveries if d.status == 0]
    assert len(failed) == 3 and all("failed to connect" in d.response_text for d in failed)

    settings = app_settings(sim, database_url, tmp_path)
    app = create_app(settings, deps=build_deps(settings, engine=engine), run_worker=False)
    for name, value in (
        ("HINDSIGHT_DATABASE_URL", database_url),
        ("HINDSIGHT_GITHUB_APP_ID", str(APP_ID)),
        ("HINDSIGHT_GITHUB_PRIVATE_KEY", app_key().private_pem),
        ("HINDSIGHT_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("HINDSIGHT_GITHUB_API_URL", sim.base_url),
    ):
        monkeypatch.setenv(name, value)
    with serve(app) as url:
        sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET, emit=False)
        sim.reset_log()
        assert cli_main(["redeliver", "--since", "6h", "--dry-run"]) == 0
        assert counts(engine) == (0, 0), "a dry run asks for nothing"
        capsys.readouterr()

        assert cli_main(["redeliver", "--since", "6h"]) == 0
        out = capsys.readouterr()
        listed = out.out.splitlines()
        assert len(listed) == 2 and all(" 0 failed to connect to host" in x for x in listed)
        assert "asked GitHub to redeliver 2" in out.err
        stored, jobs = counts(engine)
        assert stored == 2 and jobs >= 2
        with engine.connect() as conn:
            ids = set(conn.execute(select(Delivery.id)).scalars())
        assert ids == {d.id for d in failed[1:]}, "redelivered under their own X-GitHub-Delivery"
        assert sim.count("POST") == 2 and all(r.auth == "jwt" for r in sim.requests("POST")), (
            "one redelivery each, asked as the app"
        )

        assert cli_main(["redeliver", "--since", "6h"]) == 0
        assert "asked GitHub to redeliver 0" in capsys.readouterr().err
        assert counts(engine) == (stored, jobs), "a second run finds nothing left to redeliver"

        # Two catch-ups that listed the same failures before either asked: the app's
        # deduplication answers the second redelivery of each as a duplicate.
        github = make_client(sim)
        since = datetime.now(UTC) - timedelta(hours=6)
        earlier = [a for a in asyncio.run(github.hook_deliveries(since)) if not a.redelivery]
        for attempt in still_failed(earlier):
            asyncio.run(github.redeliver(attempt.id))
        assert counts(engine) == (stored, jobs)
        again = sim.deliveries[-2:]
        assert [d.status for d in again] == [200, 200]
        assert all(b'"duplicate":true' in d.response_text.encode() for d in again)


def test_the_list_is_followed_page_by_page(sim: GitHubSimulator) -> None:
    sim.configure_webhooks(f"http://127.0.0.1:{free_port()}/webhooks", WEBHOOK_SECRET)
    for number in range(105):
        sim.deliver("ping", {"zen": f"Keep it logically awesome {number}", "hook_id": number})
    github = make_client(sim)
    found = asyncio.run(github.hook_deliveries(datetime.now(UTC) - timedelta(hours=1)))
    assert len(found) == 105 and len({a.guid for a in found}) == 105
    pages = sim.requests("GET", DELIVERIES)
    assert len(pages) == 2 and pages[1].query.get("cursor")
    assert all(a.status_code == 0 and not a.ok for a in found)


def test_a_delivery_that_succeeded_since_is_left_alone() -> None:
    def attempt(number: int, guid: str, status: int) -> HookDelivery:
        return HookDelivery(number, guid, None, number > 2, status, "", "pull_request", None)

    found = still_failed(
        [attempt(4, "a", 202), attempt(3, "b", 0), attempt(2, "a", 502), attempt(1, "b", 0)]
    )
    assert [(a.id, a.guid) for a in found] == [(3, "b")]


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("30m", 1800), ("6h", 21600)])
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text).total_seconds() == seconds


def test_a_bad_duration_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["redeliver", "--since", "yesterday"]) == 2
    assert "--since 'yesterday' is not a duration" in capsys.readouterr().err


def test_the_simulator_refuses_an_unknown_delivery(sim: GitHubSimulator) -> None:
    from tests.support.simulator import app_jwt

    headers = {"authorization": f"Bearer {app_jwt(app_key())}"}
    answer = httpx.post(f"{sim.base_url}{DELIVERIES}/999/attempts", headers=headers)
    assert answer.status_code == 404
    assert httpx.get(f"{sim.base_url}{DELIVERIES}").status_code == 401
