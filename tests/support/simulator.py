"""Shared helpers for tests that talk to the GitHub simulator: the app's key, clocks, receivers."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jwt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ghapp.github.client import GitHubClient
from ghapp.loopback import LoopbackServer, bind
from ghapp.settings import Settings
from ghsim import AppKeyPair, GitHubSimulator, generate_app_key

APP_ID = 424242
APP_SLUG = "hindsight"
ORG = "octo-org"
REPO = "octo-org/widgets"
WEBHOOK_SECRET = "test-webhook-secret"


@functools.cache
def app_key() -> AppKeyPair:
    """The app's RSA key pair, generated once per test session."""
    return generate_app_key()


@functools.cache
def other_key() -> AppKeyPair:
    """A second key pair, for a client holding the wrong private key."""
    return generate_app_key()


def app_jwt(key: AppKeyPair, *, iss: str = str(APP_ID), lifetime_s: int = 540) -> str:
    now = int(time.time())
    claims = {"iss": iss, "iat": now - 60, "exp": now + lifetime_s}
    return jwt.encode(claims, key.private_pem, algorithm="RS256")


class FakeClock:
    """A clock tests move by hand; starts at the real time so GitHub's timestamps stay sensible."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def make_client(
    sim: GitHubSimulator, key: AppKeyPair | None = None, **options: object
) -> GitHubClient:
    settings: dict[str, object] = {"timeout_s": 5.0, "trust_env": False, **options}
    return GitHubClient(
        app_id=APP_ID,
        private_key_pem=(key or app_key()).private_pem,
        base_url=sim.base_url,
        **settings,  # type: ignore[arg-type]
    )


def app_settings(
    sim: GitHubSimulator, database_url: str, workdir: Path, **overrides: Any
) -> Settings:
    """The app's settings against `sim`: this session's key, the test webhook secret, and the
    store and `hindsight.toml` under `workdir`; `overrides` replace any of them."""
    values: dict[str, Any] = {
        "database_url": database_url,
        "github_app_id": APP_ID,
        "github_private_key": app_key().private_pem,
        "webhook_secret": WEBHOOK_SECRET,
        "github_api_url": sim.base_url,
        "store_dir": workdir / "store",
        "config": workdir / "hindsight.toml",
        # Replies write back at once in tests; the coalescing window has tests of its own.
        "writeback_coalesce_ms": 0,
        # An install asks for a history back-fill; its tests turn it on (tests/ghapp/test_history*).
        "history_on_install": False,
        **overrides,
    }
    return Settings(**values)


def wait_until(condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    """Poll ``condition`` until true or ``timeout_s`` passes; answers the last result."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes


class WebhookReceiver:
    """A loopback HTTP endpoint recording every delivery it receives; answers 202."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._server: LoopbackServer | None = None
        self.url = ""

    async def _hook(self, request: Request) -> Response:
        body = await request.body()
        with self._lock:
            self.received.append(Received(dict(request.headers), body))
        return JSONResponse({"ok": True}, status_code=202)

    def __enter__(self) -> WebhookReceiver:
        sock, base_url = bind("127.0.0.1", 0)
        app = Starlette(routes=[Route("/webhooks", self._hook, methods=["POST"])])
        self._server = LoopbackServer(app, sock, "webhook-receiver")
        self._server.start()
        self.url = f"{base_url}/webhooks"
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.stop()
