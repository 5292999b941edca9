"""Fix PRs through the app and the simulator: the repository's file, the pull request with a
suggestion on it, a maintainer's `/fix`, and what came of it as GitHub and the store show it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine, select

from continual.markers import parse_fix_marker
from continual.proofs import NewProof, ProofEvidence, record_proofs
from continual.tables import FixPullRow, Receipt
from tests.support.app_harness import Harness, running_app
from tests.support.simulator import REPO

SEAT = '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
SOURCE = "import os\nconfig = parse_config()\nprint(config)\n"
FILES = {"src/app.py": "@@ -1,2 +1,3 @@\n import os\n+config = parse_config()\n print(config)"}
FIXED = "config = require(parse_config())"
# The requests one fix PR takes (reads and writes of the fix itself, not the acknowledgement).
FIX_PATHS = ("/commits/", "/contents/", "/git/trees", "/git/commits", "/git/refs", "/pulls")


def start(engine: Engine, database_url: str, tmp_path: Path, toml: str) -> Iterator[Harness]:
    (tmp_path / "hindsight.toml").write_text(toml)
    with running_app(engine, database_url, tmp_path) as harness:
        harness.sim.push(REPO, {"src/app.py": SOURCE})
        harness.settle()
        yield harness


def open_pull(app: Harness, **options: object) -> int:
    number = int(app.sim.open_pull(REPO, files=dict(FILES), **options)["number"])  # type: ignore[arg-type]
    app.settle()
    return number


def ask(app: Harness, number: int, comment: int, body: str = "/fix", **who: object) -> int:
    options: dict[str, object] = {"author": "octocat", "author_association": "OWNER", **who}
    app.sim.advance_clock(5)
    found = app.sim.reply(REPO, number, comment, body, **options)  # type: ignore[arg-type]
    app.settle()
    return int(found["id"])


def fix_pulls(app: Harness) -> list[dict[str, object]]:
    """The pull requests carrying a fix marker, as the simulator serves them."""
    with app.sim.world.lock:
        found = [p for p in app.sim.world.pulls.values() if parse_fix_marker(p.body)]
        return [app.sim.pull(REPO, p.number) for p in found]


def answers(app: Harness, comment: int) -> list[str]:
    """The app's replies in a suggestion's thread."""
    with app.sim.world.lock:
        return [
            c.body
            for c in app.sim.world.review_comments.values()
            if c.in_reply_to_id == comment and c.user.login == app.sim.bot_login
        ]


def body_of(app: Harness, comment: int) -> str:
    with app.sim.world.lock:
        return app.sim.world.review_comments[comment].body


def receipts(app: Harness) -> list[Receipt]:
    with app.engine.connect() as conn:
        return list(conn.execute(select(Receipt).order_by(Receipt.id)).all())  # type: ignore[arg-type]


def row(app: Harness, sid: str) -> FixPullRow | None:
    with app.engine.connect() as conn:
        return conn.execute(select(FixPullRow).where(FixPullRow.suggestion_id == sid)).first()  # type: ignore[return-value]


def fix_requests(app: Harness) -> int:
    return sum(
        1
        for r in app.sim.requests()
        if any(part in r.path for part in FIX_PATHS) and "/comments" not in r.path
    )


def planted(app: Harness, replacement: str | None = FIXED) -> tuple[int, str, int]:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number, replacement=replacement)
    return number, sid, comment


def current(app: Harness) -> list[tuple[str, str]]:
    return [(r.decision, r.source) for r in receipts(app) if not r.superseded]


def prove(app: Harness, sid: str, patch: str) -> None:
    """Record the suggestion's proof as a review would, with `patch` as its proven fix."""
    evidence = ProofEvidence("pytest -q", "proven", "failed, then passed", "a" * 40, "bwrap", 0)
    with app.engine.begin() as conn:
        record_proofs(
            conn,
            [NewProof(sid, app.account_id(), app.repository_id(), None, evidence, patch)],
        )
