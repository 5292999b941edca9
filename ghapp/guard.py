"""The door's guard: a bounded number of requests in flight, a deadline for reading each body, and
a cap on every body.

A request over the bound is answered 503 at once and its connection closed, so a flood of slow
clients cannot hold every descriptor; a body that has not arrived whole by the deadline is answered
408 and its connection closed (a sweep every tenth of the deadline, at most a second, finds it); a
body over its route's cap (declared, or counted as it streams) is answered 413 and the rest never
read, whatever the route's handler does with it. `/healthz` and `/readyz` are answered outside
the bound, so a flood never hides whether the process is up.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ghapp.api.auth import MAX_BODY_BYTES as API_BODY_BYTES
from ghapp.bodies import GuardAnswers
from ghapp.ingress import MAX_BODY_BYTES as WEBHOOK_BODY_BYTES

log = logging.getLogger(__name__)

UNBOUNDED_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
# Descriptors kept back from requests in flight: the database, logs, the worker's HTTP clients.
RESERVED_DESCRIPTORS = 64


def body_cap(path: str) -> int:
    """The most bytes a body sent to `path` may have: 25 MiB for deliveries, 64 KiB elsewhere."""
    return WEBHOOK_BODY_BYTES if path == "/webhooks" else API_BODY_BYTES


def descriptor_bound(configured: int) -> int:
    """At most `configured` requests in flight, and at most half the descriptors left over."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return configured
    return max(1, min(configured, (soft - RESERVED_DESCRIPTORS) // 2))


def _error(status: int, code: str, message: str) -> tuple[Message, Message]:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    if status == 503:
        headers.append((b"retry-after", b"1"))
    start: Message = {"type": "http.response.start", "status": status, "headers": headers}
    return start, {"type": "http.response.body", "body": body, "more_body": False}


class BodyTimeout(GuardAnswers):
    """The body did not arrive whole before the deadline."""


class BodyTooLarge(GuardAnswers):
    """The body went past its route's cap."""


def _declared_over(scope: Scope, cap: int) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-length":
            return value.isdigit() and int(value) > cap
    return False


class _Wait:
    """A task waiting for part of a body: its deadline, and whether the sweep has cut it."""

    __slots__ = ("cut", "deadline")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.cut = False


class Guard:
    """ASGI middleware bounding requests in flight and the time their bodies take to arrive."""

    def __init__(self, app: ASGIApp, *, max_in_flight: int, body_timeout_s: float) -> None:
        self.app = app
        self.max_in_flight = max_in_flight
        self.body_timeout_s = body_timeout_s
        self.in_flight = 0
        self._refused = 0
        self._refusals_logged_at = 0.0
        # The requests waiting for a part of their body, with their deadlines. One sweep a tick
        # cancels those past it, instead of a timer for each request (a timer cost every
        # delivery more CPU than the rest of this guard: docs/performance.md, "Ingress").
        self._waiting: dict[asyncio.Task[Any], _Wait] = {}
        # Each event loop sweeps its own requests (a test client may serve from several).
        self._sweeps: dict[asyncio.AbstractEventLoop, asyncio.TimerHandle] = {}
        self.tick_s = min(1.0, body_timeout_s / 10)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in UNBOUNDED_PATHS:
            await self.app(scope, receive, send)
            return
        if self.in_flight >= self.max_in_flight:
            self._note_refusal()
            for message in _error(503, "busy", "too many requests in flight; retry shortly"):
                await send(message)
            return
        self.in_flight += 1
        try:
            await self._bounded(scope, receive, send)
        finally:
            self.in_flight -= 1

    def _note_refusal(self) -> None:
        """Count a refusal; log the count at most once a second (a flood must not flood the log)."""
        self._refused += 1
        now = time.monotonic()
        if now - self._refusals_logged_at >= 1.0:
            log.warning(
                "requests refused: too many in flight",
                extra={"limit": self.max_in_flight, "refused": self._refused},
            )
            self._refused = 0
            self._refusals_logged_at = now

    async def _bounded(self, scope: Scope, receive: Receive, send: Send) -> None:
        cap = body_cap(scope["path"])
        if _declared_over(scope, cap):
            await self._too_large(scope, send, cap)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout_s
        state = {"body_done": False, "timed_out": False, "started": False, "too_large": False}
        received = [0]

        async def receive_by_deadline() -> Message:
            if state["body_done"]:
                return await receive()
            if loop.time() >= deadline:
                state["timed_out"] = True
                raise BodyTimeout
            # The task that reads: a response may listen for the disconnect from a task of its own.
            task = asyncio.current_task()
            assert task is not None  # an ASGI request always runs in a task
            wait = self._wait(loop, task, deadline)
            try:
                message = await receive()
            except asyncio.CancelledError:
                # Cancelled by the sweep, and by nothing else: the body is late.
                if wait.cut and task.uncancel() == 0:
                    state["timed_out"] = True
                    raise BodyTimeout from None
                raise
            finally:
                del self._waiting[task]
            if message["type"] != "http.request" or not message.get("more_body", False):
                state["body_done"] = True
            received[0] += len(message.get("body", b""))
            if received[0] > cap:
                state["too_large"] = True
                raise BodyTooLarge
            return message

        async def tracked_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        try:
            await self.app(scope, receive_by_deadline, tracked_send)
        except Exception:
            if not (state["timed_out"] or state["too_large"]):
                raise
        if state["too_large"] and not state["started"]:
            await self._too_large(scope, send, cap)
        elif state["timed_out"] and not state["started"]:
            log.info("request body too slow", extra={"path": scope["path"]})
            message = f"the body did not arrive within {self.body_timeout_s:g} s"
            for reply in _error(408, "body_timeout", message):
                await send(reply)

    def _wait(
        self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], deadline: float
    ) -> _Wait:
        """Note that `task` waits for its body until `deadline`; its loop sweeps while any of its
        requests wait."""
        wait = self._waiting[task] = _Wait(deadline)
        if loop not in self._sweeps:
            for ended in [other for other in self._sweeps if other.is_closed()]:
                del self._sweeps[ended]  # a loop that ended with its sweep still armed
            self._sweeps[loop] = loop.call_later(self.tick_s, self._cancel_late, loop)
        return wait

    def _cancel_late(self, loop: asyncio.AbstractEventLoop) -> None:
        """Cancel every request of this loop still waiting for its body past its deadline (at
        most a tick late), then sweep again a tick later while any of them waits."""
        del self._sweeps[loop]
        now = loop.time()
        waiting = False
        for task, wait in list(self._waiting.items()):  # another loop's thread may add some
            if task.get_loop() is not loop:
                continue
            waiting = True
            if now >= wait.deadline and not wait.cut:
                wait.cut = True
                task.cancel()
        if waiting:
            self._sweeps[loop] = loop.call_later(self.tick_s, self._cancel_late, loop)

    async def _too_large(self, scope: Scope, send: Send, cap: int) -> None:
        log.info("request body too large", extra={"path": scope["path"], "cap": cap})
        for reply in _error(413, "too_large", f"the body is over {cap} bytes"):
            await send(reply)
