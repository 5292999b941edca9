"""Serving an ASGI app with uvicorn on a loopback port from a daemon thread.

The GitHub simulator, the demo, tests and benchmarks all serve through `LoopbackServer`.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

log = logging.getLogger(__name__)

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0


def bind(host: str, port: int) -> tuple[socket.socket, str]:
    """A listening socket on ``host:port`` (0: ephemeral) and the base URL it serves."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this; without it small responses wait on delayed ACKs.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    return sock, f"http://{host}:{sock.getsockname()[1]}"


class LoopbackServer:
    """One uvicorn server on an already-bound socket, run in a daemon thread.

    `lifespan` runs the app's startup and shutdown (the Hindsight app needs it; the simulator does
    not). `plain` serves with the pure-Python asyncio + h11 stack instead of uvloop + httptools.
    """

    def __init__(
        self,
        app: Any,
        sock: socket.socket,
        name: str,
        *,
        lifespan: bool = False,
        plain: bool = True,
    ) -> None:
        stack: dict[str, Any] = {"loop": "asyncio", "http": "h11"} if plain else {}
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="on" if lifespan else "off",
            ws="none",
            **stack,
        )
        self._server = uvicorn.Server(config)
        self._socket = sock
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=name, daemon=True
        )

    def start(self) -> None:
        """Start serving; returns once uvicorn accepts connections (bounded wait)."""
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self._thread.name} did not start; see the log above")
            time.sleep(0.005)

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(STOP_TIMEOUT_S)
        self._socket.close()


@contextmanager
def serve_in_thread(app: Any, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Run the Hindsight app (lifespan on, the fast stack) on loopback; yield its base URL; stop it."""
    sock, url = bind(host, port)
    server = LoopbackServer(app, sock, "hindsight-web", lifespan=True, plain=False)
    server.start()
    try:
        yield url
    finally:
        server.stop()
