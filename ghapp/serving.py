"""How the app is served: uvicorn on the fast stack, with connections bounded before any request.

uvicorn bounds the head only on its h11 stack (`h11_max_incomplete_event_size`) and times a
connection only once it has sent a byte; on httptools a client may hold a connection without
sending anything, send headers without end, or one byte a minute. `bounded_protocol` gives the
httptools protocol these bounds, counted from the moment the connection is accepted:

- a connection that sends nothing within `idle_timeout_s` is closed;
- a head over `max_head_bytes` is answered 431, a head not whole within `head_timeout_s` 408;
- one remote address holds at most `per_client` connections: one more is answered 503 and closed;
- the server holds at most as many connections as its descriptor limit leaves room for (less the
  descriptors kept for the database, logs and the worker, and the listen backlog): at that bound a
  new connection closes a waiting one (no request in progress: idle, or still sending its head),
  taken from the address that holds the most, oldest first. So `/healthz` and `/webhooks` find a
  descriptor however many connections a flood keeps open.
"""

from __future__ import annotations

import asyncio
import logging
import math
import resource
import socket
import time
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ghapp.settings import Settings

log = logging.getLogger(__name__)

TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
TOO_SLOW = b"HTTP/1.1 408 Request Timeout\r\n"
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\n"
CLOSING = b"content-length: 0\r\nconnection: close\r\n\r\n"
# Descriptors never given to connections: the database, logs, the worker's HTTP clients.
RESERVED_DESCRIPTORS = 64
# The listen backlog: at most this many connections wait to be accepted (uvicorn's default).
MAX_BACKLOG = 2048


def descriptor_limit() -> int | None:
    """The process's open-descriptor limit (soft), or None when there is none."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def backlog_for(limit: int | None) -> int:
    """The listen backlog: a quarter of the descriptors left after the reserve, at most 2048.

    Every connection the kernel holds for the server is accepted in one burst, before any can be
    closed, so the backlog must fit in the descriptors the connections leave free."""
    if limit is None:
        return MAX_BACKLOG
    return max(8, min(MAX_BACKLOG, (limit - RESERVED_DESCRIPTORS) // 4))


def connection_bound(limit: int | None) -> int | None:
    """How many connections the server holds at once: the limit less the reserve and the backlog."""
    if limit is None:
        return None
    return max(8, limit - RESERVED_DESCRIPTORS - backlog_for(limit))


class Door:
    """The connections one server holds, by remote address in the order they were accepted."""

    def __init__(self, *, per_client: int, bound: int | None) -> None:
        self.per_client = per_client
        self.bound = bound
        self.open: dict[BoundedHead, None] = {}  # accept order
        self.by_client: dict[str, dict[BoundedHead, None]] = {}
        self._counts = {"refused": 0, "closed": 0}
        self._logged_at = 0.0

    def admit(self, connection: BoundedHead) -> bool:
        """Take a new connection, closing a waiting one at the bound; False: refuse it."""
        if len(self.by_client.get(connection.peer, ())) >= self.per_client:
            self._note("refused")
            return False
        while self.bound is not None and len(self.open) >= self.bound:
            victim = self._victim()
            if victim is None:
                self._note("refused")
                return False
            self.leave(victim)
            victim.close_waiting()
            self._note("closed")
        self.by_client.setdefault(connection.peer, {})[connection] = None
        self.open[connection] = None
        return True

    def leave(self, connection: BoundedHead) -> None:
        if connection not in self.open:
            return  # refused, or already closed to make room
        del self.open[connection]
        theirs = self.by_client[connection.peer]
        del theirs[connection]
        if not theirs:
            del self.by_client[connection.peer]

    def _victim(self) -> BoundedHead | None:
        """The oldest waiting connection of the address holding the most connections."""
        for _size, theirs in sorted(
            ((len(theirs), theirs) for theirs in self.by_client.values()),
            key=lambda pair: pair[0],
            reverse=True,
        ):
            for connection in theirs:
                if connection.waiting:
                    return connection
        return None

    def _note(self, what: str) -> None:
        """Count a refusal or a closing; log the counts at most once a second."""
        self._counts[what] += 1
        now = time.monotonic()
        if now - self._logged_at >= 1.0:
            log.warning(
                "connections refused or closed at the bound",
                extra={
                    "per_client": self.per_client,
                    "bound": self.bound,
                    "open": len(self.open),
                    **self._counts,
                },
            )
            self._counts = {"refused": 0, "closed": 0}
            self._logged_at = now


class BoundedHead(HttpToolsProtocol):
    """uvicorn's httptools protocol, with deadlines from accept and the door's bounds."""

    max_head_bytes = 64 * 1024
    head_timeout_s = 10.0
    idle_timeout_s = 5.0
    door = Door(per_client=64, bound=None)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.peer = ""
        self._in_head = True
        self._head_bytes = 0
        self._heads = 0  # heads completed on this connection
        self._head_timer: asyncio.TimerHandle | None = None
        self._idle_timer: asyncio.TimerHandle | None = None

    @property
    def waiting(self) -> bool:
        """No request in progress: idle, or still sending a head."""
        return self._in_head and (self.cycle is None or self.cycle.response_complete)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.peer = self.client[0] if self.client else ""
        if not self.door.admit(self):
            transport.write(BUSY + CLOSING)
            transport.close()
            return
        # The first head is timed from the accept: sending nothing, or little, holds nothing long.
        self._idle_timer = self.loop.call_later(self.idle_timeout_s, self._close_idle)
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._refuse, TOO_SLOW)

    def data_received(self, data: bytes) -> None:
        if not self._in_head:
            super().data_received(data)
            return
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout_s, self._refuse, TOO_SLOW)
        heads = self._heads
        super().data_received(data)
        if self._in_head and self._heads == heads:  # no head was completed by this chunk
            self._head_bytes += len(data)
            if self._head_bytes > self.max_head_bytes:
                self._refuse(TOO_LARGE)

    def on_headers_complete(self) -> None:
        self._heads += 1
        self._in_head = False
        self._head_bytes = 0
        self._cancel_timers()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True  # what arrives next is the next request's head

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        self.door.leave(self)
        super().connection_lost(exc)

    def close_waiting(self) -> None:
        """Closed to make room: a head begun is answered 503, an idle connection just closed."""
        self._cancel_timers()
        if self.transport.is_closing():
            return
        if self._head_bytes:
            self.transport.write(BUSY + CLOSING)
        self.transport.close()

    def _close_idle(self) -> None:
        self._idle_timer = None
        if self.waiting and not self.transport.is_closing():
            self._cancel_timers()
            self.transport.close()

    def _cancel_timers(self) -> None:
        for timer in (self._head_timer, self._idle_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._idle_timer = None

    def _refuse(self, status_line: bytes) -> None:
        self._cancel_timers()
        if self._in_head and not self.transport.is_closing():
            self.transport.write(status_line + CLOSING)
            self.transport.close()


def bounded_protocol(
    max_head_bytes: int,
    head_timeout_s: float,
    *,
    idle_timeout_s: float = 5.0,
    per_client: int = 64,
    limit: int | None = None,
) -> type[BoundedHead]:
    """The protocol class with these bounds and a door of its own (uvicorn builds one instance
    per connection; they share the class's door). `limit` is the descriptor limit."""
    return type(
        "BoundedHeadProtocol",
        (BoundedHead,),
        {
            "max_head_bytes": max_head_bytes,
            "head_timeout_s": head_timeout_s,
            "idle_timeout_s": idle_timeout_s,
            "door": Door(per_client=per_client, bound=connection_bound(limit)),
        },
    )


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound and listening before anything says it serves (a busy port is
    an OSError here, not after a banner)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog_for(descriptor_limit()))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def uvicorn_config(app: Any, settings: Settings, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration `hindsight serve` runs with (benchmarks and tests use it too)."""
    limit = descriptor_limit()
    protocol = bounded_protocol(
        settings.max_header_bytes,
        settings.body_timeout_s,
        idle_timeout_s=settings.idle_timeout_s,
        per_client=settings.max_connections_per_client,
        limit=limit,
    )
    return uvicorn.Config(
        app,
        http=protocol,
        ws="none",
        backlog=backlog_for(limit),
        timeout_keep_alive=math.ceil(settings.idle_timeout_s),
        **options,
    )
