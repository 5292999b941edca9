"""Bad input at `/v1`, generated from the published OpenAPI description: no 5xx, errors as JSON,
401 without a valid token, and a rejected request changes nothing stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select

from continual import persons
from continual.tables import Entry, Injection, Person, Receipt
from tests.support.openapi_check import check
from tests.support.recall import NOW, Clock, accept, api, seed, token

EXAMPLES = 150
BODY_EXAMPLES = 100
HINTS: dict[str, st.SearchStrategy[str]] = {
    "repo": st.sampled_from(["octo/app", "octo/lib", "other/tools", "nobody/none", "octo", ""]),
    "session": st.sampled_from(["s-1", "agent:42@host", "", "has space", "x" * 129]),
    "brain": st.sampled_from(["true", "false", "1", "0", "yes", ""]),
    "expected_revision": st.sampled_from(["1", "2", "0", "-1", "x", ""]),
    "path": st.sampled_from(["src/app.py", "src", "/etc/passwd", ""]),
    "identifier": st.sampled_from(["parse_config", "load_rows", ""]),
    "word": st.sampled_from(["config", "Unchecked", ""]),
}
printable = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=12), children, max_size=3)
    ),
    max_leaves=8,
)


@dataclass
class World:
    engine: Engine
    url: str
    document: dict[str, Any]
    tokens: dict[str, str]
    own_ids: list[str]
    foreign_ids: list[str]
    store_dir: Path


@pytest.fixture
def world(engine: Engine, tmp_path: Path) -> Iterator[World]:
    octo = seed(engine, 1, "octo", "app", "lib")
    other = seed(engine, 2, "other", "tools")
    accept(engine, octo, "octo/app", review_id="rev-1")
    accept(engine, octo, "octo/app", name="load_rows", review_id="rev-1")
    accept(engine, other, "other/tools", review_id="rev-9")
    revoked = token(engine, "octo", "mona")
    with engine.begin() as conn:
        (info,) = persons.list_tokens(conn, "octo", "mona")
        persons.revoke_token(conn, "octo", "mona", info.id, now=NOW)
    good = token(engine, "octo", "mona")
    tokens = {
        "good": good,
        "other-account": token(engine, "other", "lee"),
        "revoked": revoked,
        "altered": good[:-1] + ("A" if good[-1] != "A" else "B"),
        "unknown": "hs_" + "0" * 40,
    }
    with engine.connect() as conn:
        ids = conn.execute(select(Entry.id, Entry.account_id)).all()
    with api(engine, tmp_path, Clock(NOW + 1000)) as url:
        document = httpx.get(f"{url}/v1/openapi.json").json()
        yield World(
            engine,
            url,
            document,
            tokens,
            own_ids=[i for i, account in ids if account == 1],
            foreign_ids=[i for i, account in ids if account == 2],
            store_dir=tmp_path,
        )


def from_schema(schema: dict[str, Any], document: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values that fit `schema` (the JSON Schema subset the description uses)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        return from_schema(document["components"]["schemas"][name], document)
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kinds = schema.get("type", "string")
    if isinstance(kinds, list):
        return st.one_of([from_schema({**schema, "type": k}, document) for k in kinds])
    if kinds == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {k: from_schema(v, document) for k, v in properties.items() if k in required},
            optional={
                k: from_schema(v, document) for k, v in properties.items() if k not in required
            },
        )
    if kinds == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is None and high is None:
            return st.integers(-1, 4) | st.integers()
        return st.integers(low, high)
    if kinds == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kinds == "boolean":
        return st.booleans()
    if kinds == "null":
        return st.none()
    if kinds == "array":
        return st.lists(from_schema(schema.get("items", {}), document), max_size=3)
    return st.text(max_size=20)


def broken(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A value that fit the schema, then spoiled: a field dropped, added or given a wrong value."""

    @st.composite
    def spoil(draw: st.DrawFn) -> Any:
        value = draw(valid)
        if not isinstance(value, dict):
            return draw(json_values)
        how = draw(st.sampled_from(["drop", "add", "replace"]))
        if how == "drop" and value:
            value.pop(draw(st.sampled_from(sorted(value))))
        elif how == "add":
            value[draw(st.text(min_size=1, max_size=12))] = draw(json_values)
        elif value:
            value[draw(st.sampled_from(sorted(value)))] = draw(json_values)
        return value

    return spoil()


@dataclass(frozen=True)
class Call:
    template: str
    method: str
    path: str
    entry_id: str | None
    params: list[tuple[str, str]]
    body: Any  # a JSON value, or raw bytes sent as they are; None: no body
    credential: str


ALL_CREDENTIALS = st.sampled_from(
    ["good", "good", "good", "other-account", "revoked", "altered", "unknown"]
) | st.sampled_from(["missing", "wrong-scheme", "empty-bearer"])
IDS = printable.filter(lambda v: v.strip("./") != "" and "/" not in v)


def body_for(schema: dict[str, Any], document: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A body fitting `schema`, the same spoiled, any JSON at all, or bytes that are not JSON."""
    valid = from_schema(schema, document)
    if "expected_revision" in document["components"]["schemas"].get(
        schema.get("$ref", "").removeprefix("#/components/schemas/"), {}
    ).get("properties", {}):
        # Often the revision the entry is really at, so that edits also succeed.
        valid = valid.map(lambda v: {**v, "expected_revision": CURRENT}) | valid
    raw = st.binary(max_size=40).filter(lambda b: not _is_json(b)) | st.just(b"")
    return st.one_of(valid, valid, broken(valid), json_values, raw)


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


CURRENT = -424242  # stands for the entry's current revision, filled in when the call is sent


@st.composite
def calls(
    draw: st.DrawFn,
    world: World,
    *,
    only: tuple[str, ...] = (),
    credentials: st.SearchStrategy[str] = ALL_CREDENTIALS,
) -> Call:
    """One request to an operation of the description, with parameters, body and credential."""
    document = world.document
    operations = sorted(
        (path, method)
        for path, item in document["paths"].items()
        for method in item
        if not only or f"{method.upper()} {path}" in only
    )
    template, method = draw(st.sampled_from(operations))
    operation = document["paths"][template][method]
    path, entry_id = template, None
    params: list[tuple[str, str]] = []
    for parameter in operation["parameters"]:
        name = parameter["name"]
        if parameter["in"] == "path":
            entry_id = draw(
                st.one_of(
                    st.sampled_from(world.own_ids),
                    st.sampled_from(world.own_ids),
                    st.sampled_from(world.foreign_ids),
                    IDS,
                )
            )
            path = path.replace("{" + name + "}", quote(entry_id, safe=""))
            continue
        values = HINTS.get(name, printable) | printable
        params += [(name, v) for v in draw(st.lists(values, max_size=2))]
    params += draw(st.lists(st.tuples(st.sampled_from(["x", "repo"]), printable), max_size=1))
    body = None
    if "requestBody" in operation:
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        body = draw(body_for(schema, document))
    return Call(template, method, path, entry_id, params, body, draw(credentials))


def headers_for(world: World, credential: str) -> dict[str, str]:
    if credential == "missing":
        return {}
    if credential == "wrong-scheme":
        return {"authorization": f"Token {world.tokens['good']}"}
    if credential == "empty-bearer":
        return {"authorization": "Bearer"}
    return {"authorization": f"Bearer {world.tokens[credential]}"}


def stored(world: World) -> tuple[object, ...]:
    """Everything a request could change: entries, receipts, cards and injections."""
    with world.engine.connect() as conn:
        entries = conn.execute(
            select(
                Entry.id, Entry.revision, Entry.demoted_ms, Entry.deleted_ms, Entry.expires_ms
            ).order_by(Entry.id)
        ).all()
        cards = conn.execute(
            select(Person.id, Person.recording, Person.surfacing, Person.lesson_cap).order_by(
                Person.id
            )
        ).all()
        injections = conn.execute(select(func.count()).select_from(Injection)).scalar_one()
        receipts = conn.execute(select(Receipt.id, Receipt.superseded).order_by(Receipt.id)).all()
    lines = sum(
        len(path.read_text().splitlines()) for path in world.store_dir.rglob("injections.jsonl")
    )
    return tuple(entries), tuple(cards), injections, tuple(receipts), lines


def revision_of(world: World, entry_id: str | None) -> int:
    with world.engine.connect() as conn:
        found = conn.execute(select(Entry.revision).where(Entry.id == entry_id)).scalar()
    return int(found or 1)


VALID_TOKENS = {"good", "other-account"}
# Statuses the description may leave out: none.
UNDESCRIBED: set[int] = set()


def send(world: World, call: Call) -> httpx.Response:
    headers = headers_for(world, call.credential)
    content = call.body
    if isinstance(content, dict) and content.get("expected_revision") == CURRENT:
        content = {**content, "expected_revision": revision_of(world, call.entry_id)}
    if content is not None and not isinstance(content, bytes):
        content = json.dumps(content).encode()
    if content is not None:
        headers["content-type"] = "application/json"
    return httpx.request(
        call.method.upper(),
        f"{world.url}{call.path}",
        params=tuple(call.params),
        content=content,
        headers=headers,
        timeout=30,
    )


def probe(world: World, call: Call) -> int:
    """Send `call` and hold its answer to the rules; answers the status."""
    before = stored(world)
    response = send(world, call)
    status = response.status_code
    assert status < 500, response.text
    body = response.json() if response.content else None
    if call.credential not in VALID_TOKENS:
        assert status == 401, (status, body)
        assert response.headers.get("www-authenticate") == "Bearer"
    if status >= 400:
        assert isinstance(body, dict) and set(body) == {"error"}, body
        error = body["error"]
        assert isinstance(error.get("code"), str) and isinstance(error.get("message"), str)
        assert stored(world) == before, f"a rejected {call.method} {call.path} changed the store"
    if status in UNDESCRIBED:
        return status
    responses = world.document["paths"][call.template][call.method]["responses"]
    assert str(status) in responses, f"{call.method} {call.template} answered {status}: {body}"
    check(world.document, call.template, call.method, status, body)
    return status


HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]


def test_fuzzed_requests_answer_as_described_and_rejections_change_nothing(world: World) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=HEALTH)
    @given(call=calls(world))
    def run(call: Call) -> None:
        probe(world, call)

    run()


def test_fuzzed_edits_and_cards_answer_as_described(world: World) -> None:
    seen: set[tuple[str, int]] = set()
    card, edit = "/v1/persons/preference", "/v1/recall/{entry_id}"
    own = world.own_ids[0]
    mine = f"/v1/recall/{own}"

    @settings(max_examples=BODY_EXAMPLES, deadline=None, suppress_health_check=HEALTH)
    @example(Call(card, "put", card, None, [], {"surfacing": 1}, "good"))
    @example(Call(card, "put", card, None, [], {"lesson_cap": 0}, "good"))
    @example(Call(edit, "patch", mine, own, [], {"demote": True, "expected_revision": 99}, "good"))
    @example(
        Call(edit, "patch", mine, own, [], {"demote": True, "expected_revision": CURRENT}, "good")
    )
    @example(Call(edit, "patch", "/v1/recall/nope", "nope", [], {"demote": True}, "good"))
    @given(
        call=calls(
            world,
            only=("PUT /v1/persons/preference", "PATCH /v1/recall/{entry_id}"),
            credentials=st.just("good"),
        )
    )
    def run(call: Call) -> None:
        seen.add((call.method, probe(world, call)))

    run()
    wanted = {("put", 200), ("put", 422), ("patch", 200), ("patch", 409), ("patch", 422)}
    assert wanted <= seen, seen


@pytest.mark.parametrize("size", ["not-json", "too-large"])
def test_a_body_that_is_not_json_is_a_described_answer(world: World, size: str) -> None:
    body: bytes = b"{not json" if size == "not-json" else b" " * (64 * 1024 + 1)
    for template, path in [
        ("/v1/persons/preference", "/v1/persons/preference"),
        ("/v1/recall/{entry_id}", f"/v1/recall/{world.own_ids[0]}"),
    ]:
        method = "put" if template.endswith("preference") else "patch"
        call = Call(template, method, path, world.own_ids[0], [], body, "good")
        response = send(world, call)
        assert response.status_code in (400, 413)
        responses = world.document["paths"][template][method]["responses"]
        assert str(response.status_code) in responses, f"{method} {template}"
