"""Retired lessons over `/v1` and the CLI: what, when, why, which commit; a person restores."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine

from continual.maintenance import Action, Ruling, publish
from ghapp.cli import main as cli
from tests.ghapp.test_api import Api
from tests.support.recall import NOW, Clock, Tenant, accept, api, entry_of, seed, token

COMMIT = "c0ffee" + "0" * 34


@dataclass
class World:
    engine: Engine
    org: Tenant
    api: Api


@pytest.fixture
def world(engine: Engine, tmp_path: Path) -> Iterator[World]:
    org = seed(engine, 1, "octo", "app", "lib")
    accept(engine, org, "octo/app")
    accept(engine, org, "octo/app", name="load_rows")
    secret = token(engine, "octo", "mona")
    with api(engine, tmp_path, Clock(NOW + 1000)) as url:
        document = httpx.get(f"{url}/v1/openapi.json").json()
        headers = {"authorization": f"Bearer {secret}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            yield World(engine, org, Api(client, document))


def retire(world: World, name: str = "parse_config") -> tuple[str, int]:
    entry = entry_of(world.engine, world.org.repos["octo/app"], name)
    verdict = Ruling(entry.id, entry.revision, Action.RETIRE, "src/app.py was deleted", COMMIT)
    result = publish(world.engine, lambda conn: ([verdict], {}), now=NOW + 500)
    assert result.retired == 1
    return entry.id, entry.revision + 1


def test_retired_lessons_are_listed_with_why_and_commit(world: World) -> None:
    entry_id, revision = retire(world)
    plain = world.api.call("GET", "/v1/recall")
    assert "retired" not in plain
    assert entry_id not in {x["id"] for x in plain["lessons"]}
    body = world.api.call("GET", "/v1/recall", params={"include": "retired"})
    [change] = body["retired"]
    assert change["id"] == entry_id and change["action"] == "retired" and change["retired"]
    assert (change["reason"], change["commit"], change["revision"]) == (
        "src/app.py was deleted",
        COMMIT,
        revision,
    )
    assert "parse_config" in change["before_text"] and change["after_text"] is None
    world.api.call("GET", "/v1/recall", params={"include": "everything"})
    assert world.api.status == 422


def test_a_person_restores_under_compare_and_swap(world: World) -> None:
    entry_id, revision = retire(world)
    path = f"/v1/recall/{entry_id}/restore"
    template = "/v1/recall/{entry_id}/restore"
    world.api.call("POST", path, template, json={"expected_revision": revision - 1})
    assert world.api.status == 409
    for bad in ({}, {"expected_revision": "1"}, {"expected_revision": revision, "x": 1}):
        world.api.call("POST", path, template, json=bad)
        assert world.api.status == 422
    body = world.api.call("POST", path, template, json={"expected_revision": revision})
    assert world.api.status == 200 and body["revision"] == revision + 1
    assert entry_id in {x["id"] for x in world.api.call("GET", "/v1/recall")["lessons"]}
    world.api.call("POST", path, template, json={"expected_revision": revision + 1})
    assert world.api.status == 409  # live now: nothing to restore
    listed = world.api.call("GET", "/v1/recall", params={"include": "retired"})["retired"]
    actions = [c["action"] for c in listed]
    assert actions == ["restored", "retired"]


def test_a_deleted_or_foreign_lesson_cannot_be_restored(world: World) -> None:
    entry = entry_of(world.engine, world.org.repos["octo/app"], "load_rows")
    world.api.call("DELETE", f"/v1/recall/{entry.id}", "/v1/recall/{entry_id}")
    assert world.api.status == 204
    template = "/v1/recall/{entry_id}/restore"
    body = {"expected_revision": entry.revision + 1}
    world.api.call("POST", f"/v1/recall/{entry.id}/restore", template, json=body)
    assert world.api.status == 409  # deleted, not retired: its content is gone
    world.api.call("POST", "/v1/recall/e_nope/restore", template, json=body)
    assert world.api.status == 404


def test_recall_retired_on_the_command_line(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    entry_id, _ = retire(world)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", world.engine.url.render_as_string(False))
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    assert cli(["recall", "--repo", "octo/app", "--retired"]) == 0
    out = capsys.readouterr().out
    assert entry_id in out and "why: src/app.py was deleted" in out and COMMIT[:12] in out


def test_the_command_line_prints_a_lesson_change_as_the_api_does(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    entry_id, _ = retire(world)
    [served] = world.api.call("GET", "/v1/recall", params={"include": "retired"})["retired"]
    assert (served["id"], served["action"], served["commit"]) == (entry_id, "retired", COMMIT)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", world.engine.url.render_as_string(False))
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    assert cli(["recall", "--repo", "octo/app", "--retired", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [served]


def test_the_command_line_prints_the_lessons_as_the_api_does(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served = world.api.call("GET", "/v1/recall")["lessons"]
    assert {x["key"] for x in served} and all(x["sources"] for x in served)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", world.engine.url.render_as_string(False))
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    monkeypatch.setattr("ghapp.cli.recall.now_ms", lambda: NOW + 1000)  # the API's clock
    assert cli(["recall", "--account", "octo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == served
