"""Fix PR bars: the GitHub requests one fix PR takes for a one-file change.

Run: `python bench/fixes.py`. A suggestion with replacement code is planted on a pull request of
the GitHub simulator (over HTTP, SQLite store); a maintainer's `/fix` is handled by the same
function the webhook's job calls (`ghapp.fixes.opening.request_fix`), and the requests it sends
are counted: the fix PR itself (budget 6: the branch's head and tree, the file, the tree, the
commit, the branch, the pull request) apart from its acknowledgement (the suggestion's comment
read and edited to link it). Then again with the head moved since the suggestion (one read more:
the file as the suggestion saw it), once more for the same suggestion (a link, no writes), and
for a finding with no replacement but a proven fix's patch, the head moved (budget 6: the hunks'
own lines find where they go, no second read).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import bar  # noqa: E402
from continual import store  # noqa: E402
from continual.entry_keys import entry_key  # noqa: E402
from continual.markers import with_suggestion_marker  # noqa: E402
from continual.proofs import NewProof, ProofEvidence, record_proofs  # noqa: E402
from continual.stored import StoredSuggestion  # noqa: E402
from continual.tables import Account, Repository  # noqa: E402
from ghapp.app import build_deps  # noqa: E402
from ghapp.db import make_engine, migrate  # noqa: E402
from ghapp.deps import Deps  # noqa: E402
from ghapp.fixes.opening import FixOutcome, PullSnapshot, request_fix  # noqa: E402
from ghapp.github.client import GitHubClient  # noqa: E402
from ghapp.settings import Settings  # noqa: E402
from ghsim import GitHubSimulator, generate_app_key  # noqa: E402
from review.config import loads_config  # noqa: E402

APP_ID = 4243
REPO = "bench-org/service"
SOURCE = "import os\nconfig = parse_config()\nprint(config)\n"
PATCH = "@@ -1,2 +1,3 @@\n import os\n+config = parse_config()\n print(config)"
CONFIG = (
    '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n[fixes]\nenabled = true\n'
)
ACKNOWLEDGEMENT = ("/pulls/comments/", "/replies")
PROVEN_FIX = (
    "--- a/src/app.py\n+++ b/src/app.py\n@@ -2,2 +2,3 @@\n config = parse_config()\n"
    "+require(config)\n print(config)\n"
)


def plant(
    sim: GitHubSimulator, deps: Deps, index: int, patch: str | None = None
) -> tuple[StoredSuggestion, PullSnapshot]:
    """A pull request and one suggestion with replacement code on its line 2 (with `patch`: no
    replacement code, a proven fix's patch instead)."""
    pull = sim.open_pull(REPO, files={"src/app.py": PATCH})
    number = int(pull["number"])
    sid, title = f"s{index}", f"Unchecked parse_config result {index}"
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
    repo_json = pull["base"]["repo"]
    with deps.engine.begin() as conn:
        store.record_suggestion(
            conn,
            store.NewSuggestion(
                id=sid,
                account_id=repo_json["owner"]["id"],
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
                replacement=None if patch else "config = require(parse_config())",
            ),
            now=0,
        )
        store.set_comment_id(conn, sid, comment["id"])
        if patch:
            proof = ProofEvidence(
                "pytest -q", "proven", "failed, then passed", "a" * 40, "bwrap", 0
            )
            ids = (repo_json["owner"]["id"], repo_json["id"])
            record_proofs(conn, [NewProof(sid, *ids, None, proof, patch)])
        found = store.suggestion(conn, sid)
    assert found is not None
    snapshot = PullSnapshot(
        repo=REPO,
        number=number,
        state="open",
        merged=False,
        head_ref=pull["head"]["ref"],
        head_repository=REPO,
        base_ref="main",
    )
    return found, snapshot


def measure(
    sim: GitHubSimulator, deps: Deps, suggestion: StoredSuggestion, pull: PullSnapshot, ask: int
) -> tuple[FixOutcome, int, int, float]:
    """One `/fix`: its outcome, the fix PR's requests, the acknowledgement's, and seconds."""
    assert deps.github is not None
    client = deps.github.installation(1)
    sim.reset_log()
    started = time.perf_counter()
    outcome = asyncio.run(
        request_fix(deps, client, suggestion, pull, asked_by="olivia", comment_id=ask)
    )
    seconds = time.perf_counter() - started
    logged = sim.requests()
    acknowledging = sum(1 for r in logged if any(p in r.path for p in ACKNOWLEDGEMENT))
    return outcome, len(logged) - acknowledging, acknowledging, seconds


def main() -> int:
    key = generate_app_key()
    lines = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim,
    ):
        sim.add_installation(
            "bench-org",
            repositories=[REPO],
            installation_id=1,
            permissions={"contents": "write", "issues": "write", "pull_requests": "write"},
        )
        sim.push(REPO, {"src/app.py": SOURCE})
        client = GitHubClient(
            app_id=APP_ID, private_key_pem=key.private_pem, base_url=sim.base_url, trust_env=False
        )
        asyncio.run(client.installation_token(1))  # the token mint is its own
        url = f"sqlite:///{Path(tmp) / 'fixes.db'}"
        engine = make_engine(url)
        migrate(engine)
        owner = sim.pull(REPO, int(sim.open_pull(REPO)["number"]))["base"]["repo"]
        with engine.begin() as conn:
            conn.execute(
                Account.__table__.insert().values(
                    id=owner["owner"]["id"], login="bench-org", type="Organization", created_ms=0
                )
            )
            conn.execute(
                Repository.__table__.insert().values(
                    id=owner["id"],
                    account_id=owner["owner"]["id"],
                    full_name=REPO,
                    installation_id=1,
                )
            )
        settings = Settings(database_url=url, app_slug="hindsight", store_dir=Path(tmp))
        deps = build_deps(
            settings, engine=engine, github=client, review_config=loads_config(CONFIG)
        )
        print("fix PRs: one-file change, simulator over HTTP, SQLite store")
        suggestion, pull = plant(sim, deps, 1)
        opened, requests, acks, seconds = measure(sim, deps, suggestion, pull, 100)
        assert opened.number is not None, opened.reason
        print(
            f"  head unmoved: fix PR #{opened.number} in {requests} requests "
            f"(+{acks} acknowledgement), {seconds * 1000:.0f} ms"
        )
        lines.append(bar("fix-pr-requests", requests, "requests", "<=", 6))
        again, reads, answer, _ = measure(sim, deps, suggestion, pull, 101)
        link_requests = reads + answer
        print(f"  asked again: linked #{again.number} in {link_requests} request (the answer)")
        lines.append(bar("fix-pr-again-requests", link_requests, "requests", "<=", 1))
        moved_suggestion, moved_pull = plant(sim, deps, 2)
        sim.push(
            REPO,
            {"src/app.py": "import os\nimport sys\n" + SOURCE[10:]},
            branch=moved_pull.head_ref,
        )
        moved, moved_requests, _acks, _ = measure(sim, deps, moved_suggestion, moved_pull, 200)
        assert moved.number is not None, moved.reason
        print(f"  head moved: fix PR #{moved.number} in {moved_requests} requests")
        lines.append(bar("fix-pr-moved-requests", moved_requests, "requests", "<=", 7))
        proven_suggestion, proven_pull = plant(sim, deps, 3, PROVEN_FIX)
        sim.push(
            REPO,
            {"src/app.py": "import os\nimport sys\n" + SOURCE[10:]},
            branch=proven_pull.head_ref,
        )
        proven, proven_requests, _acks, _ = measure(sim, deps, proven_suggestion, proven_pull, 300)
        assert proven.number is not None, proven.reason
        print(
            f"  proven fix's patch, head moved: fix PR #{proven.number} in {proven_requests} requests"
        )
        lines.append(bar("fix-pr-patch-requests", proven_requests, "requests", "<=", 6))
        engine.dispose()
    for line in lines:
        print(line)
    return 0 if all(line.endswith("PASS") for line in lines) else 1


if __name__ == "__main__":
    raise SystemExit(main())
