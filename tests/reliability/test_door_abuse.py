"""`hindsight serve` under abuse: slow bodies and heads, floods, huge headers and bodies, and
malformed values. Each is answered with a 4xx or a quick 503 and its connection closed; the process
keeps answering `/healthz` and signed deliveries; nothing answers 500."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from sqlalchemy import select

from continual.tables import Entry
from ghapp.db import make_engine, migrate
from ghsim import GitHubSimulator
from tests.conftest import FIXTURES, WEBHOOK_SECRET
from tests.support.processes import environment, free_port, ready, start, stop
from tests.support.recall import accept, seed, token
from tests.support.simulator import APP_ID, app_key
from tests.support.web import signed_headers, wait_for

BODY_TIMEOUT_S = 1
MAX_IN_FLIGHT = 4
MAX_HEADER_BYTES = 8192
IDLE_TIMEOUT_S = 1
# The server held to a few descriptors: 128 leave room for 48 connections (128 - 64 kept for the
# database and logs - a backlog of 16), and one address may hold 16 of them.
NOFILE = 128
PER_CLIENT = 16


@dataclass
class Served:
    url: str
    port: int
    token: str
    entry_id: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp_path = tmp_path_factory.mktemp("door")
    url = f"sqlite:///{tmp_path / 'hindsight.db'}"
    engine = make_engine(url)
    migrate(engine)
    octo = seed(engine, 1, "octo", "app")
    accept(engine, octo, "octo/app", review_id="r1")
    bearer = token(engine, "octo", "mona")
    with engine.connect() as conn:
        entry_id = conn.execute(select(Entry.id)).scalar_one()
    engine.dispose()
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim:
        env = {
            **environment(sim, url, tmp_path),
            "HINDSIGHT_BODY_TIMEOUT_S": str(BODY_TIMEOUT_S),
            "HINDSIGHT_MAX_IN_FLIGHT": str(MAX_IN_FLIGHT),
            "HINDSIGHT_MAX_HEADER_BYTES": str(MAX_HEADER_BYTES),
            "HINDSIGHT_IDLE_TIMEOUT_S": str(IDLE_TIMEOUT_S),
        }
        port = free_port()
        server = start(["serve", "--no-worker", "--no-review", "--port", str(port)], env, tmp_path)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(
                lambda: ready(base) or server.poll() is not None,
                timeout=120,
                what="serve to be ready",
            )
            assert server.poll() is None
            yield Served(base, port, bearer, entry_id)
        finally:
            output = stop(server)
    assert "Traceback" not in output, output


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A connection to the server from `source` (any 127.x.y.z is this machine's loopback)."""
    return socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))


@pytest.fixture(scope="module")
def held_to_few_descriptors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`serve` under `prlimit --nofile=128`, with connections that never time out in the test."""
    tmp_path = tmp_path_factory.mktemp("door-descriptors")
    url = f"sqlite:///{tmp_path / 'hindsight.db'}"
    engine = make_engine(url)
    migrate(engine)
    engine.dispose()
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim:
        env = {
            **environment(sim, url, tmp_path),
            "HINDSIGHT_IDLE_TIMEOUT_S": "600",
            "HINDSIGHT_BODY_TIMEOUT_S": "600",
            "HINDSIGHT_MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
        }
        port = free_port()
        command = ["serve", "--no-worker", "--no-review", "--port", str(port)]
        server = subprocess.Popen(
            ["prlimit", f"--nofile={NOFILE}:{NOFILE}", sys.executable, "-m", "ghapp.cli", *command],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(
                lambda: ready(base) or server.poll() is not None,
                timeout=120,
                what="serve to be ready",
            )
            assert server.poll() is None
            yield Served(base, port, "", "")
        finally:
            output = stop(server)
    assert "Traceback" not in output, output


def answer(sock: socket.socket) -> tuple[int, bytes]:
    """Read until the server closes; the status and everything it sent. A server that refuses an
    upload closes with the client's bytes still unread, so the close may arrive as a reset once
    the answer has been read."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            if not data:
                raise
            break
        if not chunk:
            break
        data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0
    return status, data


def slow_body(port: int, path: str = "/webhooks") -> socket.socket:
    """A request whose head is whole but whose body stops after one byte."""
    sock = connect(port)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        "content-length: 1000\r\n\r\n{".encode()
    )
    return sock


def delivery(served: Served) -> httpx.Response:
    payload = json.loads((FIXTURES / "pull_request" / "opened.payload.json").read_text())
    payload["zen"] = str(time.time_ns())
    body = json.dumps(payload).encode()
    headers = signed_headers(WEBHOOK_SECRET, body, "pull_request")
    return httpx.post(f"{served.url}/webhooks", content=body, headers=headers, timeout=15)


def test_a_body_that_stops_arriving_is_cut_at_the_deadline(served: Served) -> None:
    started = time.monotonic()
    with slow_body(served.port) as sock:
        status, data = answer(sock)
    assert status == 408, data
    assert b"body_timeout" in data
    assert time.monotonic() - started < 10 * BODY_TIMEOUT_S


def test_a_flood_past_the_bound_is_refused_at_once_while_health_and_deliveries_answer(
    served: Served,
) -> None:
    holders = [slow_body(served.port) for _ in range(MAX_IN_FLIGHT)]
    try:
        # Every slot is held by a slow body: the next request is refused at once, and closed.
        wait_for(lambda: refused(served), timeout=5, what="the bound to be reached")
        assert httpx.get(f"{served.url}/healthz", timeout=5).status_code == 200
    finally:
        for sock in holders:
            assert answer(sock)[0] == 408
            sock.close()
    assert delivery(served).status_code == 202


def refused(served: Served) -> bool:
    with connect(served.port) as sock:
        sock.sendall(b"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}")
        status, data = answer(sock)
    if status == 503:
        assert b"retry-after: 1" in data.lower()
    return status == 503


def test_a_head_too_large_or_too_slow_is_refused(served: Served) -> None:
    with connect(served.port) as sock:  # over the bound, and all of it read by the server
        filler = b"".join(b"x-filler-%d: %s\r\n" % (n, b"a" * 1000) for n in range(10))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n" + filler)
        status, _ = answer(sock)
    assert status == 431
    with connect(served.port) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: ")
        status, _ = answer(sock)
    assert status == 408
    assert httpx.get(f"{served.url}/healthz", timeout=5).status_code == 200


def test_an_authenticated_huge_put_is_refused_at_the_cap_not_read_whole(served: Served) -> None:
    auth = f"authorization: Bearer {served.token}\r\n"
    with connect(served.port) as sock:  # declared: refused before any of it is sent
        sock.sendall(
            f"PUT /v1/persons/preference HTTP/1.1\r\nhost: x\r\n{auth}"
            f"content-length: {256 * 1024 * 1024}\r\n\r\n".encode()
        )
        status, data = answer(sock)
    assert status == 413, data
    with connect(served.port) as sock:  # chunked: refused once the cap is passed
        sock.sendall(
            f"PUT /v1/persons/preference HTTP/1.1\r\nhost: x\r\n{auth}"
            "transfer-encoding: chunked\r\n\r\n".encode()
        )
        chunk = b"%x\r\n%s\r\n" % (64 * 1024, b" " * 64 * 1024)
        sent = 0
        try:
            while sent < 256 * 1024 * 1024:
                sock.sendall(chunk)
                sent += 64 * 1024
                sock.settimeout(0.0)
                try:
                    if sock.recv(1, socket.MSG_PEEK):
                        break
                except BlockingIOError:
                    pass
                finally:
                    sock.settimeout(15)
        except OSError:
            pass  # closed under us: the answer is already waiting
        status, data = answer(sock)
    assert status == 413, data
    assert sent < 8 * 1024 * 1024, f"{sent} bytes were taken before the refusal"


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("DELETE", "/v1/recall/{id}?expected_revision=%C2%B2", None, 422),
        ("DELETE", "/v1/recall/{id}?expected_revision=10%5E23", None, 422),
        ("DELETE", "/v1/recall/{id}?expected_revision=" + "1" * 24, None, 422),
        ("PATCH", "/v1/recall/{id}", {"demote": True, "expected_revision": 2**63}, 422),
        ("PATCH", "/v1/recall/{id}", b"[" * 50_000, 400),
        ("PUT", "/v1/persons/preference", b"[" * 50_000, 400),
    ],
    ids=["superscript-two", "caret", "huge", "revision-2^63", "deep-patch", "deep-put"],
)
def test_malformed_values_are_answered_4xx(
    served: Served, method: str, path: str, body: object, status: int
) -> None:
    content = body if isinstance(body, bytes) else json.dumps(body).encode() if body else None
    response = httpx.request(
        method,
        served.url + path.replace("{id}", served.entry_id),
        content=content,
        headers={"authorization": f"Bearer {served.token}"},
        timeout=15,
    )
    assert response.status_code == status, response.text
    assert set(response.json()) == {"error"}


def test_bodies_larger_than_the_head_bound_pass_whole(served: Served) -> None:
    """The head bound counts the head only: a body many times its size arrives with it."""
    with connect(served.port) as sock:
        payload = json.loads((FIXTURES / "pull_request" / "opened.payload.json").read_text())
        payload["zen"] = "x" * (4 * MAX_HEADER_BYTES)
        body = json.dumps(payload).encode()
        headers = signed_headers(WEBHOOK_SECRET, body, "pull_request")
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        sock.sendall(
            f"POST /webhooks HTTP/1.1\r\nhost: x\r\nconnection: close\r\n{head}"
            f"content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        status, data = answer(sock)
    assert status == 202, data


def test_a_signed_body_nested_past_the_bound_is_a_400(served: Served) -> None:
    body = b"[" * 50_000
    headers = signed_headers(WEBHOOK_SECRET, body, "pull_request")
    response = httpx.post(f"{served.url}/webhooks", content=body, headers=headers, timeout=15)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_json"


def test_a_connection_that_sends_nothing_is_closed_at_the_idle_deadline(served: Served) -> None:
    with connect(served.port) as sock:
        status, data = answer(sock)  # the server closes it; without a deadline recv times out
    assert (status, data) == (0, b"")


def test_one_address_holds_at_most_its_bound_and_the_next_is_refused(
    held_to_few_descriptors: Served,
) -> None:
    served = held_to_few_descriptors
    held = [connect(served.port, "127.0.0.2") for _ in range(PER_CLIENT)]
    try:
        wait_for(lambda: refused_at_once(served.port, "127.0.0.2"), timeout=10, what="the bound")
        assert httpx.get(f"{served.url}/healthz", timeout=10).status_code == 200
    finally:
        for sock in held:
            sock.close()


def refused_at_once(port: int, source: str) -> bool:
    with connect(port, source) as sock:
        status, data = answer(sock)
    assert status in (0, 503), data
    return status == 503 and b"retry-after: 1" in data.lower()


def test_more_idle_connections_than_descriptors_leave_health_and_deliveries_answering(
    held_to_few_descriptors: Served,
) -> None:
    """150 connections that send nothing, from ten addresses each under its bound, against 128
    descriptors: the oldest waiting ones are closed to make room, and the probes are answered."""
    served = held_to_few_descriptors
    slow = connect(served.port, "127.0.0.10")  # the oldest, and it has begun its head
    slow.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n")
    held = [connect(served.port, f"127.0.0.{10 + n % 10}") for n in range(150)]
    try:
        assert httpx.get(f"{served.url}/healthz", timeout=10).status_code == 200
        assert delivery(served).status_code == 202
        status, data = answer(slow)  # a head begun is told why it is closed
        assert status == 503, data
        wait_for(
            lambda: sum(map(_closed, held)) >= 100,
            timeout=10,
            what="100 of the 150 to be closed to make room",
        )
    finally:
        for sock in [slow, *held]:
            sock.close()


def _closed(sock: socket.socket) -> bool:
    """Whether the server has closed `sock` (looked at without waiting)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def test_the_process_still_answers_afterwards(served: Served) -> None:
    assert httpx.get(f"{served.url}/healthz", timeout=5).status_code == 200
    assert delivery(served).status_code == 202
