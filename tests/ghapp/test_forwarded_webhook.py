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
from sqlalchemy import Engine, select, update

from continual.tables import HistoryRun, Repository
from ghapp.app import build_deps, create_app
from ghapp.settings import Settings
from ghapp.tables import Installation, Job
from ghsim import GitHubSimulator
from tests.support.review import REVIEW_POSTS, bug_files, harness, lenses_toml, seat_toml
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
    config: Settings
    payload: dict[str, Any]  # a pull_request delivery as a repository webhook sends it


@contextmanager
def forwarding(
    engine: Engine, database_url: str, tmp_path: Path, **settings: Any
) -> Iterator[Forwarding]:
    """The app (web only) and the simulator; the app's own webhook reaches a relay, not the
    app, so the app hears of nothing but what is forwarded to it."""
    with (
        GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim,
        WebhookReceiver() as relay,
    ):
        config = app_settings(sim, database_url, tmp_path, **settings)
        deps = build_deps(config, engine=engine, github=make_client(sim))
        with serve(create_app(config, deps=deps, run_worker=False)) as url:
            sim.configure_webhooks(relay.url, WEBHOOK_SECRET)
            sim.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION_ID)
            sim.open_pull(REPO)
            (opened,) = [r for r in relay.received if r.headers["x-github-event"] == "pull_request"]
            payload = json.loads(opened.body)
            del payload["installation"]  # a repository webhook's delivery has none
            yield Forwarding(sim, url, config, payload)


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


def _backfills(engine: Engine) -> tuple[list[tuple[int, int]], list[str]]:
    """Each back-fill run (repository, generation), and the kinds of the jobs asked for."""
    with engine.connect() as conn:
        runs = conn.execute(select(HistoryRun.repository_id, HistoryRun.generation)).all()
        kinds = conn.execute(select(Job.kind)).scalars().all()
    return [tuple(run) for run in runs], list(kinds)


def test_a_repository_first_heard_of_by_forwarding_is_back_filled_once(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    # Installation events go to the app's own webhook, never through a repository's: the first
    # forwarded delivery stands for the install, and asks for the history as an install does.
    with forwarding(engine, database_url, tmp_path, history_on_install=True) as fw:
        assert _forward(fw, fw.payload).status_code == 202
        runs, kinds = _backfills(engine)
        with engine.begin() as conn:  # the back-fill finished
            conn.execute(update(HistoryRun).values(state="done"))
        # A restarted server looks the installation up again: the repository is known installed.
        deps = build_deps(fw.config, engine=engine, github=make_client(fw.sim))
        with serve(create_app(fw.config, deps=deps, run_worker=False)) as restarted:
            relayed = Forwarding(fw.sim, restarted, fw.config, fw.payload)
            assert _forward(relayed, {**fw.payload, "action": "reopened"}).status_code == 202
        lookups = [r for r in fw.sim.requests("GET") if r.path == LOOKUP]
        again, kinds_after = _backfills(engine)
    assert runs == [(fw.payload["repository"]["id"], 1)]
    assert kinds.count("history.backfill") == 1
    assert len(lookups) == 2  # the restarted server did ask
    assert again == runs and kinds_after.count("history.backfill") == 1


def test_no_back_fill_when_installs_ask_for_none(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with forwarding(engine, database_url, tmp_path, history_on_install=False) as fw:
        assert _forward(fw, fw.payload).status_code == 202
        runs, kinds = _backfills(engine)
    assert runs == [] and "history.backfill" not in kinds


def test_forwarded_deliveries_alone_get_a_pull_request_its_review(
    engine: Engine, tmp_path: Path
) -> None:
    # The local path of the README: no public URL, the repository webhook forwarded.
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness")
    with harness(engine, tmp_path, toml, forwarded=True) as h:
        h.sim.open_pull(REPO, title="Parse the config", files=bug_files(2))
        statuses = h.forward()
        h.run()
        posts = h.sim.requests("POST", REVIEW_POSTS)
    assert statuses and set(statuses) == {202}
    assert len(posts) == 1 and len(posts[0].body["comments"]) == 2
