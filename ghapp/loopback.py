"""Serving an ASGI app on a loopback port from a thread (the demo, tests and benchmarks use it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

START_TIMEOUT_S = 30.0


@contextmanager
def serve_in_thread(app: Any, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Run `app` (lifespan on) with uvicorn in a daemon thread; yield its base URL; stop it."""
    config = uvicorn.Config(
        app, host=host, port=port, lifespan="on", log_level="warning", log_config=None
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="hindsight-web", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the web server did not start; see the log above")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
