"""History back-fill bars: 300 merged pull requests × 20 review comments, read within the rate
limit, beside a per-comment reader in the same run.

Run: `python bench/history.py [--pulls 300] [--comments 20]`. The simulator holds the merged pull
requests (half of each one's comments by maintainers, two in three of those addressed by a later
push; the rest the author's own, a bot's and replies). Four runs, each on a fresh SQLite store:

1. the back-fill unthrottled: GitHub requests per pull request (target ≤ 3 plus pages) and wall
   time;
2. the same outcomes read the plain way, one comparison per maintainer comment (the baseline):
   the back-fill's requests and wall time as ratios to it, and the same outcomes;
3. the back-fill under a small rate limit (and one 403 secondary-limit answer): it pauses when its
   share of a window is spent and resumes at the reset, never over its share, never refused;
4. the back-fill of run 1 again with a discovery seat (a real command process, the tests'
   `hindsight.discover/1` seat): its calls, the lessons it published active and as candidates,
   and its wall time as a ratio to run 1's.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine, insert, select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bar  # noqa: E402
from continual.history.evidence import (  # noqa: E402
    Outcome,
    PastPull,
    base_commit,
    counted,
    judge,
)
from continual.history.runs import RunState  # noqa: E402
from continual.tables import (  # noqa: E402
    Account,
    HistoryComment,
    HistoryPublication,
    Repository,
)
from ghapp.db import make_engine, migrate, reading  # noqa: E402
from ghapp.github.client import GitHubClient  # noqa: E402
from ghapp.github.errors import Gone  # noqa: E402
from ghapp.github.installation import InstallationClient  # noqa: E402
from ghapp.history import Backfill, Options, past_comment, schedule  # noqa: E402
from ghapp.jobs import now_ms  # noqa: E402
from ghapp.tables import Installation  # noqa: E402
from ghsim import GitHubSimulator, generate_app_key  # noqa: E402
from ghsim.history import seed_history  # noqa: E402
from review.seats import make_seat  # noqa: E402
from tests.support.discover_seat import discovery_seat  # noqa: E402

APP_ID = 4545
INSTALLATION = 31
ORG = "bench-org"
REPO = "bench-org/history"
SHARE = 0.25
THROTTLED_LIMIT = 24  # requests per window in run 3; the back-fill may spend a quarter
THROTTLED_WINDOW_S = 1.0
THROTTLED_PULLS = 30


def store(path: Path, sim: GitHubSimulator, max_prs: int = 10_000) -> tuple[Engine, int]:
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    repo = sim.world.repo(REPO)
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=repo.owner.id, login=ORG, created_ms=0))
        conn.execute(
            insert(Installation).values(id=INSTALLATION, account_id=repo.owner.id, created_ms=0)
        )
        conn.execute(
            insert(Repository).values(
                id=repo.id, account_id=repo.owner.id, installation_id=INSTALLATION, full_name=REPO
            )
        )
        schedule(
            conn,
            account_id=repo.owner.id,
            repository_id=repo.id,
            installation_id=INSTALLATION,
            now_ms=now_ms(),
            max_prs=max_prs,
            days=365,
        )
    return engine, repo.id


def outcomes_of(engine: Engine, pulls: list[int] | None = None) -> Counter[str]:
    query = select(HistoryComment.outcome)
    if pulls is not None:
        query = query.where(HistoryComment.pr.in_(pulls))
    with reading(engine) as conn:
        return Counter(conn.execute(query).scalars())


async def follow(backfill_of: Callable[[], Backfill], *, sleep: bool) -> tuple[int, list[float]]:
    """Run the back-fill to its end; answers the pauses and, per pause, how long after the
    window's reset it resumed (s)."""
    pauses = 0
    late: list[float] = []
    while True:
        outcome = await backfill_of().run()
        if outcome.resume_at is None:
            assert outcome.run is not None and outcome.run.state is RunState.DONE, outcome.run
            return pauses, late
        pauses += 1
        wait = max(outcome.resume_at.timestamp() - time.time(), 0.0)
        await asyncio.sleep(wait if sleep else 0)
        late.append(time.time() - outcome.resume_at.timestamp())


async def per_comment(client: InstallationClient, pulls: list[int]) -> tuple[int, Counter[str]]:
    """The baseline: each pull request, its comments, its merger, and a comparison per
    maintainer comment from its commit to the head."""
    outcomes: Counter[str] = Counter()
    for number in pulls:
        found = await client.list_review_comments(REPO, number)
        pull = await client.get_pull(REPO, number)
        assert pull.merged_at is not None
        past = PastPull(number, pull.user.login, pull.head_sha, pull.merged_at)
        comments = [c for c in map(past_comment, found) if c is not None]
        for comment in counted(past, comments):
            base = base_commit([comment]) or pull.head_sha
            try:
                comparison = await client.compare(REPO, base, pull.head_sha)
            except Gone:
                outcomes[Outcome.NO_EVIDENCE.value] += 1
                continue
            patches = {entry.filename: entry.patch for entry in comparison.files}
            (kept,) = [k for k in judge(past, [comment], patches=patches, first_commit=None)]
            outcomes[kept.outcome.value] += 1
    return 0, outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pulls", type=int, default=300)
    parser.add_argument("--comments", type=int, default=20)
    parser.add_argument(
        "--baseline-pulls", type=int, default=30, help="PRs the per-comment baseline reads"
    )
    args = parser.parse_args()
    key = generate_app_key()
    with (
        GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim,
        tempfile.TemporaryDirectory() as tmp,
    ):
        sim.world.add_installation(ORG, installation_id=INSTALLATION)
        sim.world.add_repository(REPO, installation_id=INSTALLATION)
        started = time.perf_counter()
        history = seed_history(
            sim.world, REPO, pulls_count=args.pulls, comments_per_pull=args.comments
        )
        print(
            f"seeded {args.pulls} merged PRs × {args.comments} comments "
            f"in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )

        def client() -> InstallationClient:
            app = GitHubClient(
                app_id=APP_ID,
                private_key_pem=key.private_pem,
                base_url=sim.base_url,
                trust_env=False,
            )
            return app.installation(INSTALLATION)

        # 1. the back-fill, unthrottled
        engine, repo_id = store(Path(tmp) / "one.db", sim)
        sim.reset_log()
        reader = client()
        started = time.perf_counter()
        asyncio.run(
            follow(
                lambda: Backfill(reader, engine, repo_id, options=Options(1.0), clock=now_ms),
                sleep=True,
            )
        )
        ours_s = time.perf_counter() - started
        reads = [r for r in sim.requests("GET")]
        pages = len([r for r in reads if r.path == f"/repos/{REPO}/pulls"])
        comment_pages = len([r for r in reads if r.path.endswith("/comments")])
        ours = len(reads)
        per_pull = (ours - pages - (comment_pages - args.pulls)) / args.pulls
        ours_outcomes = outcomes_of(engine)

        # 2. the baseline: a comparison per maintainer comment
        sim.reset_log()
        baseline_client = client()
        numbers = [pull.number for pull in history.pulls][: args.baseline_pulls]
        started = time.perf_counter()
        _, base_outcomes = asyncio.run(per_comment(baseline_client, numbers))
        base_s = time.perf_counter() - started
        base = len(sim.requests("GET"))
        sample_outcomes = outcomes_of(engine, numbers)

        # 4. (before the rate limit) run 1's back-fill again, with a discovery seat
        seat = discovery_seat(Path(tmp) / "finder")
        engine4, _ = store(Path(tmp) / "four.db", sim)
        discovering = Options(1.0, seat=make_seat(seat.config()))
        reader4 = client()
        started = time.perf_counter()
        asyncio.run(
            follow(
                lambda: Backfill(reader4, engine4, repo_id, options=discovering, clock=now_ms),
                sleep=True,
            )
        )
        seat_s = time.perf_counter() - started
        with reading(engine4) as conn:
            receipt = conn.execute(select(*HistoryPublication.__table__.c)).one()
        seat_calls = len(seat.calls())

        # 3. the back-fill under a small rate limit and one secondary-limit answer
        engine3, _ = store(Path(tmp) / "three.db", sim, THROTTLED_PULLS)
        sim.reset_log()
        sim.limit_rate(THROTTLED_LIMIT, THROTTLED_WINDOW_S)
        sim.inject("GET", r"/compare/", status=403, headers={"retry-after": "1"}, times=1)
        throttled = client()
        window_start = sim.context.rate_window_start
        started = time.perf_counter()
        pauses, late = asyncio.run(
            follow(
                lambda: Backfill(throttled, engine3, repo_id, options=Options(SHARE), clock=now_ms),
                sleep=True,
            )
        )
        throttled_s = time.perf_counter() - started
        logged = [r for r in sim.requests() if not r.path.startswith("/app")]
        refused = [r for r in logged if r.status == 403]
        windows = Counter(
            int((r.at - window_start).total_seconds() // THROTTLED_WINDOW_S) for r in logged
        )
        worst_share = max(windows.values()) / THROTTLED_LIMIT
        pulls3 = sorted(pull.number for pull in history.pulls)[-THROTTLED_PULLS:]
        same = outcomes_of(engine3) == outcomes_of(engine, pulls3)

    print(
        f"back-fill: {ours} GitHub reads for {args.pulls} PRs ({pages} list pages) in "
        f"{ours_s:.2f} s; per-comment baseline: {base} reads for {len(numbers)} PRs in "
        f"{base_s:.2f} s; outcomes {dict(ours_outcomes)} (baseline's PRs: back-fill "
        f"{dict(sample_outcomes)}, baseline {dict(base_outcomes)}); throttled "
        f"({THROTTLED_PULLS} PRs, {THROTTLED_LIMIT} requests per {THROTTLED_WINDOW_S:g} s): "
        f"{throttled_s:.2f} s, {pauses} pause(s), resumed {max(late, default=0):.2f} s after "
        f"the reset at worst, {len(refused)} refused (the injected secondary limit); with a "
        f"discovery seat: {seat_s:.2f} s, {seat_calls} seat call(s), {receipt.proposals} "
        f"proposals, {receipt.lessons_active} active and {receipt.lessons_candidate} candidate "
        f"lessons, rejected {receipt.rejected}, failure {receipt.seat_failure}",
        file=sys.stderr,
    )
    print(bar("history-requests-per-pr", round(per_pull, 3), "requests plus pages", "<=", 3))
    per_base = base / len(numbers)
    ratio = (ours / args.pulls) / per_base
    wall = (ours_s / args.pulls) / (base_s / len(numbers))
    print(bar("history-requests-vs-per-comment", round(ratio, 3), "x baseline per PR", "<=", 0.5))
    print(bar("history-wall-vs-per-comment", round(wall, 3), "x baseline per PR", "<=", 1.0))
    agree = sample_outcomes == base_outcomes and same
    print(bar("history-same-outcomes", int(agree), "(1: yes)", "==", 1))
    print(bar("history-rate-limit-pauses", pauses, "pauses, each resumed", ">=", 2))
    print(bar("history-window-share", round(worst_share, 3), "of a window", "<=", SHARE))
    print(bar("history-refused-answers", len(refused), "403s", "<=", 1))
    print(bar("history-resume-after-reset", round(max(late, default=0), 3), "s", "<=", 1.5))
    print(bar("history-discovery-active", receipt.lessons_active, "lessons active", ">=", 1))
    print(
        bar(
            "history-discovery-failures",
            int(receipt.seat_failure is not None),
            "(1: a batch failed)",
            "==",
            0,
        )
    )
    print(bar("history-discovery-wall-vs-plain", round(seat_s / ours_s, 3), "x run 1", "<=", 1.5))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
