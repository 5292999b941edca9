"""The app's webhook deliveries as GitHub keeps them: each attempt listed, any one redelivered."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ghsim.model import ApiError
from ghsim.shapes import iso
from ghsim.webhooks import Delivery

Send = Callable[[str, bytes, str | None, str], Delivery]  # event, body, action, guid
Configure = Callable[[str, str], None]  # webhook url, secret


@dataclass(frozen=True)
class Attempt:
    """One attempt at a delivery: its own id, the delivery's guid, and how the receiver answered."""

    id: int
    delivery: Delivery
    delivered_at: datetime
    redelivery: bool

    def status_text(self) -> str:
        if self.delivery.ok:
            return "OK"
        if self.delivery.status == 0:
            return "failed to connect to host"
        return f"Invalid HTTP Response: {self.delivery.status}"

    def shape(self) -> dict[str, Any]:
        """The item of ``GET /app/hook/deliveries``."""
        try:
            payload = json.loads(self.delivery.body)
        except ValueError:
            payload = {}
        installation = payload.get("installation") or {}
        repository = payload.get("repository") or {}
        return {
            "id": self.id,
            "guid": self.delivery.id,
            "delivered_at": iso(self.delivered_at),
            "redelivery": self.redelivery,
            "duration": 0.01,
            "status": self.status_text(),
            "status_code": self.delivery.status,
            "event": self.delivery.event,
            "action": self.delivery.action,
            "installation_id": installation.get("id"),
            "repository_id": repository.get("id"),
            "throttled_at": None,
        }


class HookLog:
    """Every attempt, newest first when listed; ``redeliver`` sends an attempt's body again under
    the same guid (``X-GitHub-Delivery``), as GitHub does."""

    def __init__(self, clock: Callable[[], datetime]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._attempts: list[Attempt] = []
        self.send: Send | None = None
        # Set by the simulator: where an app registered from a manifest has its webhooks sent.
        self.configure: Configure | None = None

    def record(self, delivery: Delivery, *, redelivery: bool = False) -> Attempt:
        with self._lock:
            attempt = Attempt(len(self._attempts) + 1, delivery, self._clock(), redelivery)
            self._attempts.append(attempt)
        return attempt

    def attempts(self) -> list[Attempt]:
        with self._lock:
            return list(self._attempts)

    def page(self, cursor: str | None, per_page: int) -> tuple[list[Attempt], str | None]:
        """Up to ``per_page`` attempts older than ``cursor`` (an attempt id), and the next cursor."""
        try:
            before = int(cursor) if cursor else None
        except ValueError:
            raise ApiError(400, "Bad Request", ["cursor is not valid"]) from None
        newest_first = sorted(self.attempts(), key=lambda a: a.id, reverse=True)
        older = [a for a in newest_first if before is None or a.id < before]
        chunk = older[:per_page]
        more = len(older) > per_page
        return chunk, (str(chunk[-1].id) if more and chunk else None)

    def redeliver(self, attempt_id: int) -> Attempt:
        with self._lock:
            found = next((a for a in self._attempts if a.id == attempt_id), None)
        if found is None:
            raise ApiError(404, "Not Found")
        if self.send is None:
            raise ApiError(422, "Validation Failed", ["the app has no webhook URL"])
        original = found.delivery
        sent = self.send(original.event, original.body, original.action, original.id)
        return self.record(sent, redelivery=True)
