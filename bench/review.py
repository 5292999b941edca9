"""Review benchmark: a 300-file pull request, 2 seats × 4 lenses, against the simulator with latency."""

from __future__ import annotations

import asyncio
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import select

from bench.common import bar
from continual.tables import ReviewCallRow
from ghapp.app import build_deps
from ghapp.db import make_engine, migrate
from ghapp.envelopes import PullRequestEvent
from ghapp.github.client import GitHubClient
from ghapp.handlers.reviews import on_review
from ghapp.jobs import ClaimedJob
from ghapp.settings import load_settings
from ghsim import GitHubSimulator, addition_patch, generate_app_key

APP_ID = 4242
REPO = "bench-org/monolith"
FILES = 300
LINES_PER_FILE = 24
BUG_EVERY = 30  # one file in 30 carries a finding
SEATS = ("alpha", "beta")
LENSES = ("correctness", "security", "performance", "tests")
GITHUB_LATENCY_S = 0.05
SEAT_ANSWER_S = 0.2
MAX_WALL_RATIO = 1.2
REVIEW_POSTS = r"^/repos/[^/]+/[^/]+/pulls/\d+/reviews$"

SEAT = r"""
import json, sys, time
began = time.time()
request = json.load(sys.stdin)
time.sleep(SLEEP)
header, prompt = request["header"], request["prompt"]
with open(LOG, "a") as out:
    out.write(json.dumps({"header": len(header.encode()), "prompt": len(prompt.encode()),
                          "prefix": prompt.startswith(header), "began": began,
                          "ended": time.time()}) + "\n")
findings = []
for item in request["shard"]["files"]:
    if "BUG" in item["patch"]:
        findings.append({"path": item["path"], "line": 2, "title": "Unchecked parse_config result",
                         "body": "parse_config may return None.",
                         "lesson": "Check the result of `parse_config` before using it."})
json.dump({"findings": findings}, sys.stdout)
"""


def pull_files() -> dict[str, str]:
    files = {}
    for index in range(FILES):
        lines = [f"value_{index}_{n} = compute_{n}(source)" for n in range(LINES_PER_FILE)]
        if index % BUG_EVERY == 0:
            lines[1] = "config = parse_config(raw)  # BUG"
        files[f"pkg/module_{index:03}.py"] = addition_patch(lines)
    return files


def write_config(folder: Path, log: Path) -> Path:
    script = folder / "seat.py"
    script.write_text(SEAT.replace("SLEEP", repr(SEAT_ANSWER_S)).replace("LOG", repr(str(log))))
    parts = []
    for name in SEATS:
        command = json.dumps([sys.executable, "-S", str(script)])
        parts.append(
            f'[[seats]]\nname = "{name}"\nlab = "{name}-lab"\nkind = "command"\n'
            f"command = {command}\ntimeout_s = 30\n"
            # The seats run in the sandbox with a /tmp of their own: the call log is bound in.
            f"write = {json.dumps([str(log.parent)])}\n"
        )
    parts.extend(f'[[lenses]]\nname = "{lens}"\n' for lens in LENSES)
    config = folder / "hindsight.toml"
    config.write_text("".join(parts))
    return config


async def review_once(folder: Path) -> dict[str, Any]:
    key = generate_app_key()
    log = folder / "calls.jsonl"
    config = write_config(folder, log)
    url = f"sqlite:///{folder / 'bench.db'}"
    engine = make_engine(url)
    migrate(engine)
    with GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim:
        installation = sim.add_installation("bench-org", repositories=[REPO])
        sim.open_pull(REPO, title="A large change", files=pull_files())
        payload = sim.payloads.pull_request("opened", REPO, 1)
        settings = load_settings(
            database_url=url,
            github_app_id=APP_ID,
            github_private_key=key.private_pem,
            webhook_secret="bench",
            github_api_url=sim.base_url,
            app_slug="hindsight",  # `hindsight setup` writes it to .env: no GET /app per process
            store_dir=folder / "store",
            config=config,
        )
        github = GitHubClient(
            app_id=APP_ID, private_key_pem=key.private_pem, base_url=sim.base_url, trust_env=False
        )
        deps = build_deps(settings, engine=engine, github=github)
        assert deps.review_config is not None
        sim.inject(None, r".*", latency_s=GITHUB_LATENCY_S, times=None)
        # A running worker holds an installation's token for 55 minutes: the review is timed
        # with one in hand, and the first mint of a process is reported on its own.
        minted = time.perf_counter()
        await github.installation_token(installation)
        mint = time.perf_counter() - minted
        sim.reset_log()
        job = ClaimedJob(1, "pull_request.review", None, installation, None, 1, "bench")
        started, began = time.perf_counter(), time.time()
        await on_review(deps, job, PullRequestEvent.model_validate(payload))
        wall = time.perf_counter() - started
        finished = time.time()
        requests = sim.count()
        posts = sim.count("POST", REVIEW_POSTS)
        (review,) = sim.reviews(REPO, 1, include_implicit=False)
        comments = len(
            [c for c in sim.review_comments(REPO, 1) if c["pull_request_review_id"] == review["id"]]
        )
    with engine.connect() as conn:
        durations = list(conn.execute(select(ReviewCallRow.duration_ms)).scalars())
    engine.dispose()
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return {
        "wall": wall,
        "mint": mint,
        "began": began,
        "finished": finished,
        "requests": requests,
        "posts": posts,
        "comments": comments,
        "calls": calls,
        "call_s": sum(durations) / len(durations) / 1000,
        "parallel": deps.review_config.review.parallel_calls,
    }


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="hindsight-bench-review-") as scratch:
        result = asyncio.run(review_once(Path(scratch)))
    calls = result["calls"]
    rounds = math.ceil(len(calls) / result["parallel"])
    # A call's time is the seat's answer as the review saw it: the process start, the request
    # read, the 200 ms answer and the result parsed.
    ideal = rounds * result["call_s"]
    nominal = rounds * SEAT_ANSWER_S
    ratio = result["wall"] / ideal
    header_bytes = sum(c["header"] for c in calls)
    prompt_bytes = sum(c["prompt"] for c in calls)
    share = 100 * header_bytes / prompt_bytes
    identical = 100 * sum(1 for c in calls if c["prefix"]) / len(calls)
    # pull, files (100 a page), the review post, the posted comments (100 a page)
    budget = 2 + math.ceil(FILES / 100) + math.ceil(max(result["comments"], 1) / 100)
    print(
        f"review: {FILES} files, {len(calls)} calls ({len(SEATS)} seats × {len(LENSES)} lenses × "
        f"{len(calls) // (len(SEATS) * len(LENSES))} shards), parallel {result['parallel']}, "
        f"wall {result['wall']:.2f} s, ideal {ideal:.2f} s (mean call {result['call_s'] * 1000:.0f} ms; "
        f"{nominal:.2f} s at a flat {SEAT_ANSWER_S * 1000:.0f} ms), {result['comments']} comments, "
        f"{result['requests']} GitHub requests"
    )
    # Where the wall goes beyond the calls: before the first seat process runs (GitHub reads,
    # recall, prompts), after the last one answers (composing and posting), and in between.
    before = min(c["began"] for c in calls) - result["began"]
    after = result["finished"] - max(c["ended"] for c in calls)
    print(
        f"  before the first call {before * 1000:.0f} ms, after the last {after * 1000:.0f} ms, "
        f"calls span {(result['wall'] - before - after):.2f} s against {ideal:.2f} s ideal"
    )
    print(
        f"  the process's first token mint took {result['mint'] * 1000:.0f} ms more, once an hour per "
        f"installation (with it: {(result['wall'] + result['mint']) / ideal:.3f} x the ideal)"
    )
    print(
        f"prompt-prefix reuse: {share:.2f} % of prompt bytes are the shared header "
        f"({header_bytes // len(calls)} header bytes per call, {prompt_bytes // len(calls)} prompt bytes per call)"
    )
    lines = [
        bar("review wall vs ideal", round(ratio, 3), "x", "<=", MAX_WALL_RATIO),
        bar("review posts", result["posts"], "requests", "==", 1),
        bar("review github requests", result["requests"], "requests", "<=", budget),
        bar("prompt prefix identical", round(identical, 1), "%", ">=", 100),
    ]
    print("\n".join(lines))
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    raise SystemExit(main())
