"""How the app is served: uvicorn on the fast stack, with the request head bounded in size and time.

uvicorn bounds the head only on its h11 stack (`h11_max_incomplete_event_size`); on httptools a
client may send headers without end, or one byte a minute. `bounded_protocol` gives the httptools
protocol both bounds: a head over `max_head_bytes` is answered 431, a head not whole within
`head_timeout_s` is answered 408, and the connection is closed either way.
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ghapp.settings import Settings

TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
TOO_SLOW = b"HTTP/1.1 408 Request Timeout\r\n"
CLOSING = b"content-length: 0\r\nconnection: close\r\n\r\n"


class BoundedHead(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a request head that is too large or too slow."""

    max_head_bytes = 64 * 1024
    head_timeout_s = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True
        self._head_bytes = 0
        self._heads = 0  # heads completed on this connection
        self._head_timer: asyncio.TimerHandle | None = None

    def data_received(self, data: bytes) -> None:
        if not self._in_head:
            super().data_received(data)
            return
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
        self._cancel_timer()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True  # what arrives next is the next request's head

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        super().connection_lost(exc)

    def _cancel_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _refuse(self, status_line: bytes) -> None:
        self._cancel_timer()
        if self._in_head and not self.transport.is_closing():
            self.transport.write(status_line + CLOSING)
            self.transport.close()


def bounded_protocol(max_head_bytes: int, head_timeout_s: float) -> type[BoundedHead]:
    """The protocol class with these bounds (uvicorn builds one instance per connection)."""
    return type(
        "BoundedHeadProtocol",
        (BoundedHead,),
        {"max_head_bytes": max_head_bytes, "head_timeout_s": head_timeout_s},
    )


def uvicorn_config(app: Any, settings: Settings, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration `hindsight serve` runs with (benchmarks and tests use it too)."""
    return uvicorn.Config(
        app,
        http=bounded_protocol(settings.max_header_bytes, settings.body_timeout_s),
        ws="none",
        **options,
    )
