"""Write-back bars: GitHub requests per write-back, its acknowledgements, the coalescing of a
burst, and how fast threads are decided and applied.

Run: `python bench/writeback.py`. For S ∈ {10, 100, 500} suggestions with 4 replies each, and a
push since that changes their line (so the acceptances read from text need the comparison), a
real write-back runs against the GitHub simulator over HTTP and a SQLite store; the requests it makes
are counted against the budget ⌈(S+R)/100⌉ + 2, and its acknowledgements (status edits, outside
the budget) beside it, then again over the unchanged PR. Then the whole app on loopback gets 20
replies in 2 s and the write-back runs are counted. Then 50,000 synthetic threads are decided.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, func, select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bar, ratio_bar  # noqa: E402
from bench.decisions import CORPUS, synthetic_pull  # noqa: E402
from continual import store  # noqa: E402
from continual.entry_keys import entry_key  # noqa: E402
from continual.markers import with_suggestion_marker  # noqa: E402
from continual.replies import classify_reply  # noqa: E402
from continual.tables import Account, Repository  # noqa: E402
from continual.writeback.pull import decide_pull  # noqa: E402
from ghapp.app import build_deps  # noqa: E402
from ghapp.db import make_engine, migrate  # noqa: E402
from ghapp.github.client import GitHubClient  # noqa: E402
from ghapp.settings import Settings  # noqa: E402
from ghapp.tables import Job, JobState  # noqa: E402
from ghapp.writeback.pipeline import write_back  # noqa: E402
from ghsim import GitHubSimulator, generate_app_key  # noqa: E402

APP_ID = 4242
REPO = "bench-org/service"
REPLIES = 4
SIZES = (10, 100, 500)
BUSY = (JobState.QUEUED.value, JobState.RUNNING.value, JobState.WAITING.value)
REPLY_TEXTS = ("accept", "dismiss style", "why is this needed?", "Good catch, fixed.")


@dataclass(frozen=True)
class Run:
    requests: int  # within the budget: everything but the acknowledgements
    changed: int
    seconds: float
    acknowledgements: int  # status edits, one per changed decision
    again: int  # every request of a second write-back over the unchanged PR


def run_one(sim: GitHubSimulator, client: GitHubClient, workdir: Path, size: int) -> Run:
    """Plant `size` suggestions with REPLIES replies each and write back twice."""
    pull = sim.open_pull(REPO, files={"src/app.py": "@@ -1,1 +1,2 @@\n import os\n+x = 1"})
    number = int(pull["number"])
    url = f"sqlite:///{workdir / f'writeback-{size}.db'}"
    engine = make_engine(url)
    migrate(engine)
    repo_json = pull["base"]["repo"]
    with engine.begin() as conn:
        owner = repo_json["owner"]
        conn.execute(
            Account.__table__.insert().values(
                id=owner["id"], login=owner["login"], type="Organization", created_ms=0
            )
        )
        conn.execute(
            Repository.__table__.insert().values(
                id=repo_json["id"], account_id=owner["id"], full_name=REPO, installation_id=1
            )
        )
        for index in range(size):
            sid = f"s{size}-{index}"
            title = f"Unchecked value number {index}"
            key = entry_key("correctness", title)
            comment = sim.add_review_comment(
                REPO,
                number,
                body=with_suggestion_marker(title, sid, key),
                path="src/app.py",
                line=2,
                author=sim.bot_login,
                author_association="NONE",
                user_type="Bot",
            )
            for reply in range(REPLIES):
                sim.reply(
                    REPO,
                    number,
                    comment["id"],
                    REPLY_TEXTS[(index + reply) % len(REPLY_TEXTS)],
                    author="olivia",
                    author_association="OWNER",
                )
            store.record_suggestion(
                conn,
                store.NewSuggestion(
                    id=sid,
                    account_id=owner["id"],
                    repository_id=repo_json["id"],
                    pr=number,
                    head_sha=pull["head"]["sha"],
                    path="src/app.py",
                    line=2,
                    seat="alpha",
                    lab="acme-labs",
                    lens="correctness",
                    title=title,
                    entry_key=key,
                    lesson="Check the result of `parse_config` in src/app.py before using it.",
                ),
                now=0,
            )
            store.set_comment_id(conn, sid, comment["id"])
    # A push after the suggestions that changes their line: the acceptances read from text wait
    # for that evidence, so the write-back makes its one comparison.
    head = sim.synchronize(
        REPO, number, files={"src/app.py": "@@ -1,1 +1,3 @@\n import os\n+x = 1\n+y = 2"}
    )
    settings = Settings(database_url=url, app_slug="hindsight", store_dir=workdir)
    deps = build_deps(settings, engine=engine, github=client)
    sim.reset_log()
    started = time.perf_counter()
    # As a `synchronize` event would: the head is known before anything is read.
    result = asyncio.run(
        write_back(deps, installation_id=1, repo=REPO, number=number, head_sha=head)
    )
    seconds = time.perf_counter() - started
    acknowledgements = len(sim.requests("PATCH"))
    requests = len(sim.requests()) - acknowledgements
    sim.reset_log()
    asyncio.run(write_back(deps, installation_id=1, repo=REPO, number=number, head_sha=head))
    again = len(sim.requests())
    engine.dispose()
    assert result is not None, "the suggestions were planted on this PR"
    return Run(requests, result.changed, seconds, acknowledgements, again)


def burst(workdir: Path, replies: int = 20, window_s: float = 2.0) -> tuple[int, int, float, float]:
    """`replies` maintainer replies within `window_s` on one PR of the running app (the default
    coalescing window, 2 s): answer (write-back runs, acknowledgement requests, seconds until
    the last reply was sent, seconds until every job ran)."""
    from tests.support.app_harness import running_app

    url = f"sqlite:///{workdir / 'burst.db'}"
    engine = make_engine(url)
    migrate(engine)
    window = Settings.model_fields["writeback_coalesce_ms"].default
    with running_app(engine, url, workdir / "burst", writeback_coalesce_ms=window) as app:
        files = {"src/app.py": "@@ -1,1 +1,2 @@\n import os\n+x = 1"}
        number = int(app.sim.open_pull(app_repo(), files=files)["number"])
        app.settle()
        _, comment = app.plant_suggestion(number)
        app.sim.reset_log()
        started = time.perf_counter()
        for index in range(replies):
            text = "Done, thanks!" if index == replies - 1 else f"looking at case {index}"
            app.sim.reply(
                app_repo(), number, comment, text, author="olivia", author_association="OWNER"
            )
            due = started + (index + 1) * window_s / (replies + 2)  # well inside the window
            time.sleep(max(0.0, due - time.perf_counter()))
        sent = time.perf_counter() - started
        while not idle(engine):
            time.sleep(0.05)
        seconds = time.perf_counter() - started
        runs = len(app.sim.requests("GET", f"/pulls/{number}/comments"))
        acknowledgements = len(app.sim.requests("PATCH"))
    engine.dispose()
    return runs, acknowledgements, sent, seconds


def idle(engine: Engine) -> bool:
    """No job is queued, running or waiting, due or not."""
    with engine.connect() as conn:
        busy = select(func.count()).select_from(Job).where(Job.state.in_(BUSY))
        return conn.execute(busy).scalar_one() == 0


def app_repo() -> str:
    from tests.support.simulator import REPO as HARNESS_REPO

    return HARNESS_REPO


def main() -> int:
    key = generate_app_key()
    lines = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim,
    ):
        sim.add_installation("bench-org", repositories=[REPO], installation_id=1)
        client = GitHubClient(
            app_id=APP_ID, private_key_pem=key.private_pem, base_url=sim.base_url, trust_env=False
        )
        asyncio.run(client.installation_token(1))  # the token mint is its own, once per ~55 min
        print(f"write-back: S suggestions × {REPLIES} replies, simulator over HTTP, SQLite store")
        for size in SIZES:
            run = run_one(sim, client, Path(tmp), size)
            budget = math.ceil(size * (1 + REPLIES) / 100) + 2
            print(
                f"  S={size:<4} R={size * REPLIES:<5} requests {run.requests} (budget {budget}), "
                f"{run.changed} receipts, {run.seconds * 1000:.0f} ms; acknowledgements "
                f"{run.acknowledgements} status edits (outside the budget); unchanged again: "
                f"{run.again} requests"
            )
            lines.append(bar(f"writeback-requests-s{size}", run.requests, "requests", "<=", budget))
            lines.append(
                bar(f"writeback-acks-s{size}", run.acknowledgements, "edits", "<=", run.changed)
            )
        runs, acknowledgements, sent, seconds = burst(Path(tmp))
        print(
            f"  burst: 20 replies sent in {sent:.2f} s -> {runs} write-back run(s), "
            f"{acknowledgements} acknowledgement request(s), all done after {seconds:.1f} s"
        )
        lines.append(bar("writeback-coalesced-runs", runs, "runs", "<=", 1))
    texts = [str(json.loads(line)["text"]) for line in CORPUS.read_text().splitlines() if line]
    pull = synthetic_pull(texts)
    started = time.perf_counter()
    decisions = decide_pull(pull).decisions
    rate = len(pull.known) / (time.perf_counter() - started)
    # The pure decision over the same threads: each of their replies classified, nothing else
    # (no threads built, no authors weighed, no decision per suggestion).
    replies = [comment.body for comment in pull.comments if comment.in_reply_to_id is not None]
    started = time.perf_counter()
    for body in replies:
        classify_reply(body, app_slug="hindsight")
    pure = len(pull.known) / (time.perf_counter() - started)
    print(
        f"  decide_pull: {len(pull.known):,} threads, {len(pull.comments):,} comments, "
        f"{len(decisions):,} decisions, {rate:,.0f} threads/s; classifying their "
        f"{len(replies):,} replies alone {pure:,.0f} threads/s"
    )
    # Time a thread, the write-back's decision against the classification alone.
    lines.append(
        ratio_bar("writeback-threads-vs-pure", 1e6 / rate, 1e6 / pure, "µs a thread", "<=", 1.0)
    )
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
