"""Replies bound to the code's evidence end to end: simulator pull request → the app's suggestion
→ a maintainer's reply → a push that changes the lines or not → the merge (docs/writeback.md,
"Verdicts bound to evidence")."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.ledger import review_ledger
from continual.ledger.values import RepositoryLedger
from continual.markers import STATUS_MARKER
from continual.tables import Receipt, Suggestion
from ghapp.db import reading
from ghsim.model import FileChange
from tests.support.app_harness import Harness, running_app
from tests.support.simulator import REPO

FILES = {"src/app.py": "@@ -1,2 +1,3 @@\n import os\n+config = parse_config()\n print(config)"}
# A push that changes the commented line (2) of src/app.py.
FIX = {
    "src/app.py": "@@ -1,2 +1,4 @@\n import os\n+config = parse_config()\n"
    "+assert config is not None\n print(config)"
}
# A push that touches src/app.py far from the commented line, and another file (the simulator's
# comparison answers the pushed commits' files: these are what changed since the suggestion).
ELSEWHERE = {
    "src/app.py": "@@ -40,1 +40,2 @@\n x = 1\n+y = 2",
    "docs/notes.md": "@@ -0,0 +1 @@\n+notes",
}
REMOVED = [
    FileChange("src/app.py", "@@ -1,2 +0,0 @@\n-import os\n-print(config)", status="removed")
]


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def open_pull(app: Harness) -> int:
    number = int(app.sim.open_pull(REPO, files=dict(FILES))["number"])
    app.settle()
    return number


def say(app: Harness, number: int, comment: int, body: str) -> None:
    app.sim.advance_clock(5)
    app.sim.reply(REPO, number, comment, body, author="octocat", author_association="OWNER")
    app.settle()


def push(app: Harness, number: int, files: object, **options: object) -> str:
    app.sim.advance_clock(5)
    sha = app.sim.synchronize(REPO, number, files=files, **options)  # type: ignore[arg-type]
    app.settle()
    return sha


def merge(app: Harness, number: int) -> None:
    app.sim.advance_clock(5)
    app.sim.close(REPO, number, merged=True, by="octocat")
    app.settle()


def current(app: Harness) -> list[tuple[str, str, str, str | None, str | None]]:
    """The current receipts: (suggestion, decision, source, evidence, evidence commit)."""
    with reading(app.engine) as conn:
        rows = conn.execute(
            select(Receipt).where(Receipt.superseded.is_(False)).order_by(Receipt.id)
        ).all()
    return [(r.suggestion_id, r.decision, r.source, r.evidence, r.evidence_commit) for r in rows]


def claim(app: Harness, sid: str) -> str | None:
    with reading(app.engine) as conn:
        stored = conn.execute(select(Suggestion.claim).where(Suggestion.id == sid)).scalar_one()
    return None if stored is None else str(json.loads(stored)["state"])


def status(app: Harness, number: int, comment: int) -> str:
    body = next(c for c in app.sim.review_comments(REPO, number) if c["id"] == comment)["body"]
    assert str(body).count(STATUS_MARKER) == 1, body
    return str(body).split(STATUS_MARKER)[1]


def test_fixed_waits_for_the_change_then_accepts_with_its_commit(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Good catch, fixed.")
    assert current(app) == [] and claim(app, sid) == "claimed"
    assert "accepted — waiting for the change" in status(app, number, comment)
    app.sim.reset_log()
    head = push(app, number, FIX)
    assert current(app) == [(sid, "accepted", "reply", "lines-changed", head)]
    assert claim(app, sid) is None
    shown = status(app, number, comment)
    assert "accepted — by @octocat, from a reply" in shown
    assert f"the commented lines changed (`{head[:12]}`)" in shown
    # Within the budget: the comments, the threads read, the one comparison.
    reads = [r for r in app.sim.requests("GET") if r.path.startswith("/repos/")]
    graphql = app.sim.requests("POST", "/graphql")
    assert len(reads) + len(graphql) <= math.ceil(2 / 100) + 2
    assert len(app.sim.requests("GET", "/compare/")) == 1
    [bound] = review_ledger_of(app).bound_by_evidence
    assert (bound.suggestion, bound.evidence, bound.commit) == (sid, "lines-changed", head)


def review_ledger_of(app: Harness) -> RepositoryLedger:
    with reading(app.engine) as conn:
        [ledger] = review_ledger(conn, app.account_id(), now=2**62, brain=False)
    return ledger


def test_fixed_with_no_change_at_the_merge_is_no_acceptance(app: Harness) -> None:
    """Other lines and another file changed, and the reply names a commit that does not exist."""
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Fixed in 1234567, thanks!")
    push(app, number, ELSEWHERE)
    assert current(app) == [] and claim(app, sid) == "claimed"
    merge(app, number)
    assert current(app) == [] and claim(app, sid) == "dropped"
    assert "not accepted — the pull request closed with the commented lines unchanged" in status(
        app, number, comment
    )
    # A typed "fixed" reports a change: it waits for one, as a natural acceptance does.
    typed = next(s for s in review_ledger_of(app).decisions_by_signal if s.signal == "grammar")
    assert (typed.accepted, typed.dropped, typed.claimed) == (0, 1, 0)


def test_a_history_rewritten_before_the_merge_binds_nothing(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Good catch, fixed.")
    push(app, number, FIX, rewrite=True)  # the compare answers 404: no evidence either way
    merge(app, number)
    assert current(app) == [] and claim(app, sid) == "claimed"


def test_a_deleted_file_is_no_acceptance(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Good catch, fixed.")
    push(app, number, REMOVED)
    assert current(app) == [] and claim(app, sid) == "claimed"
    merge(app, number)
    assert current(app) == [] and claim(app, sid) == "dropped"


def test_a_deferral_is_recorded_and_suppresses_nothing(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Fair point, let's do that in a follow-up PR.")
    push(app, number, FIX)
    merge(app, number)
    assert current(app) == [] and claim(app, sid) == "deferred"
    assert "deferred — no decision" in status(app, number, comment)
    natural = next(s for s in review_ledger_of(app).decisions_by_signal if s.signal == "natural")
    assert natural.deferred == 1


def test_a_typed_command_still_decides_at_once(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "accept")
    assert current(app) == [(sid, "accepted", "reply", None, None)]
    say(app, number, comment, "dismiss wont-fix")
    assert current(app) == [(sid, "dismissed", "reply", None, None)]
