"""Ingress bar: durable acknowledgements/s and p99 of signed ~20 KB deliveries, against a bare
endpoint doing the same work (read, HMAC, parse, one insert with group commit; bench/same_work.py)
and, for information, against a body-only endpoint.

Run: `python bench/ingress.py [--seconds 60]`. The server runs pinned to one core, the load
generator on the other; both servers get the same load in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bar, http_post, percentile, pin, ratio_bar, run_load  # noqa: E402
from ghapp.db import make_engine  # noqa: E402
from ghapp.signature import sign  # noqa: E402

SECRET = "bench-secret"
FIXTURE = ROOT / "tests" / "fixtures" / "webhooks" / "pull_request" / "opened.payload.json"
TARGET_BYTES = 20_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_template() -> bytes:
    """A real pull_request payload padded to about 20 KB with a long PR body."""
    payload = json.loads(FIXTURE.read_text())
    base = len(json.dumps(payload).encode())
    payload["pull_request"]["body"] = "lorem ipsum " * ((TARGET_BYTES - base) // 12)
    payload["pull_request"]["number"] = 0
    return json.dumps(payload).encode()


def request_factory(template: bytes) -> object:
    """Requests with distinct bodies and delivery ids across the whole run (warm-up included)."""
    marker = b'"number": 0'
    head, _, tail = template.partition(marker)
    numbers = itertools.count(1)

    def request_for(_index: int) -> bytes:
        body = head + f'"number": {next(numbers)}'.encode() + tail
        headers = {
            "content-type": "application/json",
            "x-github-event": "pull_request",
            "x-github-delivery": str(uuid.uuid4()),
            "x-hub-signature-256": sign(SECRET.encode(), body),
        }
        return http_post("/webhooks", "127.0.0.1", headers, body)

    return request_for


def start_server(
    mode: str,
    port: int,
    database_url: str | None,
    *,
    secret: str = SECRET,
    nofile: int | None = None,
) -> subprocess.Popen[bytes]:
    """A server of bench/ingress_server.py on `port`, answering once it is up."""
    command = [sys.executable, "-m", "bench.ingress_server", mode, "--port", str(port)]
    if database_url:
        command += ["--database-url", database_url, "--secret", secret]
    if nofile:
        command += ["--nofile", str(nofile)]
    process = subprocess.Popen(command, cwd=ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the {mode} server did not start")


def measure(
    mode: str, seconds: float, connections: int, workdir: Path
) -> tuple[object, int | None]:
    port = free_port()
    database_url = f"sqlite:///{workdir / (mode + '.db')}" if mode != "bare" else None
    server = start_server(mode, port, database_url)
    try:
        request_for = request_factory(make_template())
        # Warm up, then measure.
        warm = asyncio.run(run_load("127.0.0.1", port, request_for, connections=4, seconds=1))  # type: ignore[arg-type]
        result = asyncio.run(
            run_load("127.0.0.1", port, request_for, connections=connections, seconds=seconds)  # type: ignore[arg-type]
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    stored = None
    if mode == "app":
        engine = make_engine(database_url)
        with engine.connect() as conn:
            stored = conn.execute(text("SELECT count(*) FROM deliveries")).scalar_one()
            synchronous = conn.execute(text("PRAGMA synchronous")).scalar_one()
        engine.dispose()
        acked = warm.statuses.get(202, 0) + result.statuses.get(202, 0)
        print(
            f"  stored deliveries: {stored}, acknowledged with 202: {acked} "
            f"(PRAGMA synchronous = {synchronous}, 2 is FULL)"
        )
        stored = int(stored == acked)
    return result, stored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    pin(1)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        print(
            f"ingress: {args.connections} connections, {args.seconds:g}s each, ~20 KB signed bodies"
        )
        bare, _ = measure("bare", args.seconds, args.connections, workdir)
        print(f"  body-only starlette : {bare.summary()}")  # type: ignore[attr-defined]
        same, _ = measure("same-work", args.seconds, args.connections, workdir)
        print(f"  same-work starlette : {same.summary()}")  # type: ignore[attr-defined]
        app, stored = measure("app", args.seconds, args.connections, workdir)
        print(f"  hindsight           : {app.summary()}")  # type: ignore[attr-defined]
    to_bare = app.rate / bare.rate if bare.rate else 0.0  # type: ignore[attr-defined]
    print(f"  hindsight / body-only: {to_bare:.2f} x (informative, not a bar)")
    p99 = percentile(app.latencies_ms, 99)  # type: ignore[attr-defined]
    same_p99 = percentile(same.latencies_ms, 99)  # type: ignore[attr-defined]
    lines = [
        # Acknowledgements a second and GitHub's wait for its 202, against the bare endpoint
        # doing the same durable work on the same core in the same run.
        ratio_bar("ingress-vs-same-work", app.rate, same.rate, "acks/s", ">=", 0.8),  # type: ignore[attr-defined]
        ratio_bar("ingress-p99-vs-same-work", p99, same_p99, "ms p99", "<=", 1.5),
        bar("ingress-non-2xx", app.non_2xx, "responses", "==", 0),  # type: ignore[attr-defined]
        bar("ingress-durable", stored or 0, "(1 when stored == acknowledged)", "==", 1),
    ]
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
