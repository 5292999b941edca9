"""A poison delivery is refused alone: values no column holds are 422 at the envelope, a batch the
database refuses is written again row by row, and a payload no handler can read parks its job."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, func, select

from ghapp.app import build_deps, create_app
from ghapp.cli import main as cli_main
from ghapp.ingress import DeliveryWriter, Incoming, Recorded, Unstorable
from ghapp.jobs import JobSpec
from ghapp.settings import Settings
from ghapp.tables import Delivery, Job, JobState
from tests.conftest import FIXTURES
from tests.support.app_harness import running_app
from tests.support.simulator import WEBHOOK_SECRET
from tests.support.web import deliver, serve

PULL_OPENED = json.loads((FIXTURES / "pull_request" / "opened.payload.json").read_text())
COMMENTED = json.loads(
    (FIXTURES / "issue_comment" / "created.with-installation.payload.json").read_text()
)
GOOD = 200


@pytest.fixture
def web(engine: Engine, database_url: str) -> Iterator[str]:
    settings = Settings(database_url=database_url, webhook_secret=WEBHOOK_SECRET)
    app = create_app(settings, deps=build_deps(settings, engine=engine), run_worker=False)
    with serve(app) as url:
        yield url


def pull(number: int = 2, **changes: Any) -> dict[str, Any]:
    """The opened-pull fixture as pull request `number`, with fields set by dotted path."""
    payload: dict[str, Any] = json.loads(json.dumps(PULL_OPENED))
    payload["number"] = payload["pull_request"]["number"] = number
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        target = payload
        for part in parents:
            target = target[part]
        target[last] = value
    return payload


def stored(engine: Engine) -> tuple[int, int]:
    with engine.connect() as conn:
        deliveries = conn.execute(select(func.count()).select_from(Delivery)).scalar_one()
        jobs = conn.execute(select(func.count()).select_from(Job)).scalar_one()
    return int(deliveries), int(jobs)


def with_comment_body(body: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(json.dumps(COMMENTED))
    payload["comment"]["body"] = body
    return payload


# (event, payload, the field the refusal must name)
POISON = {
    "installation id past 64 bits": (
        "pull_request",
        pull(installation__id=2**63),
        "installation.id",
    ),
    "installation id of 2^64 - 1": (
        "pull_request",
        pull(installation__id=2**64 - 1),
        "installation.id",
    ),
    "NUL action": ("pull_request", pull(action="\u0000"), "action"),
    "action longer than its column": ("pull_request", pull(action="a" * 65), "action"),
    "NUL in a text no route reads": (
        "pull_request",
        pull(pull_request__title="fix\u0000"),
        "pull_request.title",
    ),
    "NUL in a key": ("pull_request", pull(extra={"k\u0000": 1}), "extra.<key>"),
    "NUL in a comment body": (
        "issue_comment",
        with_comment_body("looks good\u0000"),
        "comment.body",
    ),
    "PR number past INTEGER": ("pull_request", pull(number=2**31), "pull_request.number"),
    "PR number of zero": ("pull_request", pull(number=0), "pull_request.number"),
    "integer past 64 bits in a field no route reads": (
        "pull_request",
        pull(pull_request__additions=2**63),
        "pull_request.additions",
    ),
    "integer below -2^63": (
        "pull_request",
        pull(pull_request__deletions=-(2**63) - 1),
        "pull_request.deletions",
    ),
    "full name without an owner": (
        "pull_request",
        pull(repository__full_name="77"),
        "repository.full_name",
    ),
    "full name that climbs": (
        "pull_request",
        pull(repository__full_name="octo/.."),
        "repository.full_name",
    ),
    "full name with a slash too many": (
        "pull_request",
        pull(repository__full_name="octo/a/b"),
        "repository.full_name",
    ),
    "owner login holding #": (
        "pull_request",
        pull(repository__owner__login="acme#1"),
        "repository.owner.login",
    ),
}


@pytest.mark.parametrize("case", sorted(POISON))
def test_a_value_no_column_holds_is_refused_naming_the_field(
    web: str, engine: Engine, case: str
) -> None:
    event, payload, field = POISON[case]
    with httpx.Client(timeout=30) as client:
        response = deliver(client, web, WEBHOOK_SECRET, event, payload)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_payload"
    assert f"{field}:" in error["message"]
    assert stored(engine) == (0, 0)


def test_good_deliveries_sent_with_poison_ones_are_all_recorded(web: str, engine: Engine) -> None:
    good = [(str(uuid.uuid4()), "pull_request", pull(number)) for number in range(1, GOOD + 1)]
    bad = [
        (str(uuid.uuid4()), event, {**payload, "zen": str(n)})
        for n, (event, payload, _) in enumerate(list(POISON.values()) * 3)
    ]
    sends = good + bad
    random.Random(20).shuffle(sends)

    def send(item: tuple[str, str, dict[str, Any]]) -> tuple[str, int]:
        delivery, event, payload = item
        status = deliver(client, web, WEBHOOK_SECRET, event, payload, delivery).status_code
        return delivery, status

    with httpx.Client(timeout=60) as client, ThreadPoolExecutor(max_workers=16) as pool:
        statuses = dict(pool.map(send, sends))
    assert all(statuses[delivery] == 202 for delivery, _, _ in good), statuses
    assert all(400 <= statuses[delivery] < 500 for delivery, _, _ in bad), statuses
    with engine.connect() as conn:
        recorded = set(conn.execute(select(Delivery.id)).scalars())
    assert recorded == {delivery for delivery, _, _ in good}
    assert stored(engine) == (GOOD, GOOD)


def incoming(number: int, **fields: Any) -> Incoming:
    delivery = str(uuid.uuid4())
    values: dict[str, Any] = {
        "delivery_id": delivery,
        "body_sha256": uuid.uuid4().hex * 2,
        "event": "pull_request",
        "action": "opened",
        "installation_id": 77,
        "body": json.dumps({"number": number}),
        "jobs": (JobSpec("pull_request.review", serial_key=f"pr:1:{number}"),),
    }
    values.update(fields)
    return Incoming(**values)


def test_a_row_only_the_database_refuses_fails_alone_in_its_batch(
    engine: Engine,
) -> None:
    """Past the envelope (the writer called directly): each poison row gets its own error and the
    rest of the batch they shared is recorded."""
    poison = [incoming(0, installation_id=2**63)]
    if engine.dialect.name == "postgresql":
        poison.append(incoming(0, action="\u0000"))
        poison.append(incoming(0, body='{"t": "\u0000"}'))
    good = [incoming(number) for number in range(1, 51)]
    batch = good[:25] + poison + good[25:]
    commits: list[int] = []
    writer = DeliveryWriter(engine, on_commit=commits.append)
    # Queued before the writer starts, so that its first transaction holds them all.
    futures: list[Future[Recorded]] = [writer.submit(item) for item in batch]
    writer.start()
    try:
        outcomes = [future.exception(timeout=30) or future.result() for future in futures]
    finally:
        writer.stop()
    by_id = {item.delivery_id: outcome for item, outcome in zip(batch, outcomes, strict=True)}
    for item in poison:
        assert isinstance(by_id[item.delivery_id], Unstorable), by_id[item.delivery_id]
    for item in good:
        assert by_id[item.delivery_id] == Recorded(duplicate=False, jobs=1)
    assert stored(engine) == (len(good), len(good))
    assert sum(commits) == len(good)


def test_a_payload_no_handler_can_read_parks_its_job_dead_at_once(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A repository with neither `full_name` nor `name` passes the envelope (older payloads lack
    one of them) but cannot be named: the job is dead after one attempt, with the reason."""
    with running_app(engine, database_url, tmp_path) as h:
        payload = json.loads(
            (FIXTURES / "installation_repositories" / "added.payload.json").read_text()
        )
        payload["repositories_added"] = [{"id": 4242}]
        with httpx.Client(timeout=30) as client:
            response = deliver(client, h.url, WEBHOOK_SECRET, "installation_repositories", payload)
        assert response.status_code == 202, response.text
        h.settle()
        with engine.connect() as conn:
            job = conn.execute(select(Job).where(Job.kind == "installation.repositories")).one()
        assert job.state == JobState.DEAD.value
        assert job.attempts == 1
        assert job.last_error.startswith("payload: ValueError: repository 4242 has no name")
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", database_url)
    capsys.readouterr()
    assert cli_main(["jobs", "list", "--state", "dead"]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if "installation.repositories" in x]
    assert "dead" in line and "payload: ValueError: repository 4242 has no name" in line
