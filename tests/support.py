"""Test helpers: run an ASGI app on a loopback port, sign and send deliveries, poll with a bound."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from ghapp.signature import sign


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve `app` with uvicorn on 127.0.0.1 (ephemeral port) in a thread; yield its base URL."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="on", log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(lambda: server.started or not thread.is_alive(), what="server start")
    if not server.started:
        raise RuntimeError("the test server did not start")
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def wait_for(predicate: Callable[[], object], *, timeout: float = 20.0, what: str = "it") -> None:
    """Poll `predicate` until true, failing after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def signed_headers(
    secret: str, body: bytes, event: str, delivery: str | None = None
) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "x-github-event": event,
        "x-github-delivery": delivery or str(uuid.uuid4()),
        "x-hub-signature-256": sign(secret.encode(), body),
        "user-agent": "GitHub-Hookshot/test",
    }


def deliver(
    client: httpx.Client,
    url: str,
    secret: str,
    event: str,
    payload: dict[str, Any] | bytes,
    delivery: str | None = None,
) -> httpx.Response:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return client.post(
        f"{url}/webhooks", content=body, headers=signed_headers(secret, body, event, delivery)
    )


def load_fixture(root: Path, relative: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / relative).read_text())
    return data
