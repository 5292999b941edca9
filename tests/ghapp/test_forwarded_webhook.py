"""A repository webhook forwarded by `gh webhook forward` (a server with no public URL): its
deliveries name no installation; the app finds it with its JWT, cached, and records it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, select

from continual.tables import Repository
from ghapp.app import build_deps, create_app
from ghapp.tables import Installation, Job
from ghsim import GitHubSimulator
from tests.support.simulator import (
    APP_ID,
    ORG,
    REPO,
    WEBHOOK_SECRET,
    WebhookReceiver,
    app_key,
    app_settings,
    make_client,
)
from tests.support.web import deliver, serve

INSTALLATION_ID = 77
LOOKUP = f"/repos/{REPO}/installation"


@dataclass
class Forwarding:
    sim: GitHubSimulator
    url: str
    payload: dict[str, Any]  # a pull_request delivery as a repository webhook sends it


@contextmanager
def forwarding(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Forwarding]:
    """The app (web only) and the simulator; the app's own webhook reaches a relay, not the
    app, so the app hears of nothing but what is forwarded to it."""
    with (
        GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim,
        WebhookReceiver() as relay,
    ):
        config = app_settings(sim, database_url, tmp_path)
        deps = build_deps(config, engine=engine, github=make_client(sim))
        with serve(create_app(config, deps=deps, run_worker=False)) as url:
            sim.configure_webhooks(relay.url, WEBHOOK_SECRET)
            sim.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION_ID)
            sim.open_pull(REPO)
            (opened,) = [r for r in relay.received if r.headers["x-github-event"] == "pull_request"]
            payload = json.loads(opened.body)
            del payload["installation"]  # a repository webhook's delivery has none
            yield Forwarding(sim, url, payload)


def _forward(forwarding: Forwarding, payload: dict[str, Any]) -> httpx.Response:
    with httpx.Client(trust_env=False) as client:
        return deliver(client, forwarding.url, WEBHOOK_SECRET, "pull_request", payload)


def test_a_forwarded_delivery_gets_its_installation_once(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with forwarding(engine, database_url, tmp_path) as fw:
        first = _forward(fw, fw.payload)
        # Another delivery (same repository, another body): the installation is cached.
        second = _forward(fw, {**fw.payload, "action": "reopened"})
        lookups = [r for r in fw.sim.requests("GET") if r.path == LOOKUP]
    assert first.status_code == 202 and first.json()["jobs"] >= 1, first.text
    assert second.status_code == 202
    assert len(lookups) == 1 and lookups[0].auth == "jwt"
    with engine.connect() as conn:
        assert conn.execute(select(Installation.id)).scalars().all() == [INSTALLATION_ID]
        repo = conn.execute(select(Repository).where(Repository.full_name == REPO)).one()
        jobs = conn.execute(select(Job.installation_id)).scalars().all()
    assert repo.installation_id == INSTALLATION_ID and repo.id == fw.payload["repository"]["id"]
    assert jobs and set(jobs) == {INSTALLATION_ID}


def test_a_repository_without_the_app_is_refused_clearly(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with forwarding(engine, database_url, tmp_path) as fw:
        fw.sim.add_repository("someone/else")
        elsewhere = {
            **fw.payload,
            "repository": {**fw.payload["repository"], "id": 987654, "full_name": "someone/else"},
        }
        answer = _forward(fw, elsewhere)
    assert answer.status_code == 422 and "not installed on someone/else" in answer.text
    with engine.connect() as conn:
        assert conn.execute(select(Job.id)).first() is None


def test_github_failing_to_say_answers_503_and_records_nothing(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with forwarding(engine, database_url, tmp_path) as fw:
        fw.sim.inject("GET", f"^{LOOKUP}$", status=502)
        failed = _forward(fw, fw.payload)
        again = _forward(fw, fw.payload)  # the same delivery, redelivered: now it goes through
    assert failed.status_code == 503 and "could not find the installation" in failed.text
    assert again.status_code == 202
