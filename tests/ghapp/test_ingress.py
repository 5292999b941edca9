"""`POST /webhooks`: signatures, malformed input, size cap, deduplication and durable recording."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, func, select

from ghapp.app import build_deps, create_app
from ghapp.settings import Settings
from ghapp.tables import Delivery, Job
from tests.conftest import FIXTURES, WEBHOOK_SECRET
from tests.support.web import deliver, serve, signed_headers

PULL_OPENED = FIXTURES / "pull_request" / "opened.payload.json"


@pytest.fixture
def web(engine: Engine, database_url: str) -> Iterator[str]:
    settings = Settings(database_url=database_url, webhook_secret=WEBHOOK_SECRET)
    app = create_app(settings, deps=build_deps(settings, engine=engine), run_worker=False)
    with serve(app) as url:
        yield url


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as client:
        yield client


def counts(engine: Engine) -> tuple[int, int]:
    with engine.connect() as conn:
        deliveries = conn.execute(select(func.count()).select_from(Delivery)).scalar_one()
        jobs = conn.execute(select(func.count()).select_from(Job)).scalar_one()
    return deliveries, jobs


def test_signed_delivery_is_recorded_with_its_jobs(
    web: str, client: httpx.Client, engine: Engine
) -> None:
    response = deliver(client, web, WEBHOOK_SECRET, "pull_request", PULL_OPENED.read_bytes())
    assert response.status_code == 202
    assert response.json()["jobs"] == 1
    with engine.connect() as conn:
        job = conn.execute(select(Job)).one()
    assert job.kind == "pull_request.review"
    assert job.serial_key == "pr:186853002:2"
    assert counts(engine) == (1, 1)


@pytest.mark.parametrize(
    "signature",
    [
        None,
        "sha256=" + "0" * 64,
        "sha1=7d38cdd689735b008b3c702edd92eea23791c5f6",
        "sha256=",
        "garbage",
    ],
    ids=["missing", "wrong", "sha1-only", "empty", "malformed"],
)
def test_bad_signature_is_401_and_stores_nothing(
    web: str, client: httpx.Client, engine: Engine, signature: str | None
) -> None:
    body = PULL_OPENED.read_bytes()
    headers = signed_headers(WEBHOOK_SECRET, body, "pull_request")
    del headers["x-hub-signature-256"]
    if signature is not None:
        headers["x-hub-signature-256"] = signature
    response = client.post(f"{web}/webhooks", content=body, headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "bad_signature"
    assert counts(engine) == (0, 0)


def test_signature_with_another_secret_is_refused(
    web: str, client: httpx.Client, engine: Engine
) -> None:
    response = deliver(client, web, "not-the-secret", "pull_request", PULL_OPENED.read_bytes())
    assert response.status_code == 401
    assert counts(engine) == (0, 0)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", "bad_json"),
        (b"", "bad_json"),
        (b"[1, 2, 3]", "bad_json"),
        (b'"a string"', "bad_json"),
        (b"\xff\xfe{}", "bad_json"),
    ],
    ids=["truncated", "empty", "array", "string", "not-utf8"],
)
def test_malformed_body_is_400_and_stores_nothing(
    web: str, client: httpx.Client, engine: Engine, body: bytes, code: str
) -> None:
    response = deliver(client, web, WEBHOOK_SECRET, "pull_request", body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert counts(engine) == (0, 0)


@pytest.mark.parametrize("missing", ["x-github-event", "x-github-delivery"])
def test_missing_header_is_400(
    web: str, client: httpx.Client, engine: Engine, missing: str
) -> None:
    body = PULL_OPENED.read_bytes()
    headers = signed_headers(WEBHOOK_SECRET, body, "pull_request")
    del headers[missing]
    response = client.post(f"{web}/webhooks", content=body, headers=headers)
    assert response.status_code == 400
    assert counts(engine) == (0, 0)


def test_oversized_body_is_413_by_declared_length(
    web: str, client: httpx.Client, engine: Engine
) -> None:
    body = b'{"a": "' + b"x" * (25 * 1024 * 1024) + b'"}'
    response = deliver(client, web, WEBHOOK_SECRET, "pull_request", body)
    assert response.status_code == 413
    assert counts(engine) == (0, 0)


def test_oversized_chunked_body_is_413(web: str, client: httpx.Client, engine: Engine) -> None:
    chunk = b"x" * (1024 * 1024)

    def chunks() -> Iterator[bytes]:
        yield b'{"a": "'
        for _ in range(26):
            yield chunk
        yield b'"}'

    headers = {
        "x-github-event": "pull_request",
        "x-github-delivery": str(uuid.uuid4()),
        "x-hub-signature-256": "sha256=" + "0" * 64,
    }
    response = client.post(f"{web}/webhooks", content=chunks(), headers=headers)
    assert response.status_code == 413
    assert counts(engine) == (0, 0)


def test_ping_is_200_and_creates_no_job(web: str, client: httpx.Client, engine: Engine) -> None:
    response = deliver(
        client, web, WEBHOOK_SECRET, "ping", (FIXTURES / "ping" / "payload.json").read_bytes()
    )
    assert response.status_code == 200
    assert counts(engine)[1] == 0


def test_redelivery_and_same_body_under_new_id_make_one_job(
    web: str, client: httpx.Client, engine: Engine
) -> None:
    body = PULL_OPENED.read_bytes()
    delivery = str(uuid.uuid4())
    first = deliver(client, web, WEBHOOK_SECRET, "pull_request", body, delivery)
    assert first.status_code == 202
    for _ in range(2):
        again = deliver(client, web, WEBHOOK_SECRET, "pull_request", body, delivery)
        assert again.status_code == 200
        assert again.json() == {"duplicate": True}
    fresh_id = deliver(client, web, WEBHOOK_SECRET, "pull_request", body)
    assert fresh_id.json() == {"duplicate": True}
    assert counts(engine) == (1, 1)


def test_concurrent_replays_make_exactly_one_job_per_delivery(
    web: str, client: httpx.Client, engine: Engine
) -> None:
    template = json.loads(PULL_OPENED.read_text())
    bodies = []
    for number in range(1, 61):
        template["number"] = number
        template["pull_request"]["number"] = number
        bodies.append((str(uuid.uuid4()), json.dumps(template).encode()))
    sends = [item for item in bodies for _ in range(3)]

    def send(item: tuple[str, bytes]) -> int:
        delivery, body = item
        return deliver(client, web, WEBHOOK_SECRET, "pull_request", body, delivery).status_code

    with ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(send, sends))
    assert statuses.count(202) == 60
    assert statuses.count(200) == 120
    assert counts(engine) == (60, 60)


def fixture_cases() -> list[tuple[str, Path]]:
    return [
        (path.parent.name, path)
        for path in sorted(FIXTURES.glob("*/*.json"))
        if path.parent.name != "ping"
    ]


EXPECTED_KINDS = {
    ("installation", "created"): ["installation.sync"],
    ("installation", "deleted"): ["installation.sync"],
    ("installation_repositories", "added"): ["installation.repositories"],
    ("installation_repositories", "removed"): ["installation.repositories"],
    ("pull_request", "opened"): ["pull_request.review"],
    ("pull_request", "reopened"): ["pull_request.writeback", "pull_request.review"],
    ("pull_request", "synchronize"): ["pull_request.writeback", "pull_request.review"],
    ("pull_request", "closed"): ["pull_request.writeback"],
    ("pull_request_review_comment", "created"): ["review_comment.writeback"],
    ("pull_request_review_comment", "edited"): ["review_comment.writeback"],
    ("pull_request_review_comment", "deleted"): ["review_comment.writeback"],
    ("pull_request_review", "submitted"): ["review.writeback"],
}


@pytest.mark.parametrize(("event", "path"), fixture_cases(), ids=lambda v: str(v)[-40:])
def test_every_fixture_is_accepted_and_routed(
    web: str, client: httpx.Client, engine: Engine, event: str, path: Path
) -> None:
    payload = json.loads(path.read_text())
    response = deliver(client, web, WEBHOOK_SECRET, event, path.read_bytes())
    assert response.status_code == 202, response.text
    with engine.connect() as conn:
        kinds = list(conn.execute(select(Job.kind).order_by(Job.id)).scalars())
        delivery = conn.execute(select(Delivery)).one()
    assert delivery.event == event
    if event == "issue_comment":
        on_pull = bool(payload["issue"].get("pull_request"))
        by_bot = payload["comment"]["user"]["type"] == "Bot"
        assert kinds == (["issue_comment.writeback"] if on_pull and not by_bot else [])
    else:
        assert kinds == EXPECTED_KINDS[(event, payload["action"])]


def test_health_and_readiness(web: str, client: httpx.Client) -> None:
    assert client.get(f"{web}/healthz").json() == {"ok": True}
    ready = client.get(f"{web}/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"ok": True}
