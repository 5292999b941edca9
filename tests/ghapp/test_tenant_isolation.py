"""Tenant isolation: a token of one account never reads or changes another account's data."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine

from continual.history.runs import request_run
from ghapp.api.openapi import description
from ghapp.db import make_engine, migrate
from tests.support.recall import NOW, Clock, accept, api, entry_of, seed, token


@dataclass(frozen=True)
class Call:
    method: str
    template: str
    params: dict[str, str]
    body: dict[str, Any] | None
    foreign: str  # "404": B's data is named and must not be found; "own": answers A's data only


CALLS = [
    Call("GET", "/v1/recall", {}, None, "own"),
    Call("GET", "/v1/recall/active", {"repo": "bee/app"}, None, "404"),
    Call("GET", "/v1/brief", {"repo": "bee/app", "session": "s"}, None, "404"),
    Call(
        "GET", "/v1/context", {"repo": "bee/app", "session": "s", "path": "src/app.py"}, None, "404"
    ),
    Call("GET", "/v1/review-ledger", {"brain": "true"}, None, "own"),
    Call("GET", "/v1/persons/preference", {}, None, "own"),
    Call("PUT", "/v1/persons/preference", {}, {"lesson_cap": 2}, "own"),
    Call("PATCH", "/v1/recall/{entry_id}", {}, {"demote": True, "expected_revision": 2}, "404"),
    Call("DELETE", "/v1/recall/{entry_id}", {}, None, "404"),
    Call("POST", "/v1/recall/{entry_id}/restore", {}, {"expected_revision": 2}, "404"),
    Call("DELETE", "/v1/sessions/{session_id}", {}, None, "404"),
    Call("GET", "/v1/memory", {"repo": "bee/app"}, None, "404"),
    Call("PUT", "/v1/memory", {"repo": "bee/app"}, {"enabled": True}, "404"),
    Call("DELETE", "/v1/memory", {"repo": "bee/app"}, None, "404"),
    Call("GET", "/v1/memory/summary", {"repo": "bee/app"}, None, "404"),
    Call("DELETE", "/v1/memory/summary", {"repo": "bee/app"}, None, "404"),
    Call("POST", "/v1/memory/summary/rebuild", {"repo": "bee/app"}, None, "404"),
    Call("GET", "/v1/history", {"repo": "bee/app"}, None, "404"),
]


@dataclass
class Tenants:
    url: str
    token_a: str
    token_b: str
    b_entry: str
    engine: Engine


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tenants]:
    # One world for the whole module, on SQLite: the boundary is in the queries, not the engine.
    root = tmp_path_factory.mktemp("tenants")
    engine = make_engine(f"sqlite:///{root / 'hindsight.db'}")
    migrate(engine)
    octo = seed(engine, 1, "octo", "app")
    bee = seed(engine, 2, "bee", "app")
    accept(engine, octo, "octo/app", review_id="rev-a")
    accept(engine, bee, "bee/app", name="bee_secret_thing", review_id="rev-b")
    b_entry = entry_of(engine, bee.repos["bee/app"], "bee_secret_thing").id
    with engine.begin() as conn:  # bee/app's history back-fill, asked for
        request_run(
            conn,
            account_id=2,
            repository_id=bee.repos["bee/app"],
            installation_id=2,
            days=90,
            max_prs=300,
            now_ms=NOW,
        )
    token_a, token_b = token(engine, "octo", "mona"), token(engine, "bee", "bert")
    with api(engine, root, Clock(NOW + 1000)) as url:
        yield Tenants(url, token_a, token_b, b_entry, engine)
    engine.dispose()


def _url(world: Tenants, call: Call) -> str:
    path = call.template.format(entry_id=world.b_entry, session_id="rev-b")
    return world.url + path


def _send(world: Tenants, call: Call, headers: dict[str, str]) -> httpx.Response:
    return httpx.request(
        call.method,
        _url(world, call),
        params=call.params,
        json=call.body,
        headers=headers,
        timeout=30,
    )


def test_every_documented_call_is_covered() -> None:
    documented = {
        (method.upper(), path)
        for path, operations in description()["paths"].items()
        for method in operations
        if path != "/v1/openapi.json"
    }
    assert documented == {(c.method, c.template) for c in CALLS}


@pytest.mark.parametrize("call", CALLS, ids=lambda c: f"{c.method} {c.template}")
@pytest.mark.parametrize("auth", ["none", "garbage", "wrong-scheme"])
def test_without_a_valid_token_every_call_is_401(tenants: Tenants, call: Call, auth: str) -> None:
    headers = {
        "none": {},
        "garbage": {"authorization": "Bearer hs_not-a-real-token"},
        "wrong-scheme": {"authorization": f"Basic {tenants.token_b}"},
    }[auth]
    response = _send(tenants, call, headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize("call", CALLS, ids=lambda c: f"{c.method} {c.template}")
def test_a_token_never_reaches_another_account(tenants: Tenants, call: Call) -> None:
    response = _send(tenants, call, {"authorization": f"Bearer {tenants.token_a}"})
    if call.foreign == "404":
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "not_found"
    else:
        assert response.status_code == 200, response.text
        assert "bee" not in response.text and tenants.b_entry not in response.text
    # B's own token still sees its lesson, untouched.
    mine = httpx.get(
        f"{tenants.url}/v1/recall",
        headers={"authorization": f"Bearer {tenants.token_b}"},
        timeout=30,
    ).json()
    (lesson,) = mine["lessons"]
    assert (lesson["id"], lesson["state"], lesson["revision"]) == (tenants.b_entry, "active", 2)
    card = httpx.get(
        f"{tenants.url}/v1/persons/preference",
        headers={"authorization": f"Bearer {tenants.token_b}"},
        timeout=30,
    ).json()
    assert card["person"] == "bert" and card["lesson_cap"] == 10


def test_the_owner_reaches_the_same_data(tenants: Tenants) -> None:
    """The 404s above come from the tenant boundary, not from broken calls."""
    headers = {"authorization": f"Bearer {tenants.token_b}"}
    for call in CALLS:
        if call.foreign != "404" or call.method != "GET":
            continue
        assert _send(tenants, call, headers).status_code == 200, call.template
