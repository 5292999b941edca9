"""Test helpers: run an ASGI app on a loopback port, sign and send deliveries, poll with a bound."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from ghapp.loopback import serve_in_thread
from ghapp.signature import sign


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve `app` with uvicorn on 127.0.0.1 (ephemeral port) in a thread; yield its base URL."""
    with serve_in_thread(app) as url:
        yield url


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
