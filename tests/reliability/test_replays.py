"""Replays: every delivery sent three times at once, and bodies re-sent under fresh ids → one job each."""

from __future__ import annotations

import json
import random
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import Engine, func, select

from ghapp.app import build_deps, create_app
from ghapp.settings import Settings
from ghapp.tables import Delivery, Job
from tests.conftest import FIXTURES, WEBHOOK_SECRET
from tests.support.web import serve, signed_headers

DELIVERIES = 1_000
FRESH_IDS = 100


@pytest.fixture
def web(engine: Engine, database_url: str) -> Iterator[str]:
    settings = Settings(database_url=database_url, webhook_secret=WEBHOOK_SECRET)  # type: ignore[arg-type]
    app = create_app(settings, deps=build_deps(settings, engine=engine), run_worker=False)
    with serve(app) as url:
        yield url


def bodies(count: int) -> list[bytes]:
    template = json.loads((FIXTURES / "pull_request" / "closed.payload.json").read_text())
    out = []
    for number in range(1, count + 1):
        template["number"] = template["pull_request"]["number"] = number
        out.append(json.dumps(template).encode())
    return out


def test_thousand_deliveries_sent_three_times_make_a_thousand_jobs(
    web: str, engine: Engine
) -> None:
    payloads = bodies(DELIVERIES)
    sends = [(str(uuid.uuid4()), body) for body in payloads for _ in range(1)]
    sends = [item for item in sends for _ in range(3)]
    sends += [(str(uuid.uuid4()), body) for body in random.Random(7).sample(payloads, FRESH_IDS)]
    random.Random(11).shuffle(sends)

    with httpx.Client(timeout=60, limits=httpx.Limits(max_connections=32)) as client:

        def send(item: tuple[str, bytes]) -> int:
            delivery, body = item
            headers = signed_headers(WEBHOOK_SECRET, body, "pull_request", delivery)
            return client.post(f"{web}/webhooks", content=body, headers=headers).status_code

        with ThreadPoolExecutor(max_workers=32) as pool:
            statuses = Counter(pool.map(send, sends))

    assert statuses == {202: DELIVERIES, 200: 2 * DELIVERIES + FRESH_IDS}
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(Delivery)).scalar_one() == DELIVERIES
        assert conn.execute(select(func.count()).select_from(Job)).scalar_one() == DELIVERIES
        per_pull = conn.execute(select(Job.serial_key, func.count()).group_by(Job.serial_key)).all()
    assert len(per_pull) == DELIVERIES and {count for _, count in per_pull} == {1}
