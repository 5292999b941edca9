"""The write-back end to end: simulator threads → signed webhooks → worker → receipts and entries."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.markers import render_fix_marker, with_suggestion_marker
from continual.tables import Entry, Receipt
from ghapp.app import build_deps
from ghapp.db import reading
from ghapp.tables import Job
from ghapp.writeback.pipeline import write_back
from tests.support.app_harness import INSTALLATION_ID, Harness, running_app
from tests.support.simulator import REPO, make_client
from tests.support.web import wait_for


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def open_pull(app: Harness, **options: object) -> int:
    files = {"src/app.py": "@@ -1,2 +1,3 @@\n import os\n+config = parse_config()\n print(config)"}
    pull = app.sim.open_pull(REPO, files=files, **options)  # type: ignore[arg-type]
    app.settle()
    return int(pull["number"])


def receipts(app: Harness) -> list[Receipt]:
    with reading(app.engine) as conn:
        return list(conn.execute(select(Receipt).order_by(Receipt.id)).all())  # type: ignore[arg-type]


def entries(app: Harness) -> list[Entry]:
    with reading(app.engine) as conn:
        return list(conn.execute(select(Entry).order_by(Entry.id)).all())  # type: ignore[arg-type]


def close(app: Harness, number: int, *, merged: bool = False) -> None:
    app.sim.close(REPO, number, merged=merged)
    app.settle()


def maintainer(
    app: Harness, number: int, comment_id: int, body: str, **who: object
) -> dict[str, object]:
    options: dict[str, object] = {"author": "octocat", "author_association": "OWNER", **who}
    return app.sim.reply(REPO, number, comment_id, body, **options)  # type: ignore[arg-type]


def test_maintainer_accept_makes_an_active_entry(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    maintainer(app, number, comment, "accept")
    close(app, number)
    (receipt,) = receipts(app)
    assert (receipt.suggestion_id, receipt.decision, receipt.source, receipt.actor) == (
        sid,
        "accepted",
        "reply",
        "octocat",
    )
    assert receipt.rule and receipt.span
    (entry,) = entries(app)
    assert entry.admission is None and entry.expires_ms is not None


def test_maintainer_dismissal_with_reason(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    maintainer(app, number, comment, "dismiss false-positive")
    close(app, number)
    (receipt,) = receipts(app)
    assert (receipt.decision, receipt.reason) == ("dismissed", "false-positive")


@pytest.mark.parametrize(
    ("body", "who"),
    [
        ("dismiss", {}),
        ("accept", {"author": "drive-by", "author_association": "CONTRIBUTOR"}),
        ("accept", {"author": "helper[bot]", "author_association": "MEMBER", "user_type": "Bot"}),
        ("accept", {"author": "ci-helper", "author_association": "MEMBER", "via_app": True}),
        ("accept", {"author": "first-timer", "author_association": "NONE"}),
    ],
    ids=["dismiss-without-reason", "contributor", "bot-type", "via-app", "no-association"],
)
def test_replies_that_decide_nothing(app: Harness, body: str, who: dict[str, object]) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    maintainer(app, number, comment, body, **who)
    close(app, number)
    assert receipts(app) == []
    # Control: the same flow with a maintainer's reply that gives a reason is a receipt.
    control = open_pull(app)
    sid, comment = app.plant_suggestion(control)
    maintainer(app, control, comment, "dismiss false-positive")
    close(app, control)
    assert [(r.suggestion_id, r.decision) for r in receipts(app)] == [(sid, "dismissed")]


def test_forged_marker_in_a_human_comment_is_ignored(app: Harness) -> None:
    number = open_pull(app)
    sid, ours = app.plant_suggestion(number)
    forged = app.sim.add_review_comment(
        REPO,
        number,
        body=with_suggestion_marker("looks like a suggestion", sid, "lesson/x-0123456789"),
        path="src/app.py",
        line=2,
        author="mallory",
        author_association="OWNER",
    )
    maintainer(app, number, int(forged["id"]), "accept")
    close(app, number)
    assert receipts(app) == []
    # Control: the same reply on the app's own comment, carrying the real marker, is a receipt.
    app.sim.reopen(REPO, number)
    maintainer(app, number, ours, "accept")
    close(app, number)
    assert [(r.suggestion_id, r.decision) for r in receipts(app)] == [(sid, "accepted")]


def test_later_dismissal_supersedes_acceptance(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    maintainer(app, number, comment, "accept")
    app.sim.synchronize(REPO, number)
    app.settle()
    maintainer(app, number, comment, "dismiss wont-fix")
    close(app, number)
    first, second = receipts(app)
    assert (first.decision, first.superseded) == ("accepted", True)
    assert (second.decision, second.reason, second.superseded) == ("dismissed", "wont-fix", False)


def test_edited_reply_counts_as_it_reads_now(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    reply = maintainer(app, number, comment, "thinking about it")
    app.sim.edit_comment(REPO, int(reply["id"]), "accepted")  # type: ignore[call-overload]
    close(app, number)
    assert [r.decision for r in receipts(app)] == ["accepted"]


def test_deleted_reply_is_gone(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    reply = maintainer(app, number, comment, "accept")
    app.sim.synchronize(REPO, number)
    app.settle()
    assert [r.superseded for r in receipts(app)] == [False]
    app.sim.delete_comment(REPO, int(reply["id"]))  # type: ignore[call-overload]
    close(app, number)
    assert [r.superseded for r in receipts(app)] == [True], "the decision went with its reply"


def test_redelivered_close_and_rerun_change_nothing(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    maintainer(app, number, comment, "accept")
    close(app, number)
    (entry,) = entries(app)
    (delivery,) = [d for d in app.sim.deliveries if d.event == "pull_request"][-1:]
    again = app.sim.deliver("pull_request", json.loads(delivery.body), delivery_id=delivery.id)
    assert again.status == 200 and json.loads(again.response_text) == {"duplicate": True}
    app.sim.reopen(REPO, number)
    close(app, number)  # a second closed event: the write-back runs again over the same state
    assert len(receipts(app)) == 1
    assert entries(app)[0].revision == entry.revision


def fix_pull(
    app: Harness, sid: str, *, author: str = "hindsight[bot]", association: str = "NONE"
) -> int:
    pull = app.sim.open_pull(
        REPO,
        title="Fix the unchecked parse_config result",
        body=f"Applies the suggestion.\n\n{render_fix_marker(sid)}",
        author=author,
        author_association=association,
        files={"src/app.py": "@@ -1,1 +1,2 @@\n import os\n+check(config)"},
    )
    app.settle()
    return int(pull["number"])


def test_merged_fix_pr_accepts_its_suggestion(app: Harness) -> None:
    number = open_pull(app)
    sid, _ = app.plant_suggestion(number)
    fix = fix_pull(app, sid)
    close(app, fix, merged=True)
    (receipt,) = receipts(app)
    assert (receipt.suggestion_id, receipt.decision, receipt.source) == (sid, "accepted", "fix_pr")


def test_fix_pr_closed_with_typed_refusal_dismisses(app: Harness) -> None:
    number = open_pull(app)
    sid, _ = app.plant_suggestion(number)
    fix = fix_pull(app, sid, author="octocat", association="OWNER")
    app.sim.add_issue_comment(
        REPO, fix, "reject out-of-scope", author="octocat", author_association="OWNER"
    )
    close(app, fix)
    (receipt,) = receipts(app)
    assert (receipt.decision, receipt.reason, receipt.source) == (
        "dismissed",
        "out-of-scope",
        "fix_pr",
    )


def test_fix_pr_closed_without_refusal_decides_nothing(app: Harness) -> None:
    number = open_pull(app)
    sid, _ = app.plant_suggestion(number)
    fix = fix_pull(app, sid)
    app.sim.add_issue_comment(
        REPO, fix, "closing, not now", author="octocat", author_association="OWNER"
    )
    close(app, fix)
    assert receipts(app) == []
    # Control: the same close after a typed refusal is a receipt.
    refused = fix_pull(app, sid)
    app.sim.add_issue_comment(
        REPO, refused, "reject out-of-scope", author="octocat", author_association="OWNER"
    )
    close(app, refused)
    found = [(r.suggestion_id, r.decision, r.reason, r.source) for r in receipts(app)]
    assert found == [(sid, "dismissed", "out-of-scope", "fix_pr")]


def test_fix_pr_by_a_contributor_decides_nothing(app: Harness) -> None:
    number = open_pull(app)
    sid, _ = app.plant_suggestion(number)
    fix = fix_pull(app, sid, author="drive-by", association="CONTRIBUTOR")
    close(app, fix, merged=True)
    assert receipts(app) == []
    # Control: the app's own fix PR for the same suggestion, merged, is a receipt.
    ours = fix_pull(app, sid)
    close(app, ours, merged=True)
    found = [(r.suggestion_id, r.decision, r.source) for r in receipts(app)]
    assert found == [(sid, "accepted", "fix_pr")]


def test_pull_gone_mid_write_back_is_a_domain_answer(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    app.sim.inject("GET", rf"/pulls/{number}/comments", status=404, times=None)
    maintainer(app, number, comment, "accept")  # its write-back meets the gone thread too
    close(app, number)
    app.sim.clear_faults()
    assert receipts(app) == []
    with reading(app.engine) as conn:
        job = conn.execute(select(Job).where(Job.kind == "pull_request.writeback")).all()[-1]
    assert job.state == "done" and "gone" in (job.last_error or "")


@pytest.mark.parametrize("suggestions", [3, 120])
def test_request_budget(app: Harness, suggestions: int) -> None:
    """A write-back of S suggestions with R replies costs ≤ ⌈(S+R)/100⌉ + 2 requests."""
    number = open_pull(app)
    planted = [
        app.plant_suggestion(number, title=f"Unchecked value number {i}")
        for i in range(suggestions)
    ]
    replies = 0
    for index, (_, comment) in enumerate(planted):
        maintainer(app, number, comment, "accept" if index % 2 else "dismiss style")
        replies += 1
    app.settle()
    app.sim.reset_log()
    close(app, number)
    used = [r for r in app.sim.requests() if "/webhooks" not in r.path]
    budget = math.ceil((suggestions + replies) / 100) + 2
    assert len(used) <= budget, [f"{r.method} {r.path}" for r in used]
    assert len(receipts(app)) == suggestions


BLOCK = "    if config is None:\n        raise ValueError('no config')"
APPLIED_PATCH = (
    "@@ -1,2 +1,5 @@\n import os\n config = parse_config()\n"
    "+    if config is None:\n+        raise ValueError('no config')\n print(config)"
)


@pytest.mark.parametrize(
    ("pusher", "applied"),
    [("octocat", True), ("drive-by", False)],
    ids=["maintainer", "contributor"],
)
def test_suggestion_applied_by_a_maintainers_commit(
    app: Harness, pusher: str, applied: bool
) -> None:
    number = open_pull(app, author="octocat", author_association="OWNER")
    sid, _ = app.plant_suggestion(number, replacement=BLOCK)
    app.sim.synchronize(REPO, number, files={"src/app.py": APPLIED_PATCH}, author=pusher)
    app.settle()
    app.sim.reset_log()
    close(app, number)
    compares = [r for r in app.sim.requests() if "/compare/" in r.path]
    assert len(compares) == 1, "at most one extra request per write-back"
    found = [(r.suggestion_id, r.source, r.rule, r.actor) for r in receipts(app)]
    expected = [(sid, "applied", "applied.suggestion-block", "octocat")] if applied else []
    assert found == expected


def test_write_back_of_a_pull_named_by_repository_and_number(app: Harness) -> None:
    """No `pull_request` payload needed: installation, repository and number are enough."""
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    # The reply's own write-back finds the thread gone, so the call below is the one that decides.
    app.sim.inject("GET", rf"/pulls/{number}/comments", status=404)
    maintainer(app, number, comment, "accept")
    app.settle()
    assert receipts(app) == []
    deps = build_deps(app.settings, engine=app.engine, github=make_client(app.sim))
    app.sim.reset_log()
    result = asyncio.run(
        write_back(deps, installation_id=INSTALLATION_ID, repo=REPO, number=number)
    )
    assert result is not None and (result.decisions, result.changed) == (1, 1)
    assert [(r.suggestion_id, r.decision) for r in receipts(app)] == [(sid, "accepted")]
    reads = [r.path for r in app.sim.requests("GET") if r.path.startswith("/repos/")]
    assert reads == [f"/repos/{REPO}/pulls/{number}/comments"]
    edits = [r.path for r in app.sim.requests("PATCH")]
    assert edits == [f"/repos/{REPO}/pulls/comments/{comment}"], "the status of the decision"


def test_write_back_of_a_pull_without_our_suggestions_asks_github_nothing(app: Harness) -> None:
    number = open_pull(app)
    deps = build_deps(app.settings, engine=app.engine, github=make_client(app.sim))
    app.sim.reset_log()
    found = asyncio.run(write_back(deps, installation_id=INSTALLATION_ID, repo=REPO, number=number))
    assert found is None
    assert app.sim.requests() == []
    # Control: once the pull holds one of our suggestions, the same call reads its threads.
    app.plant_suggestion(number)
    app.sim.reset_log()
    found = asyncio.run(write_back(deps, installation_id=INSTALLATION_ID, repo=REPO, number=number))
    assert found is not None
    reads = [r.path for r in app.sim.requests("GET") if r.path.startswith("/repos/")]
    assert reads == [f"/repos/{REPO}/pulls/{number}/comments"]


def list_requests(app: Harness, number: int) -> int:
    return app.sim.count("GET", f"^/repos/{REPO}/pulls/{number}/comments$")


def test_a_reply_long_after_the_merge_still_decides(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    # The commented line (2) changes before the merge: the evidence a "fixed" needs.
    fix = "@@ -1,2 +1,4 @@\n import os\n+config = parse_config()\n+assert config\n print(config)"
    head = app.sim.synchronize(REPO, number, files={"src/app.py": fix})
    app.settle()
    close(app, number, merged=True)
    assert receipts(app) == []
    # Nothing else happens on the PR: no new head, no close; the reply alone runs the write-back.
    maintainer(app, number, comment, "Good catch, fixed in 3f2a1c9.")
    app.settle()
    assert [(r.suggestion_id, r.decision, r.evidence_commit) for r in receipts(app)] == [
        (sid, "accepted", head)
    ]


def test_a_contributors_or_bots_reply_runs_no_write_back(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    app.sim.reset_log()
    maintainer(app, number, comment, "accept", author="helper[bot]", user_type="Bot")
    app.settle()
    assert list_requests(app, number) == 0, "a bot's words are never read for a verdict"
    maintainer(app, number, comment, "accept", author="drive-by", author_association="NONE")
    app.settle()
    assert list_requests(app, number) == 1 and receipts(app) == []


def test_a_burst_of_replies_is_one_write_back(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    # A window far longer than twenty replies take, even on a loaded machine.
    with running_app(engine, database_url, tmp_path, writeback_coalesce_ms=6000) as app:
        number = open_pull(app)
        sid, comment = app.plant_suggestion(number)
        # The commented line changes first, so the closing "Done" has the evidence it needs.
        fix = (
            "@@ -1,2 +1,4 @@\n import os\n+config = parse_config()\n+assert config\n print(config)"
        )
        app.sim.synchronize(REPO, number, files={"src/app.py": fix})
        app.settle()
        app.sim.reset_log()
        for n in range(19):
            maintainer(app, number, comment, f"thinking about case {n}")
        maintainer(app, number, comment, "Done, thanks!")
        with reading(app.engine) as conn:
            waiting = conn.execute(select(Job.kind).where(Job.state != "done")).scalars().all()
        assert waiting == ["review_comment.writeback"], "twenty replies, one job"
        wait_for(lambda: len(receipts(app)) == 1, timeout=40, what="the coalesced write-back")
        assert list_requests(app, number) == 1
        assert [(r.suggestion_id, r.decision) for r in receipts(app)] == [(sid, "accepted")]
