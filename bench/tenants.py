"""Many tenants in one worker: context pushes over 2,005 accounts through a bounded snapshot cache.

Run: `python bench/tenants.py [--quick] [--cache-mb 512] [--pushes 6000] [--postgres URL]`.
2,000 accounts of 200 entries and 5 of 20,000 are written with bulk inserts (the cards of
`bench/recall.py`, minted again per account), first to SQLite, then to PostgreSQL. Pushes go to
accounts drawn from a Zipf distribution (the accounts ranked in a seeded random order), each a
`continual.surfaces.hand_context` call with its durable injection record, in a worker process
of its own that holds nothing but the app: one on SQLite, two side by side on PostgreSQL. Each
worker reports every push's latency (cold builds included), its resident memory and its cache's
evictions. Bars: `tenants-rss-mb` (peak resident ≤ the cache bound + 150 MB) and
`tenants-push-p99` (p99 ≤ 20 × the same run's warm p50), for PostgreSQL with `-postgresql`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine, text  # noqa: E402

from bench.common import bar, percentile, postgres_engine, ratio_bar  # noqa: E402
from bench.recall import build_workload  # noqa: E402
from bench.surfaces import Rows, insert_rows, rows_of  # noqa: E402
from continual.recall import Card, number_account  # noqa: E402
from continual.tables import Account, Repository  # noqa: E402
from ghapp.db import make_engine, migrate  # noqa: E402

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
RSS_HEADROOM_MB = 150
P99_TARGET = 20
ROWS_AT_ONCE = 20_000
SUFFIXES = ("api", "web", "cli", "infra", "docs")


@dataclass(frozen=True)
class Tenant:
    account_id: int
    login: str
    cards: list[Card]

    def repository_ids(self) -> dict[str, int]:
        return {f"{self.login}/{s}": self.account_id * 10 + n for n, s in enumerate(SUFFIXES)}


def tenants_of(small: int, small_entries: int, large: int, large_entries: int) -> list[Tenant]:
    """``large`` accounts of ``large_entries`` cards, then ``small`` of ``small_entries``: the
    pool's cards under fresh ids and the account's own repositories."""
    pool = build_workload(max(large_entries, small_entries), 1).cards
    pool = list({(card.repository, card.key): card for card in pool}.values())
    made = []
    for n in range(large + small):
        account_id, size = n + 1, large_entries if n < large else small_entries
        login = f"org{account_id}"
        start = (n * size) % len(pool)
        chosen = (pool[(start + k) % len(pool)] for k in range(min(size, len(pool))))
        made.append(Tenant(account_id, login, [_minted(c, account_id, login) for c in chosen]))
    return made


def _minted(card: Card, account_id: int, login: str) -> Card:
    return Card(
        id=f"{account_id:05d}{card.id}",
        key=card.key,
        revision=card.revision,
        repository=f"{login}/{card.repository.partition('/')[2]}",
        scope=card.scope,
        lens=card.lens,
        title=card.title,
        text=card.text,
        files=card.files,
        identifiers=card.identifiers,
        keyword_groups=card.keyword_groups,
        folders=card.folders,
    )


def populate(engine: Engine, tenants: list[Tenant]) -> int:
    """Every tenant's rows, ROWS_AT_ONCE entries a transaction, then their link numbers."""
    with engine.begin() as conn:
        conn.execute(
            Account.__table__.insert(),
            [
                {"id": t.account_id, "login": t.login, "type": "Organization", "created_ms": 0}
                for t in tenants
            ],
        )
        conn.execute(
            Repository.__table__.insert(),
            [
                {"id": rid, "account_id": t.account_id, "full_name": name}
                for t in tenants
                for name, rid in t.repository_ids().items()
            ],
        )
    rows: Rows | None = None
    written = 0
    for tenant in tenants:
        for start in range(0, len(tenant.cards), ROWS_AT_ONCE):
            chunk = tenant.cards[start : start + ROWS_AT_ONCE]
            rows = rows_of(chunk, tenant.account_id, tenant.repository_ids(), rows)
            written += len(chunk)
            if len(rows["entries"]) >= ROWS_AT_ONCE:
                insert_rows(engine, rows)
                rows = None
    if rows is not None:
        insert_rows(engine, rows)
    with engine.begin() as conn:
        for tenant in tenants:
            number_account(conn, tenant.account_id)
    if engine.dialect.name == "postgresql":
        # The statistics autovacuum gathers after a bulk load (a server may run with it off):
        # without them the planner reads an account's entries through the live-key index, all
        # 100,000 and more of them, and a cold build takes 35 ms more.
        with engine.begin() as conn:
            conn.execute(text("ANALYZE accounts, repositories, suggestions, entries, receipts"))
            conn.execute(text("ANALYZE link_names"))
    return written


def plan(tenants: list[Tenant], pushes: int, skew: float, seed: int) -> list[dict[str, object]]:
    """``pushes`` context pushes: the account by Zipf rank, then one of its cards' file, name
    and title words as the tool call's paths, identifiers and words."""
    rng = random.Random(seed)
    ranked = tenants[:]
    rng.shuffle(ranked)
    weights = [1 / (rank**skew) for rank in range(1, len(ranked) + 1)]
    made = []
    for tenant in rng.choices(ranked, weights=weights, k=pushes):
        card = rng.choice(tenant.cards)
        made.append(
            {
                "account_id": tenant.account_id,
                "login": tenant.login,
                "repository": card.repository,
                "repository_id": tenant.repository_ids()[card.repository],
                "paths": list(card.files[:1]),
                "identifiers": list(card.identifiers[:1]),
                "words": card.title.split()[:2],
                "small": len(tenant.cards) < 1_000,
            }
        )
    return made


def run_workers(
    url: str, pushes: list[dict[str, object]], workers: int, cache_mb: int, tmp: Path
) -> list[dict[str, object]]:
    """``workers`` processes side by side, each making every ``workers``-th push."""
    started = []
    for n in range(workers):
        plan_file = tmp / f"plan-{n}.json"
        plan_file.write_text(json.dumps(pushes[n::workers]))
        command = [sys.executable, str(ROOT / "bench/tenants_worker.py"), url, str(plan_file)]
        command += ["--cache-mb", str(cache_mb), "--core", str(n), "--store", str(tmp / f"s{n}")]
        started.append(subprocess.Popen(command, stdout=subprocess.PIPE, text=True))
    results = []
    for process in started:
        out, _ = process.communicate()
        if process.returncode:
            raise SystemExit(f"a worker failed (exit {process.returncode})")
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def report(name: str, results: list[dict[str, object]], cache_mb: int, suffix: str) -> list[str]:
    latencies = [x for r in results for x in r["latencies"]]  # type: ignore[attr-defined]
    colds = [c for r in results for c in r["cold"]]  # type: ignore[attr-defined]
    warm = [x for x, cold in zip(latencies, colds, strict=True) if not cold]
    cold = [x for x, c in zip(latencies, colds, strict=True) if c]
    p50, p95, p99 = (percentile(latencies, q) for q in (50, 95, 99))
    warm_p50 = percentile(warm, 50)
    peak = max(float(r["hwm_mb"]) for r in results)  # type: ignore[arg-type]
    for n, r in enumerate(results):
        print(
            f"    worker {n}: {len(r['latencies'])} pushes, {r['builds']} builds "  # type: ignore[arg-type]
            f"({r['small_build_ms']:.1f} ms, the median cold push of an account under 1,000 entries), "
            f"{r['evictions']} evictions, {r['oversized']} too large to keep; resident "
            f"{r['rss_start_mb']:.0f} MB before the first push, {r['rss_mb']:.0f} MB after, "
            f"peak {r['hwm_mb']:.0f} MB; cache holds {r['held_mb']:.0f} MB (estimated) "
            f"of {cache_mb} MB"
        )
    print(
        f"  {name}: push p50 {p50:.2f} ms, p95 {p95:.2f} ms, p99 {p99:.2f} ms, max "
        f"{max(latencies):.0f} ms; warm p50 {warm_p50:.2f} ms ({len(warm)} pushes), cold "
        f"p50 {percentile(cold, 50):.2f} ms, p99 {percentile(cold, 99):.1f} ms ({len(cold)} pushes)"
    )
    print(f"  {name}: {tail(results)}")
    return [
        bar(f"tenants{suffix}-rss-mb", round(peak), "MB peak", "<=", cache_mb + RSS_HEADROOM_MB),
        ratio_bar(f"tenants{suffix}-push-p99", p99, warm_p50, "ms p99", "<=", P99_TARGET),
    ]


def tail(results: list[dict[str, object]]) -> str:
    """What the slowest 1 % of pushes were: cold builds or warm pushes, and how many held a full
    pass of the cycle collector (every object the process tracks walked)."""
    pushes: list[tuple[float, bool, float]] = []
    count, spent = 0, 0.0
    for r in results:
        latencies = cast(list[float], r["latencies"])
        colds = cast(list[bool], r["cold"])
        collected = cast(list[float], r["collected"])
        pushes += zip(latencies, colds, collected, strict=True)
        count += cast(int, r["full_collections"])
        spent += cast(float, r["full_collections_ms"])
    slowest = sorted(pushes, reverse=True)[: max(1, len(pushes) // 100)]
    held = [ms for _, _, ms in slowest if ms > 0]
    return (
        f"the slowest {len(slowest)} pushes ({slowest[-1][0]:.0f}–{slowest[0][0]:.0f} ms): "
        f"{sum(1 for _, cold, _ in slowest if cold)} cold, {len(held)} held a full collection "
        f"({sum(held):,.0f} ms of their {sum(x for x, _, _ in slowest):,.0f}); "
        f"{count} full collections in all, {spent:,.0f} ms"
    )


def measure(
    engine: Engine,
    url: str,
    tenants: list[Tenant],
    args: argparse.Namespace,
    tmp: Path,
    workers: int,
) -> list[dict[str, object]]:
    migrate(engine)
    started = time.perf_counter()
    written = populate(engine, tenants)
    print(
        f"  {engine.dialect.name}: {written:,} entries written in {time.perf_counter() - started:.0f} s"
    )
    pushes = plan(tenants, args.pushes, args.skew, seed=11)
    return run_workers(url, pushes, workers, args.cache_mb, tmp)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="400 × 200 + 2 × 20,000, 3,000 pushes")
    parser.add_argument("--accounts", type=int, default=2_000)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--large", type=int, default=5)
    parser.add_argument("--large-entries", type=int, default=20_000)
    parser.add_argument("--pushes", type=int, default=6_000)
    parser.add_argument("--skew", type=float, default=1.1, help="the Zipf exponent")
    parser.add_argument("--cache-mb", type=int, default=512)
    parser.add_argument(
        "--postgres", default=os.environ.get("HINDSIGHT_TEST_DATABASE_URL", DEFAULT_POSTGRES)
    )
    args = parser.parse_args()
    if args.quick:
        args.accounts, args.large, args.pushes = 400, 2, 3_000
        args.cache_mb = min(args.cache_mb, 192)
    tenants = tenants_of(args.accounts, args.entries, args.large, args.large_entries)
    total = sum(len(t.cards) for t in tenants)
    print(
        f"tenants: {args.accounts:,} accounts × {args.entries} entries + {args.large} × "
        f"{args.large_entries:,} ({total:,} entries); {args.pushes:,} pushes, Zipf s={args.skew} "
        f"over {len(tenants):,} accounts; snapshot cache bound {args.cache_mb} MB a process"
    )
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'store.db'}"
        engine = make_engine(url)
        results = measure(engine, url, tenants, args, Path(tmp), workers=1)
        engine.dispose()
        lines += report("sqlite, one worker", results, args.cache_mb, "")
        made = postgres_engine(args.postgres, "bench_tenants") if args.postgres else None
        if made is not None:
            engine, url, schema = made
            try:
                results = measure(engine, url, tenants, args, Path(tmp), workers=2)
                lines += report("postgresql, two workers", results, args.cache_mb, "-postgresql")
            finally:
                with engine.begin() as conn:
                    conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
                engine.dispose()
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
