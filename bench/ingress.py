"""Ingress bar: durable acknowledgements/s and p99 of signed ~20 KB deliveries, against a bare
endpoint doing the same work (read, HMAC, parse, one insert with group commit; bench/same_work.py)
and, for information, against a body-only endpoint.

Run: `python bench/ingress.py [--seconds 60] [--rounds 3]`. The server runs pinned to one core,
the load generator on the other. The same-work endpoint and the app take turns, `--rounds` times,
each for `--seconds / --rounds` and each going first every other round, so both see the same
moments of a noisy machine; the bars are the median of the rounds' ratios. Each turn starts on a
fresh database and removes it once measured. Each server's CPU time a delivery is printed beside
its rate.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402
    LoadResult,
    bar,
    http_post,
    percentile,
    pin,
    ratio_bar,
    run_load,
)
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


@dataclass(frozen=True)
class Measured:
    load: LoadResult
    cpu_us: float  # the server's CPU time (all its threads) a 2xx answer
    durable: bool | None = None  # the app: every delivery acknowledged is stored


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process, all threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(mode: str, seconds: float, connections: int, workdir: Path, label: str) -> Measured:
    port = free_port()
    database_url = f"sqlite:///{workdir / (mode + label + '.db')}" if mode != "bare" else None
    server = start_server(mode, port, database_url)
    try:
        request_for = request_factory(make_template())
        # Warm up, then measure.
        warm = asyncio.run(run_load("127.0.0.1", port, request_for, connections=4, seconds=1))  # type: ignore[arg-type]
        before = cpu_seconds(server.pid)
        result = asyncio.run(
            run_load("127.0.0.1", port, request_for, connections=connections, seconds=seconds)  # type: ignore[arg-type]
        )
        cpu = cpu_seconds(server.pid) - before
    finally:
        server.terminate()
        server.wait(timeout=30)
    cpu_us = cpu / max(1, result.ok) * 1e6
    if mode != "app":
        if database_url:
            _remove_database(database_url)
        return Measured(result, cpu_us)
    assert database_url is not None
    engine = make_engine(database_url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT count(*) FROM deliveries")).scalar_one()
        synchronous = conn.execute(text("PRAGMA synchronous")).scalar_one()
    engine.dispose()
    _remove_database(database_url)
    acked = warm.statuses.get(202, 0) + result.statuses.get(202, 0)
    print(
        f"    stored deliveries: {stored}, acknowledged with 202: {acked} "
        f"(PRAGMA synchronous = {synchronous}, 2 is FULL)"
    )
    return Measured(result, cpu_us, stored == acked)


def _remove_database(database_url: str) -> None:
    """Remove a turn's SQLite files (a gigabyte or more a turn at full length), so that no later
    turn shares the disk and the page cache with them."""
    path = Path(database_url.removeprefix("sqlite:///"))
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def line(name: str, measured: Measured) -> str:
    return f"  {name:<20}: {measured.load.summary()}, {measured.cpu_us:,.0f} µs CPU a delivery"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    pin(1)
    turn = args.seconds / args.rounds
    rates: list[float] = []
    tails: list[float] = []
    apps: list[Measured] = []
    sames: list[Measured] = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        print(
            f"ingress: {args.connections} connections, ~20 KB signed bodies; the same-work "
            f"endpoint and the app take {args.rounds} turns of {turn:g}s each"
        )
        bare = measure("bare", turn, args.connections, workdir, "")
        print(line("body-only starlette", bare))
        for round_ in range(args.rounds):
            # Each goes first every other round, so neither always follows the other.
            measured: dict[str, Measured] = {}
            for mode in ("same-work", "app") if round_ % 2 == 0 else ("app", "same-work"):
                measured[mode] = measure(mode, turn, args.connections, workdir, str(round_))
                name = "same-work" if mode == "same-work" else "hindsight"
                print(line(f"{name}, turn {round_ + 1}", measured[mode]))
            same, app = measured["same-work"], measured["app"]
            sames.append(same)
            apps.append(app)
            rates.append(app.load.rate / same.load.rate if same.load.rate else 0.0)
            same_p99 = percentile(same.load.latencies_ms, 99)
            tails.append(percentile(app.load.latencies_ms, 99) / same_p99 if same_p99 else 0.0)
    middle = rates.index(statistics.median_low(rates))
    app, same = apps[middle], sames[middle]
    print(f"  turns' ratios: {', '.join(f'{r:.2f}' for r in rates)}; the median's turn is shown")
    print(
        f"  CPU a delivery: hindsight {statistics.median(a.cpu_us for a in apps):,.0f} µs, "
        f"same-work {statistics.median(s.cpu_us for s in sames):,.0f} µs (medians)"
    )
    print(
        f"  hindsight / body-only: {app.load.rate / bare.load.rate:.2f} x (informative, not a bar)"
    )
    p99 = percentile(app.load.latencies_ms, 99)
    same_p99 = percentile(same.load.latencies_ms, 99)
    p99_ratio = statistics.median(tails)
    lines = [
        # Acknowledgements a second and GitHub's wait for its 202, against the bare endpoint
        # doing the same durable work on the same core in the same turns.
        ratio_bar("ingress-vs-same-work", app.load.rate, same.load.rate, "acks/s", ">=", 0.8),
        bar(
            "ingress-p99-vs-same-work",
            round(p99_ratio, 3),
            f"x [{p99:.0f} ms p99 against {same_p99:.0f} in the median's turn]",
            "<=",
            1.5,
        ),
        bar("ingress-non-2xx", sum(a.load.non_2xx for a in apps), "responses", "==", 0),
        bar(
            "ingress-durable",
            int(all(a.durable for a in apps)),
            "(1 when stored == acknowledged)",
            "==",
            1,
        ),
    ]
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
