"""Every maintainer signal end to end: reactions, `undo`, an author's fix a maintainer merged."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.ledger import review_ledger
from continual.tables import Receipt, Suggestion
from ghapp.db import reading
from ghapp.tables import Job
from tests.support.app_harness import Harness, running_app
from tests.support.simulator import REPO

FILES = {"src/app.py": "@@ -1,2 +1,3 @@\n import os\n+config = parse_config()\n print(config)"}
# A later push that changes the commented line (2) of src/app.py.
FIX = (
    "@@ -1,2 +1,5 @@\n import os\n+config = parse_config()\n"
    "+if config is None:\n+    raise SystemExit('no config')\n print(config)"
)
# A later push that only touches a line far from it.
ELSEWHERE = {"docs/notes.md": "@@ -0,0 +1 @@\n+notes"}


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def open_pull(app: Harness, **options: object) -> int:
    pull = app.sim.open_pull(REPO, files=dict(FILES), **options)  # type: ignore[arg-type]
    app.settle()
    return int(pull["number"])


def current(app: Harness) -> list[tuple[str, str, str | None, str, str | None]]:
    """The current receipts: (suggestion, decision, reason, source, actor)."""
    with reading(app.engine) as conn:
        rows = conn.execute(
            select(Receipt).where(Receipt.superseded.is_(False)).order_by(Receipt.id)
        ).all()
    return [(r.suggestion_id, r.decision, r.reason, r.source, r.actor) for r in rows]


def say(app: Harness, number: int, comment: int, body: str, who: str = "octocat") -> None:
    association = "OWNER" if who == "octocat" else "CONTRIBUTOR"
    app.sim.advance_clock(5)
    app.sim.reply(REPO, number, comment, body, author=who, author_association=association)
    app.settle()


def run(app: Harness, number: int) -> None:
    """Reactions send no webhook: a synchronize (same diff) makes the write-back read them."""
    app.sim.advance_clock(5)
    app.sim.synchronize(REPO, number, files=dict(FILES))
    app.settle()


def react(app: Harness, comment: int, content: str, by: str, **options: str) -> None:
    app.sim.advance_clock(5)
    app.sim.react(REPO, comment, content, by=by, **options)


def test_a_maintainers_thumbs_up_accepts(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Let me look at this tomorrow.")  # octocat is seen as OWNER
    react(app, comment, "+1", by="octocat")
    run(app, number)
    assert current(app) == [(sid, "accepted", None, "reaction", "octocat")]


def test_a_thumbs_down_from_a_vouched_collaborator_dismisses_with_no_reason(
    app: Harness,
) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    app.sim.set_permission(REPO, "quiet-reviewer", "maintain")
    react(app, comment, "-1", by="quiet-reviewer")
    app.sim.reset_log()
    run(app, number)
    assert current(app) == [(sid, "dismissed", "unspecified", "reaction", "quiet-reviewer")]
    reads = app.sim.requests("GET", "/collaborators/quiet-reviewer/permission")
    assert len(reads) == 1, "one permission read for the one unknown reactor"


@pytest.mark.parametrize(
    ("by", "options", "permission"),
    [
        ("renovate[bot]", {"user_type": "Bot"}, None),
        ("helper", {"user_type": "Bot"}, "admin"),
        ("drive-by", {}, "read"),
        ("triager", {}, "triage"),
    ],
    ids=["bot-login", "bot-type-with-admin", "contributor", "triage"],
)
def test_reactions_by_bots_and_contributors_decide_nothing(
    app: Harness, by: str, options: dict[str, str], permission: str | None
) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    if permission is not None:
        app.sim.set_permission(REPO, by, permission)
    react(app, comment, "+1", by=by, **options)
    app.sim.reset_log()
    run(app, number)
    assert current(app) == []
    asked = app.sim.requests("GET", f"/collaborators/{by}/permission")
    assert len(asked) == (0 if options.get("user_type") == "Bot" else 1), "bots are never asked"
    # Control: the same reaction from a person who may maintain the repository decides.
    app.sim.set_permission(REPO, "quiet-reviewer", "maintain")
    react(app, comment, "+1", by="quiet-reviewer")
    run(app, number)
    assert [(d, source, actor) for _, d, _, source, actor in current(app)] == [
        ("accepted", "reaction", "quiet-reviewer")
    ]


def test_other_reactions_and_a_contributors_reply_decide_nothing(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Thinking about it.")
    react(app, comment, "eyes", by="octocat")
    react(app, comment, "heart", by="octocat")
    say(app, number, comment, "accept", who="drive-by")
    run(app, number)
    assert current(app) == []
    # Control: the maintainer's own thumbs up on the same thread decides.
    react(app, comment, "+1", by="octocat")
    run(app, number)
    assert current(app) == [(sid, "accepted", None, "reaction", "octocat")]


def resolution(app: Harness, sid: str) -> tuple[str | None, int | None]:
    with reading(app.engine) as conn:
        row = conn.execute(
            select(Suggestion.resolved_by, Suggestion.resolved_ms).where(Suggestion.id == sid)
        ).one()
    return row.resolved_by, row.resolved_ms


def writebacks(app: Harness) -> list[str]:
    with reading(app.engine) as conn:
        return list(
            conn.execute(
                select(Job.kind).where(Job.kind == "review_thread.writeback").order_by(Job.id)
            ).scalars()
        )


def test_a_resolved_thread_is_evidence_never_a_decision(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    assert comment > 2**32, "the simulator's ids are beyond 32 bits, as GitHub's are"
    app.sim.resolve_thread(REPO, comment, by="octocat")  # GitHub sends the webhook
    app.settle()
    assert writebacks(app) == ["review_thread.writeback"], "the resolution ran the write-back"
    assert current(app) == [], "resolving decides nothing"
    by, at = resolution(app, sid)
    assert by == "octocat" and at is not None
    with reading(app.engine) as conn:
        [ledger] = review_ledger(conn, app.account_id(), now=at, brain=False)
    assert ledger.resolved == 1 and ledger.suggestions.pending == 1
    run(app, number)
    assert resolution(app, sid) == (by, at), "an unchanged thread is not written again"
    app.sim.unresolve_thread(REPO, comment, by="octocat")
    app.settle()
    assert resolution(app, sid) == (None, None), "the latest state counts"
    app.sim.resolve_thread(REPO, comment, by="octocat")
    app.settle()
    assert resolution(app, sid)[0] == "octocat"


def test_a_resolution_by_a_contributor_or_a_bot_is_no_evidence(app: Harness) -> None:
    number = open_pull(app)  # opened by "contributor", not a maintainer
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Hm, not sure.", who="drive-by")  # seen here as a contributor
    app.sim.resolve_thread(REPO, comment, by="contributor")  # the PR's author may resolve
    app.settle()
    assert writebacks(app) == ["review_thread.writeback"]
    assert resolution(app, sid) == (None, None), "the PR's author is no maintainer"
    app.sim.resolve_thread(REPO, comment, by="drive-by")
    app.settle()
    assert resolution(app, sid) == (None, None), "a contributor seen on the PR"
    app.sim.resolve_thread(REPO, comment, by="tidy-up[bot]")
    app.settle()
    assert len(writebacks(app)) == 2, "a bot's resolution runs nothing"
    run(app, number)
    assert resolution(app, sid) == (None, None), "nor does GitHub name a bot as `resolvedBy`"
    assert current(app) == []


def test_a_reply_outranks_a_reaction_and_supersedes_its_receipt(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Hm.")
    react(app, comment, "+1", by="octocat")
    run(app, number)
    assert current(app) == [(sid, "accepted", None, "reaction", "octocat")]
    say(app, number, comment, "dismiss style")
    assert current(app) == [(sid, "dismissed", "style", "reply", "octocat")]
    react(app, comment, "+1", by="maintainer2", user_type="User")
    app.sim.set_permission(REPO, "maintainer2", "write")
    run(app, number)
    assert current(app) == [(sid, "dismissed", "style", "reply", "octocat")], "a reply wins"


def test_a_dismissal_later_turned_into_an_acceptance(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "No, this is intentional: the loop stays explicit.")
    assert [(row[0], row[1], row[3]) for row in current(app)] == [(sid, "dismissed", "reply")]
    say(app, number, comment, "Thinking again, you are right. Fixed in 3f2a1c.")
    # The later reply takes the dismissal back, but accepts only once the lines changed.
    assert current(app) == []
    app.sim.advance_clock(5)
    app.sim.synchronize(REPO, number, files={"src/app.py": FIX})
    app.settle()
    assert current(app) == [(sid, "accepted", None, "reply", "octocat")]


def test_undo_by_a_maintainer_clears_and_a_later_signal_decides(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    react(app, comment, "+1", by="octocat")  # before the undo: never counts again
    say(app, number, comment, "accept")
    assert current(app) == [(sid, "accepted", None, "reply", "octocat")]
    say(app, number, comment, "undo", who="drive-by")
    assert current(app) == [(sid, "accepted", None, "reply", "octocat")], "a contributor's undo"
    say(app, number, comment, "/undo")
    assert current(app) == []
    run(app, number)
    assert current(app) == [], "the thumbs-up predates the undo"
    react(app, comment, "-1", by="octocat")
    run(app, number)
    assert current(app) == [(sid, "dismissed", "unspecified", "reaction", "octocat")]


def test_an_authors_fix_that_a_maintainer_merged(app: Harness) -> None:
    number = open_pull(app, author="newcomer", author_association="FIRST_TIME_CONTRIBUTOR")
    sid, comment = app.plant_suggestion(number)
    say(app, number, comment, "Good catch, fixed.", who="newcomer")
    app.sim.synchronize(REPO, number, files={"src/app.py": FIX})
    app.settle()
    assert current(app) == [], "not merged yet"
    app.sim.reset_log()
    app.sim.close(REPO, number, merged=True, by="octocat")
    app.settle()
    assert current(app) == [(sid, "accepted", None, "merged_author_fix", "octocat")]
    assert app.sim.requests("GET", "/permission") == [], "merging took write access already"


@pytest.mark.parametrize(
    ("reply", "files", "merger"),
    [
        ("Good catch, fixed.", ELSEWHERE, "octocat"),
        ("I'll look at it later?", {"src/app.py": FIX}, "octocat"),
        ("Good catch, fixed.", {"src/app.py": FIX}, "merge-queue[bot]"),
        ("Good catch, fixed.", {"src/app.py": FIX}, "drive-by"),
        ("wontfix", {"src/app.py": FIX}, "octocat"),
    ],
    ids=[
        "lines-untouched",
        "no-acceptance",
        "merged-by-a-bot",
        "merged-by-a-contributor",
        "author-refusing",
    ],
)
def test_an_authors_fix_needs_every_part(
    app: Harness, reply: str, files: dict[str, str], merger: str
) -> None:
    number = open_pull(app, author="newcomer", author_association="CONTRIBUTOR")
    _, comment = app.plant_suggestion(number)
    say(app, number, comment, "Thanks for looking.", who="drive-by")  # seen as a contributor
    say(app, number, comment, reply, who="newcomer")
    app.sim.synchronize(REPO, number, files=files)
    app.settle()
    app.sim.close(REPO, number, merged=True, by=merger)
    app.settle()
    assert current(app) == []


def test_budget_with_reactions_and_a_permission_read(app: Harness) -> None:
    """⌈(S+R)/100⌉ + 2 requests, reactions and a permission read included."""
    number = open_pull(app)
    planted = [app.plant_suggestion(number, title=f"Unchecked value {i}") for i in range(30)]
    for _, comment in planted:
        say(app, number, comment, "Not sure yet.", who="drive-by")
    app.sim.set_permission(REPO, "quiet-reviewer", "write")
    react(app, planted[0][1], "+1", by="quiet-reviewer")
    app.sim.reset_log()
    run(app, number)
    used = [r for r in app.sim.requests() if "/webhooks" not in r.path and r.method != "PATCH"]
    assert len(used) <= math.ceil((30 + 30) / 100) + 2, [f"{r.method} {r.path}" for r in used]
    assert any("/permission" in r.path for r in used) and any("/graphql" in r.path for r in used)
    assert [row[3] for row in current(app)] == ["reaction"]
    assert len(app.sim.requests("PATCH")) == 1, "the acknowledgement, outside the budget"


@pytest.mark.parametrize(
    "answer",
    [
        {"errors": [{"type": "INTERNAL", "message": "Something went wrong"}]},
        {"data": {"repository": {"pullRequest": {"reviewThreads": {"nodes": [{"comments": 1}]}}}}},
    ],
    ids=["graphql-errors", "malformed"],
)
def test_an_unreadable_reactions_answer_keeps_what_reactions_decided(
    app: Harness, answer: dict[str, object]
) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    other, other_comment = app.plant_suggestion(number, title="Another unchecked value")
    say(app, number, comment, "Hm.")
    react(app, comment, "+1", by="octocat")
    run(app, number)
    assert current(app) == [(sid, "accepted", None, "reaction", "octocat")]
    app.sim.inject("POST", r"^/graphql$", status=200, body=answer)
    say(app, number, other_comment, "dismiss duplicate")
    assert sorted(current(app)) == [
        (sid, "accepted", None, "reaction", "octocat"),
        (other, "dismissed", "duplicate", "reply", "octocat"),
    ]


def test_a_refused_permission_read_counts_the_reactor_as_a_contributor(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    app.sim.set_permission(REPO, "quiet-reviewer", "admin")
    react(app, comment, "+1", by="quiet-reviewer")
    app.sim.inject("GET", r"/collaborators/quiet-reviewer/permission$", status=403)
    run(app, number)
    assert current(app) == []
    with reading(app.engine) as conn:
        dead = conn.execute(select(Job.kind, Job.last_error).where(Job.state == "dead")).all()
    assert dead == []
    run(app, number)
    assert [row[3] for row in current(app)] == ["reaction"], "read again on the next run"
