"""Write-back bars: GitHub requests per write-back, and how fast threads are decided and applied.

Run: `python bench/writeback.py`. For S ∈ {10, 100, 500} suggestions with 4 replies each, a real
write-back runs against the GitHub simulator over HTTP and a SQLite store; the requests it makes
are counted against the budget ⌈(S+R)/100⌉ + 2. Then 50,000 synthetic threads are decided.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bar  # noqa: E402
from bench.decisions import CORPUS, synthetic_pull  # noqa: E402
from continual import store  # noqa: E402
from continual.entry_keys import entry_key  # noqa: E402
from continual.markers import with_suggestion_marker  # noqa: E402
from continual.pull import decide_pull  # noqa: E402
from continual.tables import Account, Repository  # noqa: E402
from ghapp.app import build_deps  # noqa: E402
from ghapp.db import make_engine, migrate  # noqa: E402
from ghapp.github.client import GitHubClient  # noqa: E402
from ghapp.handlers.writeback import write_back  # noqa: E402
from ghapp.settings import Settings  # noqa: E402
from ghapp.simulator import GitHubSimulator, generate_app_key  # noqa: E402

APP_ID = 4242
REPO = "bench-org/service"
REPLIES = 4
SIZES = (10, 100, 500)
REPLY_TEXTS = ("accept", "dismiss style", "why is this needed?", "Good catch, fixed.")


def run_one(
    sim: GitHubSimulator, client: GitHubClient, workdir: Path, size: int
) -> tuple[int, int, float]:
    """Plant `size` suggestions with REPLIES replies each; answer (requests, receipts, seconds)."""
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
    settings = Settings(database_url=url, app_slug="hindsight", store_dir=workdir)
    deps = build_deps(settings, engine=engine, github=client)
    sim.reset_log()
    started = time.perf_counter()
    result = asyncio.run(write_back(deps, installation_id=1, repo=REPO, number=number))
    seconds = time.perf_counter() - started
    requests = len(sim.requests())
    engine.dispose()
    assert result is not None, "the suggestions were planted on this PR"
    return requests, result.changed, seconds


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
            requests, changed, seconds = run_one(sim, client, Path(tmp), size)
            budget = math.ceil(size * (1 + REPLIES) / 100) + 2
            print(
                f"  S={size:<4} R={size * REPLIES:<5} requests {requests} (budget {budget}), "
                f"{changed} receipts, {seconds * 1000:.0f} ms"
            )
            lines.append(bar(f"writeback-requests-s{size}", requests, "requests", "<=", budget))
    texts = [str(json.loads(line)["text"]) for line in CORPUS.read_text().splitlines() if line]
    pull = synthetic_pull(texts)
    started = time.perf_counter()
    decisions = decide_pull(pull).decisions
    rate = len(pull.known) / (time.perf_counter() - started)
    print(
        f"  decide_pull: {len(pull.known):,} threads, {len(pull.comments):,} comments, "
        f"{len(decisions):,} decisions"
    )
    lines.append(bar("writeback-threads", round(rate), "threads/s", ">=", 10_000))
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
