"""The door under abuse: slow and idle connections while `/healthz` and signed deliveries answer.

Run: `python bench/door.py [--seconds 8]`. The app runs as `hindsight serve` serves it, pinned to one
core. Three attacks, each measured against the same probes with no attack in the same run:

- 200 slow-body connections (one body byte every half second, reconnecting when cut), at the
  process's own descriptor limit: `/healthz` and signed deliveries must all answer 2xx.
- As many slow-body connections as the process has descriptors (its limit set to 256): `/healthz`
  must answer, and every signed delivery must be answered quickly (202, or 503 with Retry-After
  when every slot is held) — never left hanging, never a 500.
- 300 connections that send nothing (from one address, reconnecting as soon as they are closed)
  and 300 that send their head one line a second (from ten addresses), at a descriptor limit of
  256: `/healthz` and signed deliveries must answer 2xx (bar `door-idle-connections`).

The probes come from 127.0.0.1, the attackers from other loopback addresses (127.0.0.2 and up; slow
bodies from 127.0.1.1–10), so the per-client connection bound applies to the attackers and not to
the probes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bar, percentile, pin  # noqa: E402
from bench.ingress import free_port, start_server  # noqa: E402
from ghapp.signature import sign  # noqa: E402

SECRET = "bench-webhook-secret"
FIXTURE = ROOT / "tests" / "fixtures" / "webhooks" / "pull_request" / "opened.payload.json"
PROBE_TIMEOUT_S = 10.0
SMALL_LIMIT = 256
IDLE_CONNECTIONS = 300


@dataclass
class Probes:
    """What the probes saw: status per request (0: no answer in time) and latencies."""

    statuses: list[int] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)

    def ratio(self, ok: set[int]) -> float:
        return sum(s in ok for s in self.statuses) / len(self.statuses) if self.statuses else 0.0

    def summary(self) -> str:
        counts = {s: self.statuses.count(s) for s in sorted(set(self.statuses))}
        return (
            f"{len(self.statuses)} sent, statuses {counts}, "
            f"p50 {percentile(self.latencies_ms, 50):.1f} ms, "
            f"p99 {percentile(self.latencies_ms, 99):.1f} ms"
        )


async def request(port: int, raw: bytes) -> tuple[int, float]:
    """One request on a new connection; its status (0 when none came) and latency."""
    started = time.perf_counter()
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                writer.write(raw)
                line = await reader.readline()
            finally:
                writer.close()
        status = int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
    except (TimeoutError, OSError):
        status = 0
    return status, (time.perf_counter() - started) * 1000


def healthz() -> bytes:
    return b"GET /healthz HTTP/1.1\r\nhost: bench\r\nconnection: close\r\n\r\n"


def delivery(template: dict[str, object]) -> bytes:
    payload = {**template, "zen": str(uuid.uuid4())}
    body = json.dumps(payload).encode()
    head = (
        "POST /webhooks HTTP/1.1\r\nhost: bench\r\nconnection: close\r\n"
        "content-type: application/json\r\nx-github-event: pull_request\r\n"
        f"x-github-delivery: {uuid.uuid4()}\r\n"
        f"x-hub-signature-256: {sign(SECRET.encode(), body)}\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def probe(port: int, seconds: float) -> tuple[Probes, Probes]:
    """`/healthz` every 50 ms and a signed delivery every 100 ms, for `seconds`."""
    template = json.loads(FIXTURE.read_text())
    health, deliveries = Probes(), Probes()

    async def every(interval: float, make: object, into: Probes) -> None:
        deadline = time.monotonic() + seconds
        pending = []
        while time.monotonic() < deadline:
            pending.append(asyncio.create_task(request(port, make())))  # type: ignore[operator]
            await asyncio.sleep(interval)
        for status, latency in await asyncio.gather(*pending):
            into.statuses.append(status)
            into.latencies_ms.append(latency)

    await asyncio.gather(
        every(0.05, healthz, health), every(0.1, lambda: delivery(template), deliveries)
    )
    return health, deliveries


async def slow_body(port: int, stop: asyncio.Event, opened: list[int], source: str) -> None:
    """One attacker: a body byte every half second; reconnects whenever the server cuts it."""
    head = (
        b"POST /webhooks HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\n"
        b"content-length: 100000\r\n\r\n"
    )
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(source, 0)
            )
        except OSError:
            await asyncio.sleep(0.05)
            continue
        opened[0] += 1
        try:
            writer.write(head)
            while not stop.is_set() and not reader.at_eof():
                writer.write(b" ")
                await writer.drain()
                try:
                    async with asyncio.timeout(0.5):
                        if await reader.read(65536) == b"":
                            break
                except TimeoutError:
                    pass
        except OSError:
            pass
        finally:
            writer.close()
        await asyncio.sleep(0.5)  # cut off: come back at the attack's own pace


async def held(
    port: int, stop: asyncio.Event, opened: list[int], source: str, *, head_lines: bool
) -> None:
    """One attacker from `source`: a connection that sends nothing (or one head line a second, never
    the end of the head); it reconnects as soon as the server closes it."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(source, 0)
            )
        except OSError:
            await asyncio.sleep(0.05)
            continue
        opened[0] += 1
        try:
            if head_lines:
                writer.write(b"GET /healthz HTTP/1.1\r\nhost: bench\r\n")
            while not stop.is_set():
                try:
                    async with asyncio.timeout(1.0):
                        if await reader.read(65536) == b"":
                            break
                except TimeoutError:
                    if head_lines:
                        writer.write(b"x-slow: one line a second\r\n")
        except OSError:
            pass
        finally:
            writer.close()
        await asyncio.sleep(0.05)


IDLE_SOURCE = "127.0.0.2"
SLOW_HEAD_SOURCES = [f"127.0.0.{n}" for n in range(3, 13)]
# Slow bodies come from ten addresses, each under the per-address connection bound.
SLOW_BODY_SOURCES = [f"127.0.1.{n}" for n in range(1, 11)]


async def attack(port: int, connections: int, seconds: float, opened: Any) -> None:
    """`connections` slow bodies; 0: the idle and slow-head attack (IDLE_CONNECTIONS of each)."""
    stop = asyncio.Event()
    made = [0]
    if connections:
        attackers = [
            asyncio.create_task(slow_body(port, stop, made, SLOW_BODY_SOURCES[n % 10]))
            for n in range(connections)
        ]
    else:
        attackers = [
            asyncio.create_task(held(port, stop, made, IDLE_SOURCE, head_lines=False))
            for _ in range(IDLE_CONNECTIONS)
        ] + [
            asyncio.create_task(held(port, stop, made, SLOW_HEAD_SOURCES[n % 10], head_lines=True))
            for n in range(IDLE_CONNECTIONS)
        ]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*attackers, return_exceptions=True)
    opened.value = made[0]


def attacker(port: int, connections: int, seconds: float, opened: Any) -> None:
    """The attack, in a process of its own so the probes are not starved by it."""
    asyncio.run(attack(port, connections, seconds, opened))


def under_attack(port: int, connections: int, seconds: float) -> tuple[Probes, Probes, int]:
    opened = multiprocessing.Value("i", 0)
    process = multiprocessing.Process(
        target=attacker, args=(port, connections, seconds + 4, opened), daemon=True
    )
    process.start()
    time.sleep(2)  # let the attack take hold
    health, deliveries = asyncio.run(probe(port, seconds))
    process.join(timeout=60)
    return health, deliveries, int(opened.value)


def scenario(
    name: str, connections: int, nofile: int | None, seconds: float, workdir: Path
) -> tuple[Probes, Probes, Probes, Probes]:
    port = free_port()
    database_url = f"sqlite:///{workdir / (name + '.db')}"
    server = start_server("app", port, database_url, secret=SECRET, nofile=nofile)
    try:
        idle = asyncio.run(probe(port, seconds))
        health, deliveries, opened = under_attack(port, connections, seconds)
    finally:
        server.terminate()
        server.wait(timeout=30)
    limit = f"descriptor limit {nofile}" if nofile else "the default descriptor limit"
    what = (
        f"{connections} slow-body connections"
        if connections
        else f"{IDLE_CONNECTIONS} idle and {IDLE_CONNECTIONS} slow-head connections"
    )
    print(f"{name}: {what} at {limit} ({opened} connections made)")
    print(f"  /healthz idle        : {idle[0].summary()}")
    print(f"  /healthz attacked    : {health.summary()}")
    print(f"  deliveries idle      : {idle[1].summary()}")
    print(f"  deliveries attacked  : {deliveries.summary()}")
    return idle[0], health, idle[1], deliveries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--idle-only", action="store_true", help="only the idle-connection attack")
    args = parser.parse_args()
    pin(1)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        if not args.idle_only:
            lines = slow_bodies(args.seconds, workdir)
        calm_h, held_h, _, held_d = scenario("door-idle", 0, SMALL_LIMIT, args.seconds, workdir)
    print(
        f"  idle: /healthz p99 {percentile(held_h.latencies_ms, 99):.1f} ms attacked, "
        f"{percentile(calm_h.latencies_ms, 99):.1f} ms with no attack; deliveries p99 "
        f"{percentile(held_d.latencies_ms, 99):.1f} ms attacked"
    )
    answered_2xx = min(held_h.ratio({200}), held_d.ratio({202}))
    lines.append(bar("door-idle-connections", round(answered_2xx, 3), "ratio 2xx", ">=", 0.99))
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


def slow_bodies(seconds: float, workdir: Path) -> list[str]:
    """The two slow-body attacks and their bars."""
    _, health, _, deliveries = scenario("door-200", 200, None, seconds, workdir)
    idle_h, flood_h, idle_d, flood_d = scenario(
        "door-flood", SMALL_LIMIT + 64, SMALL_LIMIT, seconds, workdir
    )
    answered = {202, 503}
    slower = percentile(flood_h.latencies_ms, 99) / max(percentile(idle_h.latencies_ms, 99), 0.1)
    print(
        f"  flood: /healthz p99 {slower:.1f} x idle; deliveries accepted "
        f"{flood_d.ratio({202}):.2f} (idle {idle_d.ratio({202}):.2f}), the rest 503 Retry-After"
    )
    return [
        bar("door-200-healthz-ok", round(health.ratio({200}), 3), "ratio", ">=", 0.99),
        bar("door-200-deliveries-ok", round(deliveries.ratio({202}), 3), "ratio", ">=", 0.99),
        bar("door-flood-healthz-ok", round(flood_h.ratio({200}), 3), "ratio", ">=", 0.99),
        bar(
            "door-flood-deliveries-answered", round(flood_d.ratio(answered), 3), "ratio", ">=", 0.99
        ),
        bar(
            "door-flood-deliveries-500",
            sum(s >= 500 and s != 503 for s in flood_d.statuses),
            "responses",
            "==",
            0,
        ),
    ]


if __name__ == "__main__":
    sys.exit(main())
