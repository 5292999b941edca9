"""Manifests posted to the new-app page: waiting for their Create click, then for their code."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
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
