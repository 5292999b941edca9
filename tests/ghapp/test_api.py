"""The `/v1` API over real HTTP: every call answers as the published OpenAPI description says."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, insert, select, update

from continual.tables import Entry, MemoryItemRow, Token
from ghapp.api.openapi import description
from tests.support.openapi_check import check
from tests.support.recall import NOW, Clock, Tenant, accept, api, entry_of, seed, token

DOCS_OPENAPI = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


@dataclass
class Api:
    """A client that checks every answer against the description."""

    client: httpx.Client
    document: dict[str, Any]

    def call(self, method: str, path: str, template: str | None = None, **kw: Any) -> Any:
        response = self.client.request(method, path, **kw)
        body = response.json() if response.content else None
        check(self.document, template or path, method, response.status_code, body)
        self.status = response.status_code
        return body


@dataclass
class World:
    engine: Engine
    org: Tenant
    api: Api
    clock: Clock
    store_dir: Path


@pytest.fixture
def world(engine: Engine, tmp_path: Path) -> Iterator[World]:
    org = seed(engine, 1, "octo", "app", "lib")
    accept(engine, org, "octo/app", review_id="rev-1")
    accept(engine, org, "octo/app", name="load_rows", review_id="rev-1")
    accept(engine, org, "octo/app", name="load_rows", review_id="rev-2")
    secret = token(engine, "octo", "mona")
    clock = Clock(NOW + 1000)
    with api(engine, tmp_path, clock) as url:
        document = httpx.get(f"{url}/v1/openapi.json").json()
        headers = {"authorization": f"Bearer {secret}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            yield World(engine, org, Api(client, document), clock, tmp_path)


def test_published_description_matches_docs() -> None:
    assert json.loads(DOCS_OPENAPI.read_text()) == description(), (
        "docs/openapi.json is stale: regenerate it with "
        "python -c 'from ghapp.api.openapi import main; main()' > docs/openapi.json"
    )


def test_recall_lists_every_lesson_with_receipts(world: World) -> None:
    body = world.api.call("GET", "/v1/recall")
    assert world.api.status == 200
    lessons = body["lessons"]
    assert len(lessons) == 2
    rows = {x["title"]: x for x in lessons}
    two = rows["Unchecked load_rows result"]
    assert two["confirmations"] == 2 and two["state"] == "active"
    assert {s["review"] for s in two["sources"]} == {"rev-1", "rev-2"}
    assert all(s["rule"] == "grammar.accepted" and s["span"] for s in two["sources"])
    assert two["expires_at"].startswith("2023-12-14")


def test_active_brief_and_context(world: World) -> None:
    world.api.call("PUT", "/v1/memory", params={"repo": "octo/app"}, json={"enabled": True})
    preview = world.api.call("GET", "/v1/recall/active", params={"repo": "octo/app"})
    assert world.api.status == 200
    assert len(preview["lessons"]) == 2 and preview["recorded"] is False
    assert preview["lessons"][0]["title"] == "Unchecked load_rows result", "most confirmed first"

    brief = world.api.call("GET", "/v1/brief", params={"repo": "octo/app", "session": "s1"})
    assert world.api.status == 200
    assert brief["recorded"] is True and len(brief["lessons"]) == 2
    assert [e["id"] for e in brief["entries"]][-1].startswith("summary_"), "and the summary"
    assert brief["text"].count("(lesson ") == 2
    assert brief["set_sha256"] == hashlib.sha256(brief["text"].encode()).hexdigest()

    ctx = world.api.call(
        "GET",
        "/v1/context",
        params={"repo": "octo/app", "session": "s2", "path": "src/app.py"},
    )
    assert world.api.status == 200 and len(ctx["entries"]) == 2
    again = world.api.call(
        "GET",
        "/v1/context",
        params={"repo": "octo/app", "session": "s2", "path": "src/app.py"},
    )
    assert again["entries"] == [] and again["text"] == ""

    recorded = world.api.call(
        "GET", "/v1/recall/active", params={"repo": "octo/app", "session": "s3"}
    )
    assert recorded["recorded"] is True and recorded["session"] == "s3"


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("/v1/brief", {"session": "s"}, "repo"),
        ("/v1/brief", {"repo": "octo/app"}, "session"),
        ("/v1/brief", {"repo": "not a repo", "session": "s"}, "repo"),
        ("/v1/context", {"repo": "octo/app", "session": "s"}, "path"),
        ("/v1/recall/active", {"repo": "octo/app", "session": "bad session"}, "session"),
        ("/v1/review-ledger", {"brain": "maybe"}, "brain"),
    ],
)
def test_invalid_query_values_name_the_field(
    world: World, path: str, params: dict[str, str], field: str
) -> None:
    body = world.api.call("GET", path, params=params)
    assert world.api.status == 422
    assert body["error"]["field"] == field and body["error"]["code"] == "invalid"


def test_patch_demotes_restores_and_conflicts(world: World) -> None:
    entry = entry_of(world.engine, world.org.repos["octo/app"], "parse_config")
    template = "/v1/recall/{entry_id}"
    path = f"/v1/recall/{entry.id}"
    body = world.api.call(
        "PATCH", path, template, json={"demote": True, "expected_revision": entry.revision}
    )
    assert world.api.status == 200
    assert body["state"] == "demoted" and body["revision"] == entry.revision + 1
    stale = world.api.call(
        "PATCH", path, template, json={"demote": False, "expected_revision": entry.revision}
    )
    assert world.api.status == 409 and stale["error"]["code"] == "conflict"
    restored = world.api.call(
        "PATCH", path, template, json={"demote": False, "expected_revision": entry.revision + 1}
    )
    assert restored["state"] == "active"
    bad = world.api.call("PATCH", path, template, json={"demote": "yes", "expected_revision": 1})
    assert world.api.status == 422 and bad["error"]["field"] == "demote"


def test_revisions_out_of_range_are_named_not_crashes(world: World) -> None:
    entry = entry_of(world.engine, world.org.repos["octo/app"], "parse_config")
    template = "/v1/recall/{entry_id}"
    path = f"/v1/recall/{entry.id}"
    for huge in (2**31 - 1, 2**63, 10**23):
        body = world.api.call(
            "PATCH", path, template, json={"demote": True, "expected_revision": huge}
        )
        assert world.api.status == 422 and body["error"]["field"] == "expected_revision"
    for raw in ("²", "1" + "0" * 23, "-1", "0"):
        body = world.api.call("DELETE", path, template, params={"expected_revision": raw})
        assert world.api.status == 422 and body["error"]["field"] == "expected_revision"
    assert (
        entry_of(world.engine, world.org.repos["octo/app"], "parse_config").revision
        == entry.revision
    )


def test_delete_leaves_a_tombstone(world: World) -> None:
    entry = entry_of(world.engine, world.org.repos["octo/app"], "parse_config")
    template = "/v1/recall/{entry_id}"
    world.api.call("DELETE", f"/v1/recall/{entry.id}", template)
    assert world.api.status == 204
    world.api.call("DELETE", f"/v1/recall/{entry.id}", template)
    assert world.api.status == 404
    with world.engine.connect() as conn:
        row = conn.execute(select(Entry).where(Entry.id == entry.id)).one()
    assert row.deleted_ms is not None and row.text == "" and row.revision == entry.revision + 1
    titles = [x["title"] for x in world.api.call("GET", "/v1/recall")["lessons"]]
    assert titles == ["Unchecked load_rows result"]


def test_delete_session_removes_only_entries_it_alone_made(world: World) -> None:
    with world.engine.begin() as conn:
        conn.execute(
            insert(MemoryItemRow).values(
                account_id=1,
                repository_id=world.org.repos["octo/app"],
                review_id="rev-1",
                kind="tool_path",
                subject="pytest",
                text="PYTHONPATH=src pytest passed after pytest failed",
                seat="alpha",
                commit="a" * 40,
                state="active",
                expires_ms=NOW + 10**9,
                created_ms=NOW,
            )
        )
    world.api.call("GET", "/v1/recall/active", params={"repo": "octo/app", "session": "rev-1"})
    template = "/v1/sessions/{session_id}"
    body = world.api.call("DELETE", "/v1/sessions/rev-1", template)
    assert world.api.status == 200
    assert body["deleted"] == {
        "injections": 1,
        "injection_lines": 1,
        "memory_items": 1,
        "memory_hits": 0,
        "memory_files": 0,
        "entries": 1,
    }
    assert body["kept_entries"] == 1
    titles = [x["title"] for x in world.api.call("GET", "/v1/recall")["lessons"]]
    assert titles == ["Unchecked load_rows result"], "rev-2 also made load_rows: kept"
    again = world.api.call("DELETE", "/v1/sessions/rev-1", template)
    assert world.api.status == 200 and set(again["deleted"].values()) == {0}
    world.api.call("DELETE", "/v1/sessions/never-seen", template)
    assert world.api.status == 404


def test_ledger_counts_and_brain(world: World) -> None:
    world.api.call("GET", "/v1/recall/active", params={"repo": "octo/app", "session": "rev-1"})
    body = world.api.call("GET", "/v1/review-ledger")
    assert world.api.status == 200
    app = next(r for r in body["repositories"] if r["repository"] == "octo/app")
    assert app["suggestions"]["accepted"] == 3 and app["suggestions"]["pending"] == 0
    assert app["entries"]["active"] == 2
    assert app["by_seat_and_lens"][0]["seat"] == "alpha"
    assert "lessons" not in app
    brain = world.api.call("GET", "/v1/review-ledger", params={"brain": "true"})
    app = next(r for r in brain["repositories"] if r["repository"] == "octo/app")
    assert len(app["lessons"]) == 2


def test_preference_round_trip_and_validation(world: World) -> None:
    card = world.api.call("GET", "/v1/persons/preference")
    assert card == {"person": "mona", "recording": "full", "surfacing": 3, "lesson_cap": 10}
    changed = world.api.call("PUT", "/v1/persons/preference", json={"lesson_cap": 1})
    assert changed["lesson_cap"] == 1 and changed["surfacing"] == 3
    brief = world.api.call("GET", "/v1/brief", params={"repo": "octo/app", "session": "capped"})
    assert len(brief["lessons"]) == 1 and brief["omitted"] == 1
    for bad, field in (
        ({"surfacing": 4}, "surfacing"),
        ({"surfacing": True}, "surfacing"),
        ({"lesson_cap": 0}, "lesson_cap"),
        ({"lesson_cap": 21}, "lesson_cap"),
        ({"recording": "sometimes"}, "recording"),
        ({"colour": "blue"}, "colour"),
    ):
        body = world.api.call("PUT", "/v1/persons/preference", json=bad)
        assert world.api.status == 422, bad
        assert body["error"]["field"] == field
        assert field in body["error"]["message"]
    assert world.api.call("GET", "/v1/persons/preference")["lesson_cap"] == 1


def test_token_use_is_noted_and_revocation_locks_out(world: World) -> None:
    world.api.call("GET", "/v1/recall")
    with world.engine.begin() as conn:
        row = conn.execute(select(Token)).one()
        assert row.last_used_ms == world.clock.now
        conn.execute(update(Token).values(revoked_ms=NOW))
    body = world.api.call("GET", "/v1/recall")
    assert world.api.status == 401 and body["error"]["code"] == "unauthorized"


def _remember(world: World, text: str, subject: str) -> None:
    with world.engine.begin() as conn:
        conn.execute(
            insert(MemoryItemRow).values(
                account_id=1,
                repository_id=world.org.repos["octo/app"],
                review_id="rev-9",
                kind="tool_path",
                subject=subject,
                text=text,
                seat="alpha",
                commit="b" * 40,
                state="active",
                source="observed",  # the app ran it: memory the summary may state
                reporters='[["alpha", "acme-labs"]]',
                expires_ms=NOW + 10**9,
                created_ms=NOW,
            )
        )


def test_memory_summary_view_clear_and_rebuild(world: World) -> None:
    world.api.call("PUT", "/v1/memory", params={"repo": "octo/app"}, json={"enabled": True})
    summary = "/v1/memory/summary"
    params = {"repo": "octo/app"}
    first = world.api.call("GET", summary, params=params)
    assert world.api.status == 200
    assert first["text"].startswith("Memory summary for octo/app. Memory is a heuristic")
    assert "Unchecked load_rows result (correctness; lesson " in first["text"]
    assert first["lessons"] == 2 and first["memories"] == 0 and not first["cleared"]
    assert first["chars"] == len(first["text"]) <= first["max_chars"] == 2000
    again = world.api.call("GET", summary, params=params)
    assert again["revision"] == first["revision"], "unchanged sources: not rebuilt"

    cleared = world.api.call("DELETE", summary, params=params)
    assert cleared["cleared"] and cleared["cleared_by"] == "mona" and cleared["text"] == ""
    brief = world.api.call("GET", "/v1/brief", params={**params, "session": "agent-1"})
    assert "Memory summary" not in brief["text"], "a cleared summary is not handed"
    assert world.api.call("GET", summary, params=params)["cleared"], "still withdrawn"

    _remember(world, "PYTHONPATH=src pytest -q passed where pytest -q failed", "pytest")
    changed = world.api.call("GET", summary, params=params)
    assert not changed["cleared"] and changed["memories"] == 1, "new memory rebuilds it"
    assert "(reported by seat alpha; the app ran it" in changed["text"]
    assert "session rev-9, commit bbbbbbb)" in changed["text"]

    rebuilt = world.api.call("POST", f"{summary}/rebuild", params=params)
    assert rebuilt["revision"] == changed["revision"] + 1 and rebuilt["text"] == changed["text"]

    brief = world.api.call("GET", "/v1/brief", params={**params, "session": "agent-2"})
    assert rebuilt["text"] in brief["text"]
    assert {"id": rebuilt["id"], "revision": rebuilt["revision"]} in brief["entries"]


@pytest.mark.parametrize(
    ("method", "path", "params", "status"),
    [
        ("GET", "/v1/memory/summary", {}, 422),
        ("GET", "/v1/memory/summary", {"repo": "octo/nope"}, 404),
        ("GET", "/v1/memory/summary", {"repo": "other/app"}, 404),
        ("DELETE", "/v1/memory/summary", {"repo": "not a repo"}, 422),
        ("POST", "/v1/memory/summary/rebuild", {}, 422),
    ],
)
def test_memory_summary_bad_input(
    world: World, method: str, path: str, params: dict[str, str], status: int
) -> None:
    body = world.api.call(method, path, params=params)
    assert world.api.status == status and body["error"]["code"]
