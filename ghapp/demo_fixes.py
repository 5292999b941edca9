"""The demo's fix PR steps: a maintainer's `/fix` on PR #2 opens a fix PR, its merge records the
acceptance, and a merged fix in a second repository of the account widens the lesson."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from continual.recall import load_lessons
from continual.tables import FixPullRow, Receipt, Repository, Suggestion
from continual.values import Scope
from ghapp.db import reading
from ghapp.demo_world import MAINTAINER, ORG, PATH, SECOND_PATCH, Demo, check, find, step
from ghapp.jobs import now_ms

SECOND_REPO = "demo-org/billing"
# PR #2's file at its head (base + SECOND_PATCH of the demo), as the fix PR reads it.
SECOND_TEXT = (
    "import json\n\ndef charge(request):\n    try:\n"
    '        return refund(eval(request["amount"]))\n    except:\n        return None\n'
)


def _bare_except(comments: list[dict[str, Any]]) -> dict[str, Any]:
    return find(comments, "bare except")


def _fix_and_merge(demo: Demo, repo: str, number: int, comment: dict[str, Any]) -> int:
    """A maintainer's `/fix` under `comment`, then the fix PR merged; answers its number."""
    demo.sim.reply(
        repo, number, comment["id"], "/fix", author=MAINTAINER, author_association="OWNER"
    )
    demo.settle()
    with reading(demo.engine) as conn:
        fixed = conn.execute(
            select(FixPullRow.number, FixPullRow.branch)
            .join(Suggestion, Suggestion.id == FixPullRow.suggestion_id)
            .join(Repository, Repository.id == Suggestion.repository_id)
            .where(Repository.full_name == repo, Suggestion.comment_id == comment["id"])
        ).first()
    check(fixed is not None and fixed.number is not None, f"no fix PR was opened on {repo}")
    assert fixed is not None and fixed.number is not None
    pull = demo.sim.pull(repo, fixed.number)
    demo.echo(
        f"      fix PR #{fixed.number} on {repo}: {pull['head']['ref']} -> {pull['base']['ref']}, "
        f"{len(demo.sim.pull_files(repo, fixed.number))} file changed"
    )
    demo.sim.close(repo, fixed.number, merged=True, by=MAINTAINER)
    demo.settle()
    check(fixed.branch not in demo.sim.branches(repo), "the fix branch was not deleted")
    return int(fixed.number)


def run_fix_steps(demo: Demo, second: dict[str, Any], posted: list[dict[str, Any]]) -> None:
    step(demo.echo, 8, "A maintainer replies /fix on PR #2; the fix PR's merge is the verdict…")
    fix = _fix_and_merge(demo, "demo-org/payments", int(second["number"]), _bare_except(posted))
    with reading(demo.engine) as conn:
        merged = conn.execute(select(Receipt).where(Receipt.source == "fix_pr")).all()
    check(
        [(r.decision, r.actor) for r in merged] == [("accepted", MAINTAINER)],
        f"expected the fix PR's acceptance by {MAINTAINER}, the store has {len(merged)} receipts",
    )
    demo.echo(f"      receipt: accepted by {MAINTAINER} (rule fix_pr.merged, #{fix})")

    step(demo.echo, 9, f"The same fix merged in {SECOND_REPO} widens the lesson to {ORG}…")
    demo.sim.add_repository(SECOND_REPO)
    demo.sim.add_repositories_to_installation(demo.installation_id, [SECOND_REPO])
    demo.settle()
    third = demo.sim.open_pull(
        SECOND_REPO,
        title="Charge with refunds",
        files={PATH: SECOND_PATCH},
        contents={PATH: SECOND_TEXT},
        author="sam",
    )
    demo.settle()
    comments = demo.sim.review_comments(SECOND_REPO, int(third["number"]))
    _fix_and_merge(demo, SECOND_REPO, int(third["number"]), _bare_except(comments))
    with reading(demo.engine) as conn:
        account_id = conn.execute(
            select(Repository.account_id).where(Repository.full_name == SECOND_REPO)
        ).scalar_one()
        lessons = load_lessons(conn, account_id, now=now_ms())
    wide = [lesson for lesson in lessons if lesson.scope is Scope.ACCOUNT]
    check(wide != [], "no lesson widened to the account after a second repository's merged fix")
    for text in sorted({lesson.text or lesson.title for lesson in wide}):
        demo.echo(f"      [account] {text} (merged fix PRs in 2 repositories of {ORG})")
