"""Shared benchmark helpers: bar lines, CPU pinning, percentiles, and a keep-alive HTTP load loop."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine


def shown(value: float) -> str:
    """A figure as printed in a bar: three decimals at most, no trailing zeros, thousands apart."""
    if isinstance(value, float) and abs(value) < 10:
        return f"{value:.3f}".rstrip("0").rstrip(".")
    return f"{round(value):,}"


def bar(name: str, value: float, unit: str, op: str, target: float) -> str:
    """One line per bar, the same form in every benchmark."""
    ok = {"<=": value <= target, ">=": value >= target, "==": value == target}[op]
    figure = f"{value:.3f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)
    return f"bar {name}: {figure} {unit} (target {op} {target:g}) {'PASS' if ok else 'FAIL'}"


def ratio_bar(name: str, value: float, baseline: float, unit: str, op: str, target: float) -> str:
    """A bar on `value / baseline`, both measured in the same run; the absolute figures beside it."""
    ratio = round(value / baseline, 3) if baseline else float("inf")
    return bar(name, ratio, f"x [{shown(value)} {unit} against {shown(baseline)}]", op, target)


def pin(cpu: int) -> None:
    """Keep this process on one core, where the machine allows it."""
    if hasattr(os, "sched_setaffinity") and cpu < (os.cpu_count() or 1):
        os.sched_setaffinity(0, {cpu})


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@dataclass
class LoadResult:
    sent: int = 0
    ok: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0

    @property
    def non_2xx(self) -> int:
        return sum(count for status, count in self.statuses.items() if not 200 <= status < 300)

    def summary(self) -> str:
        return (
            f"{self.ok} ok in {self.seconds:.1f}s = {self.rate:,.0f}/s, "
            f"p50 {percentile(self.latencies_ms, 50):.1f} ms, "
            f"p99 {percentile(self.latencies_ms, 99):.1f} ms, "
            f"non-2xx {self.non_2xx}, mean {statistics.fmean(self.latencies_ms or [0]):.1f} ms"
        )


async def _connection(
    host: str,
    port: int,
    request_for: Callable[[int], bytes],
    counter: list[int],
    deadline: float,
    result: LoadResult,
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < deadline:
            index = counter[0]
            counter[0] += 1
            request = request_for(index)
            started = time.perf_counter()
            writer.write(request)
            status_line = await reader.readline()
            status = int(status_line.split()[1])
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if length:
                await reader.readexactly(length)
            result.latencies_ms.append((time.perf_counter() - started) * 1000)
            result.sent += 1
            result.statuses[status] = result.statuses.get(status, 0) + 1
            if 200 <= status < 300:
                result.ok += 1
    finally:
        writer.close()


async def run_load(
    host: str,
    port: int,
    request_for: Callable[[int], bytes],
    *,
    connections: int,
    seconds: float,
) -> LoadResult:
    """Send requests over `connections` keep-alive connections for `seconds`."""
    result = LoadResult()
    counter = [0]
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(
        *(
            _connection(host, port, request_for, counter, deadline, result)
            for _ in range(connections)
        )
    )
    result.seconds = time.perf_counter() - started
    return result


def http_post(path: str, host: str, headers: dict[str, str], body: bytes) -> bytes:
    lines = [f"POST {path} HTTP/1.1", f"host: {host}", f"content-length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def postgres_engine(url: str, prefix: str = "bench") -> tuple[Engine, str, str] | None:
    """An engine on a fresh schema of the PostgreSQL at ``url`` (its scoped URL and the schema's
    name beside it, for worker processes and the clean-up), or None, said, when it does not
    answer."""
    from sqlalchemy import create_engine, text

    from ghapp.db import make_engine

    schema = f"{prefix}_{uuid.uuid4().hex[:8]}"
    try:
        admin = create_engine(url)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        admin.dispose()
    except Exception as exc:
        print(f"  postgresql: not reachable ({type(exc).__name__}); skipped")
        return None
    scoped = f"{url}?options=-csearch_path%3D{schema}"
    return make_engine(scoped), scoped, schema
