"""`/metrics`: scraped after a delivery, a review and a maintainer's reply through the simulator,
and parsed with prometheus_client's own parser."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr
from sqlalchemy import Engine, func, select

from continual.tables import ReviewCallRow, Suggestion
from ghapp.app import build_deps, create_app
from ghapp.db import reading
from ghapp.settings import Settings
from ghapp.tables import Job
from tests.conftest import WEBHOOK_SECRET
from tests.support.processes import free_port, start, stop
from tests.support.reliability import stage
from tests.support.review import REPO, bug_files, harness, seat_toml
from tests.support.web import deliver, wait_for

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str, **headers: str) -> Samples:
    response = httpx.get(f"{url}/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_metrics_after_a_delivery_a_review_and_a_reply(engine: Engine, tmp_path: Path) -> None:
    with harness(engine, tmp_path, seat_toml(tmp_path, "alpha")) as h:
        h.sim.open_pull(REPO, title="Parse the config", files=bug_files(1))
        h.run()
        assert h.review_posts() == 1
        (comment, *_) = h.sim.review_comments(REPO, 1)
        h.sim.reply(REPO, 1, comment["id"], "accepted")
        h.run()
        with httpx.Client() as client:
            unsigned = deliver(client, h.url, "not the secret", "pull_request", {"action": "x"})
            assert unsigned.status_code == 401
        samples = scrape(h.url)

    deliveries = "hindsight_webhook_deliveries_total"
    assert value(samples, deliveries, event="installation", outcome="recorded") == 1
    assert value(samples, deliveries, event="pull_request", outcome="recorded") == 1
    assert value(samples, deliveries, event="pull_request_review_comment", outcome="recorded") >= 1
    assert value(samples, deliveries, event="-", outcome="bad_signature") == 1

    with reading(engine) as conn:
        done = conn.execute(
            select(func.count()).select_from(Job).where(Job.state == "done")
        ).scalar_one()
        calls = conn.execute(select(func.count()).select_from(ReviewCallRow)).scalar_one()
        # One comment carries the finding of every lens that raised it: the reply decides each.
        carried = conn.execute(
            select(func.count())
            .select_from(Suggestion)
            .where(Suggestion.comment_id == comment["id"])
        ).scalar_one()
    assert value(samples, "hindsight_jobs", state="done") == done > 0
    assert value(samples, "hindsight_jobs", state="dead") == 0
    assert value(samples, "hindsight_review_calls", seat="alpha", status="ok") == calls > 0
    assert value(samples, "hindsight_decisions", signal="grammar", decision="accepted") == carried
    assert value(samples, "hindsight_lessons", state="active") == carried
    assert ("hindsight_lessons", frozenset({("state", "expired")})) in samples, "zeros listed"

    review_runs = value(
        samples, "hindsight_jobs_run_total", kind="pull_request.review", outcome="done"
    )
    assert review_runs == 1
    assert value(samples, "hindsight_job_duration_seconds_count", kind="pull_request.review") == 1
    posted = value(samples, "hindsight_github_requests_total", method="POST", status="200")
    assert posted >= 1, "the review was posted through GitHub's API"
    remaining = value(samples, "hindsight_github_rate_limit_remaining", resource="core")
    assert 0 < remaining < 15000


def test_metrics_are_for_loopback_or_a_token(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    def get(token: str | None, client: str, **headers: str) -> httpx.Response:
        settings = Settings(
            database_url=database_url,
            webhook_secret=SecretStr(WEBHOOK_SECRET),
            metrics_token=None if token is None else SecretStr(token),
            config=tmp_path / "absent.toml",
        )
        app = create_app(settings, deps=build_deps(settings, engine=engine), run_worker=False)
        transport = httpx.ASGITransport(app=app, client=(client, 40000))

        async def ask() -> httpx.Response:
            async with httpx.AsyncClient(transport=transport, base_url="http://app") as http:
                return await http.get("/metrics", headers=headers)

        return asyncio.run(ask())

    assert get(None, "127.0.0.1").status_code == 200
    assert get(None, "::1").status_code == 200
    refused = get(None, "10.1.2.3")
    assert refused.status_code == 403
    assert "HINDSIGHT_METRICS_TOKEN" in refused.json()["error"]["message"]
    assert get("scrape-me", "127.0.0.1").status_code == 401, "a token binds loopback too"
    assert get("scrape-me", "10.1.2.3", authorization="Bearer wrong").status_code == 401
    answered = get("scrape-me", "10.1.2.3", authorization="Bearer scrape-me")
    assert answered.status_code == 200 and "hindsight_jobs" in answered.text


def test_a_worker_process_serves_its_own_metrics_on_loopback(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with stage(engine, database_url, tmp_path) as staged:
        port = free_port()
        worker = start(["worker", "--no-review", "--metrics-port", str(port)], staged.env, tmp_path)
        url = f"http://127.0.0.1:{port}"

        def ran_the_installation_job() -> bool:
            try:
                samples = scrape(url)
            except httpx.HTTPError:
                return worker.poll() is not None
            done = sum(
                count
                for (name, labels), count in samples.items()
                if name == "hindsight_jobs_run_total" and ("outcome", "done") in labels
            )
            return done >= 1 and value(samples, "hindsight_jobs", state="done") >= 1

        try:
            wait_for(ran_the_installation_job, timeout=60, what="the worker to run its job")
            assert worker.poll() is None
        finally:
            stop(worker)
