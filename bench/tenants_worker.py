"""One worker process of `bench/tenants.py`: the pushes of a plan through a bounded snapshot cache.

Run by `bench/tenants.py` as `python bench/tenants_worker.py URL PLAN --cache-mb N --core C
--store DIR`; prints one JSON object: each push's latency and whether it built a snapshot, the
cache's counts, the process's resident memory before the first push, after the last and at its
peak, and the time the cycle collector's full passes took inside each push. It imports only what
a worker holds, so its memory is the app's.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import pin  # noqa: E402
from continual.injections import Target  # noqa: E402
from continual.persons import Preference  # noqa: E402
from continual.recall.cache import MIB, SnapshotCache  # noqa: E402
from continual.surfaces import hand_context  # noqa: E402
from ghapp.db import make_engine  # noqa: E402

NOW = 1_780_000_000_000  # bench/surfaces.py's clock: the entries' confirmations are current


def resident_mb() -> dict[str, float]:
    """VmRSS and VmHWM (the peak) of this process, in MB."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) / 1024
    return found


class FullCollections:
    """The time the cycle collector spends in full (generation 2) passes, read per push."""

    def __init__(self) -> None:
        self.ms = 0.0
        self.count = 0
        self._started = 0.0
        gc.callbacks.append(self._note)

    def _note(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.ms += (time.perf_counter() - self._started) * 1000
            self.count += 1


def work(url: str, plan: Path, cache_mb: int, core: int, store: Path) -> dict[str, object]:
    pin(core)
    pushes = json.loads(plan.read_text())
    engine = make_engine(url)
    cache = SnapshotCache(max_bytes=cache_mb * MIB, max_age_ms=3_600_000)
    preference = Preference(lesson_cap=10)
    start = resident_mb()
    latencies: list[float] = []
    colds: list[bool] = []
    small_builds: list[float] = []
    collected: list[float] = []  # ms of full collections inside each push
    collections = FullCollections()
    for n, push in enumerate(pushes):
        target = Target(
            push["account_id"], push["login"], push["repository_id"], push["repository"]
        )
        builds, before = cache.builds, collections.ms
        started = time.perf_counter()
        hand_context(
            engine,
            store,
            target,
            session_id=f"agent-{core}-{n}",
            paths=push["paths"],
            identifiers=push["identifiers"],
            words=push["words"],
            preference=preference,
            person_id=None,
            now=NOW,
            snapshots=cache,
        )
        elapsed = (time.perf_counter() - started) * 1000
        latencies.append(elapsed)
        collected.append(collections.ms - before)
        colds.append(cache.builds > builds)
        if cache.builds > builds and push["small"]:
            small_builds.append(elapsed)
    end = resident_mb()
    engine.dispose()
    return {
        "latencies": latencies,
        "cold": colds,
        "collected": collected,
        "full_collections": collections.count,
        "full_collections_ms": collections.ms,
        "builds": cache.builds,
        "evictions": cache.evictions,
        "oversized": cache.oversized,
        "held_mb": cache.held_bytes / MIB,
        "small_build_ms": statistics.median(small_builds) if small_builds else 0.0,
        "rss_start_mb": start["VmRSS"],
        "rss_mb": end["VmRSS"],
        "hwm_mb": end["VmHWM"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url")
    parser.add_argument("plan", type=Path)
    parser.add_argument("--cache-mb", type=int, required=True)
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--store", type=Path, required=True)
    args = parser.parse_args()
    print(json.dumps(work(args.url, args.plan, args.cache_mb, args.core, args.store)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
