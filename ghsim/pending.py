"""What waits on GitHub's web side: manifests posted to the new-app page (for their Create click,
then their code), and the app's OAuth sign-ins (codes, then user tokens)."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class Posted:
    """A manifest someone posted, until they click Create (then: until its code is converted)."""

    manifest: dict[str, Any]
    state: str | None
    owner: str
    owner_type: str


class PendingManifests:
    """Posted manifests by form token, and created ones by their one-time code."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._posted: dict[str, Posted] = {}
        self._codes: dict[str, Posted] = {}

    def post(self, posted: Posted) -> str:
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._posted[token] = posted
        return token

    def create(self, token: str) -> tuple[str, Posted] | None:
        with self._lock:
            posted = self._posted.pop(token, None)
            if posted is None:
                return None
            code = secrets.token_hex(10)
            self._codes[code] = posted
            return code, posted

    def take(self, code: str) -> Posted | None:
        """The manifest of ``code``, once: a code converts one time only."""
        with self._lock:
            return self._codes.pop(code, None)


@dataclass(frozen=True)
class Code:
    """A code GitHub's authorize page handed back: whose, for which client and redirect."""

    login: str
    client_id: str
    redirect_uri: str | None
    issued_at: datetime


class PendingSignIns:
    """The app's OAuth user flow: its client secret and callback URLs, who is signed in on the
    web side, the codes handed out (ten minutes, once each) and the user tokens they became."""

    CODE_TTL = timedelta(minutes=10)

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._lock = threading.Lock()
        self._now = now
        self.client_secret = secrets.token_hex(20)
        self.callback_urls: list[str] = []
        self.web_user: str | None = None  # who a browser is signed in as on the web side
        self._codes: dict[str, Code] = {}
        self._tokens: dict[str, str] = {}

    def issue(self, login: str, client_id: str, redirect_uri: str | None) -> str:
        code = secrets.token_hex(10)
        with self._lock:
            self._codes[code] = Code(login, client_id, redirect_uri, self._now())
        return code

    def take(self, code: str) -> Code | None:
        """The code's grant, once, within its ten minutes."""
        with self._lock:
            found = self._codes.pop(code, None)
        if found is None or self._now() - found.issued_at > self.CODE_TTL:
            return None
        return found

    def token_for(self, login: str) -> str:
        token = "ghu_" + secrets.token_urlsafe(27).replace("-", "a").replace("_", "b")[:36]
        with self._lock:
            self._tokens[token] = login
        return token

    def user_of(self, token: str) -> str | None:
        with self._lock:
            return self._tokens.get(token)
