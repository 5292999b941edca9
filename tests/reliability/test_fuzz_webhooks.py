"""Bad input at `/webhooks`: whatever arrives, no 500, and nothing is stored unless it is valid."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select

from ghapp.app import build_deps, create_app
from ghapp.settings import Settings
from ghapp.signature import sign
from ghapp.tables import Delivery
from tests.conftest import FIXTURES, WEBHOOK_SECRET
from tests.support.web import serve


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Engine]]:
    from ghapp.db import make_engine, migrate

    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'hindsight.db'}"
    engine = make_engine(url)
    migrate(engine)
    config = Settings(database_url=url, webhook_secret=WEBHOOK_SECRET)  # type: ignore[arg-type]
    with serve(
        create_app(config, deps=build_deps(config, engine=engine), run_worker=False)
    ) as base:
        yield base, engine
    engine.dispose()


def stored(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(Delivery)).scalar_one())


header_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=80).map(
    str.strip
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode())),
    event=st.one_of(st.none(), header_text),
    delivery=st.one_of(st.none(), header_text),
    signature=st.sampled_from(["none", "valid", "wrong", "garbage"]),
)
def test_arbitrary_requests_never_fail_the_server(
    served: tuple[str, Engine], body: bytes, event: str | None, delivery: str | None, signature: str
) -> None:
    base, engine = served
    headers: dict[str, str] = {}
    if event is not None:
        headers["x-github-event"] = event
    if delivery is not None:
        headers["x-github-delivery"] = delivery
    if signature == "valid":
        headers["x-hub-signature-256"] = sign(WEBHOOK_SECRET.encode(), body)
    elif signature == "wrong":
        headers["x-hub-signature-256"] = sign(b"other", body)
    elif signature == "garbage":
        headers["x-hub-signature-256"] = "sha256=zz"
    before = stored(engine)
    response = httpx.post(f"{base}/webhooks", content=body, headers=headers, timeout=30)
    assert response.status_code < 500
    assert response.headers["content-type"].startswith("application/json")
    accepted = response.status_code == 202
    assert stored(engine) == before + (1 if accepted else 0)
    if accepted:
        assert signature == "valid" and event and delivery
        assert isinstance(json.loads(body), dict)
    if signature != "valid":
        assert response.status_code == 401


def test_valid_delivery_still_accepted_after_fuzzing(served: tuple[str, Engine]) -> None:
    base, engine = served
    before = stored(engine)
    payload = json.loads((FIXTURES / "pull_request" / "opened.payload.json").read_text())
    payload["zen"] = str(uuid.uuid4())
    body = json.dumps(payload).encode()
    headers = {
        "x-github-event": "pull_request",
        "x-github-delivery": str(uuid.uuid4()),
        "x-hub-signature-256": sign(WEBHOOK_SECRET.encode(), body),
    }
    assert httpx.post(f"{base}/webhooks", content=body, headers=headers).status_code == 202
    assert stored(engine) == before + 1
