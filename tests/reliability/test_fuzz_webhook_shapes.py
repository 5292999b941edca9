"""Signed deliveries with fields of the wrong type: refused with a 4xx naming the field, never a
500, and nothing stored; a payload that keeps its shape is still accepted."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select

from ghapp.app import build_deps, create_app
from ghapp.settings import Settings
from ghapp.tables import Delivery, Job
from tests.conftest import FIXTURES, WEBHOOK_SECRET
from tests.support.web import serve, signed_headers

# (event, fixture) pairs the app routes, and the fields their handlers read.
SAMPLES = {
    "installation": "installation/created.payload.json",
    "installation_repositories": "installation_repositories/added.payload.json",
    "pull_request": "pull_request/opened.payload.json",
    "pull_request_review": "pull_request_review/submitted.payload.json",
    "pull_request_review_comment": "pull_request_review_comment/created.payload.json",
    "issue_comment": "issue_comment/created.with-installation.payload.json",
}
READ = {
    "installation": [
        ("action",),
        ("installation",),
        ("installation", "id"),
        ("installation", "account"),
        ("installation", "account", "id"),
        ("installation", "account", "login"),
        ("repositories",),
    ],
    "installation_repositories": [
        ("installation",),
        ("installation", "account", "login"),
        ("repositories_added",),
        ("repositories_removed",),
    ],
    "pull_request": [
        ("action",),
        ("installation",),
        ("repository",),
        ("repository", "id"),
        ("repository", "full_name"),
        ("pull_request",),
        ("pull_request", "number"),
        ("pull_request", "head"),
        ("pull_request", "head", "sha"),
        ("pull_request", "draft"),
    ],
    "pull_request_review": [("review",), ("review", "user"), ("pull_request", "number")],
    "pull_request_review_comment": [("comment",), ("comment", "user"), ("pull_request",)],
    "issue_comment": [("issue",), ("issue", "number"), ("comment",), ("repository", "owner")],
}


def wrong_for(value: Any) -> st.SearchStrategy[Any]:
    """Values of another JSON type than `value` (so never a valid replacement)."""
    kinds: list[st.SearchStrategy[Any]] = [
        st.integers(-(2**63), 2**63),
        st.text(max_size=10),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
        st.booleans(),
    ]
    keep = {
        int: (0, 4),
        bool: (4,),
        str: (1,),
        list: (2,),
        dict: (3,),
    }
    skip = next((v for t, v in keep.items() if type(value) is t), ())
    return st.one_of([k for n, k in enumerate(kinds) if n not in skip])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Engine]]:
    from ghapp.db import make_engine, migrate

    url = f"sqlite:///{tmp_path_factory.mktemp('shapes') / 'hindsight.db'}"
    engine = make_engine(url)
    migrate(engine)
    config = Settings(database_url=url, webhook_secret=WEBHOOK_SECRET)  # type: ignore[arg-type]
    with serve(
        create_app(config, deps=build_deps(config, engine=engine), run_worker=False)
    ) as base:
        yield base, engine
    engine.dispose()


def counts(engine: Engine) -> tuple[int, int]:
    with engine.connect() as conn:
        deliveries = conn.execute(select(func.count()).select_from(Delivery)).scalar_one()
        jobs = conn.execute(select(func.count()).select_from(Job)).scalar_one()
    return int(deliveries), int(jobs)


def post(base: str, event: str, payload: Any) -> httpx.Response:
    body = json.dumps(payload).encode()
    return httpx.post(
        f"{base}/webhooks", content=body, headers=signed_headers(WEBHOOK_SECRET, body, event)
    )


def spoiled(event: str, path: tuple[str, ...], value: Any) -> dict[str, Any]:
    payload = json.loads((FIXTURES / SAMPLES[event]).read_text())
    payload["zen"] = str(uuid.uuid4())  # every body distinct, so none is a duplicate
    target = payload
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return payload


@st.composite
def wrong_fields(draw: st.DrawFn) -> tuple[str, tuple[str, ...], Any]:
    event = draw(st.sampled_from(sorted(READ)))
    path = draw(st.sampled_from(READ[event]))
    original = json.loads((FIXTURES / SAMPLES[event]).read_text())
    for part in path:
        original = original[part]
    return event, path, draw(wrong_for(copy.deepcopy(original)))


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@example(("installation", ("installation",), 7))
@example(("pull_request", ("action",), {}))
@example(("issue_comment", ("issue",), "x"))
@given(case=wrong_fields())
def test_signed_payloads_with_wrong_types_are_refused_not_failed(
    served: tuple[str, Engine], case: tuple[str, tuple[str, ...], Any]
) -> None:
    base, engine = served
    event, path, value = case
    before = counts(engine)
    response = post(base, event, spoiled(event, path, value))
    assert response.status_code == 422, (event, path, value, response.text)
    error = response.json()["error"]
    assert error["code"] == "bad_payload"
    assert path[-1] in error["message"] or path[0] in error["message"]
    assert counts(engine) == before


@pytest.mark.parametrize("event", sorted(SAMPLES))
def test_the_real_payload_of_each_routed_event_is_accepted(
    served: tuple[str, Engine], event: str
) -> None:
    base, engine = served
    before = counts(engine)
    response = post(base, event, spoiled(event, ("zen",), str(uuid.uuid4())))
    assert response.status_code == 202, response.text
    assert counts(engine)[0] == before[0] + 1


def test_an_unrouted_event_is_still_held_to_the_envelope(served: tuple[str, Engine]) -> None:
    base, engine = served
    before = counts(engine)
    bad = post(base, "push", {"ref": "refs/heads/main", "installation": 7})
    assert bad.status_code == 422 and "installation" in bad.json()["error"]["message"]
    good = post(base, "push", {"ref": "refs/heads/main", "installation": {"id": 7}})
    assert good.status_code == 202
    assert counts(engine) == (before[0] + 1, before[1])
