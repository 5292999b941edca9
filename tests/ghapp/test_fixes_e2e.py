"""Fix PRs end to end: a maintainer's `/fix` → a fix PR written through the simulator's Git Data
API → its merge accepted, and every request that must open nothing or say why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from continual.markers import parse_fix_marker, with_suggestion_marker
from tests.support.app_harness import INSTALLATION_ID, Harness
from tests.support.fix_prs import (
    FIXED,
    SEAT,
    SOURCE,
    answers,
    ask,
    body_of,
    current,
    fix_pulls,
    fix_requests,
    open_pull,
    planted,
    prove,
    receipts,
    row,
    start,
)
from tests.support.simulator import REPO, wait_until


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    for harness in start(engine, database_url, tmp_path, f"{SEAT}[fixes]\nenabled = true\n"):
        harness.sim.grant(INSTALLATION_ID, "contents", "write")
        yield harness


@pytest.fixture
def disabled(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    for harness in start(engine, database_url, tmp_path, SEAT):
        harness.sim.grant(INSTALLATION_ID, "contents", "write")
        yield harness


@pytest.fixture
def read_only(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    yield from start(engine, database_url, tmp_path, f"{SEAT}[fixes]\nenabled = true\n")


def test_fix_opens_one_pr_in_six_requests_and_its_merge_accepts(app: Harness) -> None:
    number, sid, comment = planted(app)
    head_ref = app.sim.pull(REPO, number)["head"]["ref"]
    app.sim.reset_log()
    ask(app, number, comment)
    assert fix_requests(app) <= 6
    (fix,) = fix_pulls(app)
    assert (fix["base"]["ref"], fix["head"]["ref"]) == (head_ref, f"hindsight/fix-{sid}")
    assert parse_fix_marker(fix["body"]) == sid
    assert f"#{number}" in fix["body"] and "@octocat" in fix["body"]
    changed = app.sim.files_at(REPO, f"hindsight/fix-{sid}")["src/app.py"]
    assert changed == SOURCE.replace("config = parse_config()", FIXED)
    assert [f.filename for f in app.sim.pull_files(REPO, int(fix["number"]))] == ["src/app.py"]
    assert f"**Hindsight fix PR:** #{fix['number']} (open)." in body_of(app, comment)
    assert answers(app, comment) == []
    app.sim.close(REPO, int(fix["number"]), merged=True, by="octocat")
    app.settle()
    (receipt,) = receipts(app)
    assert (receipt.suggestion_id, receipt.decision, receipt.source, receipt.actor) == (
        sid,
        "accepted",
        "fix_pr",
        "octocat",
    )
    assert receipt.span == f"#{fix['number']}"
    assert f"hindsight/fix-{sid}" not in app.sim.branches(REPO)
    body = body_of(app, comment)
    assert f"**Hindsight fix PR:** #{fix['number']} (merged, recorded as accepted)." in body
    stored = row(app, sid)
    assert stored is not None and stored.state == "merged"


@pytest.mark.parametrize(
    "who",
    [
        {"author": "drive-by", "author_association": "CONTRIBUTOR"},
        {"author": "helper[bot]", "author_association": "MEMBER", "user_type": "Bot"},
        {"author": "ci-helper", "author_association": "MEMBER", "via_app": True},
    ],
    ids=["contributor", "bot", "via-app"],
)
def test_a_fix_asked_by_anyone_but_a_maintainer_is_ignored(
    app: Harness, who: dict[str, object]
) -> None:
    number, _sid, comment = planted(app)
    ask(app, number, comment, **who)
    assert fix_pulls(app) == [] and answers(app, comment) == []
    ask(app, number, comment)  # control: a maintainer's opens it
    assert len(fix_pulls(app)) == 1


def test_a_fix_under_a_comment_that_is_not_the_apps_is_ignored(app: Harness) -> None:
    number, sid, _comment = planted(app)
    forged = app.sim.add_review_comment(
        REPO,
        number,
        body=with_suggestion_marker("```suggestion\nx\n```", sid, "lesson/x-0123456789"),
        path="src/app.py",
        line=2,
        author="mallory",
        author_association="CONTRIBUTOR",
    )
    app.settle()
    ask(app, number, int(forged["id"]))
    assert fix_pulls(app) == [] and answers(app, int(forged["id"])) == []


def test_mention_form_and_a_second_ask_links_the_same_pr(app: Harness) -> None:
    number, _sid, comment = planted(app)
    slug = app.sim.bot_login.removesuffix("[bot]")
    ask(app, number, comment, f"@{slug} fix")
    (fix,) = fix_pulls(app)
    ask(app, number, comment, "/fix")
    assert len(fix_pulls(app)) == 1
    assert answers(app, comment) == [f"The fix PR for this suggestion is #{fix['number']}."]


def test_the_same_fix_delivered_twice_is_handled_once(app: Harness) -> None:
    number, _sid, comment = planted(app, replacement=None)
    asked = ask(app, number, comment)
    with app.sim.world.lock:
        payload = app.sim.payloads.review_comment("created", app.sim.world.review_comments[asked])
    app.sim.deliver("pull_request_review_comment", payload)
    app.settle()
    assert len(answers(app, comment)) == 1


def test_nothing_to_apply_says_so(app: Harness) -> None:
    number, _sid, comment = planted(app, replacement=None)
    ask(app, number, comment)
    (answer,) = answers(app, comment)
    assert "nothing to apply" in answer
    assert fix_pulls(app) == []


def test_a_change_under_github_is_refused(app: Harness) -> None:
    workflow = {".github/workflows/ci.yml": "@@ -0,0 +1,1 @@\n+permissions: read-all"}
    number = int(app.sim.open_pull(REPO, files=workflow)["number"])
    app.settle()
    _sid, comment = app.plant_suggestion(
        number, path=".github/workflows/ci.yml", line=1, replacement="permissions: write-all"
    )
    ask(app, number, comment)
    (answer,) = answers(app, comment)
    assert "`.github/`" in answer and fix_pulls(app) == []


def test_a_moved_head_is_rebased_or_said_to_no_longer_apply(app: Harness) -> None:
    number, sid, comment = planted(app)
    head_ref = app.sim.pull(REPO, number)["head"]["ref"]
    app.sim.push(REPO, {"src/app.py": "import os\nimport sys\n" + SOURCE[10:]}, branch=head_ref)
    app.settle()
    ask(app, number, comment)
    (fix,) = fix_pulls(app)
    after = app.sim.files_at(REPO, f"hindsight/fix-{sid}")["src/app.py"]
    assert after == f"import os\nimport sys\n{FIXED}\nprint(config)\n"
    assert "moved" in fix["body"]
    other, _other_sid, other_comment = planted(app)
    other_ref = app.sim.pull(REPO, other)["head"]["ref"]
    app.sim.push(REPO, {"src/app.py": "import os\nconfig = load()\n"}, branch=other_ref)
    app.settle()
    ask(app, other, other_comment)
    (answer,) = answers(app, other_comment)
    assert "no longer applies" in answer and FIXED in answer
    assert len(fix_pulls(app)) == 1


def test_a_fork_head_and_a_deleted_head_branch_open_nothing(app: Harness) -> None:
    app.sim.add_repository("someone/widgets")
    fork = open_pull(app, head_repo="someone/widgets")
    _sid, comment = app.plant_suggestion(fork, replacement=FIXED)
    ask(app, fork, comment)
    (answer,) = answers(app, comment)
    assert "fork" in answer and FIXED in answer
    number, _sid, gone = planted(app)
    app.sim.delete_branch(REPO, app.sim.pull(REPO, number)["head"]["ref"])
    ask(app, number, gone)
    (answer,) = answers(app, gone)
    assert "no longer exists" in answer
    assert fix_pulls(app) == []


def test_a_merged_pull_gets_a_fix_against_its_base(app: Harness) -> None:
    number, sid, comment = planted(app)
    app.sim.close(REPO, number, merged=True)
    app.settle()
    ask(app, number, comment)
    (fix,) = fix_pulls(app)
    assert fix["base"]["ref"] == "main"
    assert FIXED in app.sim.files_at(REPO, f"hindsight/fix-{sid}")["src/app.py"]


def test_without_contents_write_the_answer_says_what_to_change(read_only: Harness) -> None:
    number, sid, comment = planted(read_only)
    asked = ask(read_only, number, comment)
    with read_only.sim.world.lock:  # the same `/fix` delivered again is not answered again
        again = read_only.sim.world.review_comments[asked]
        payload = read_only.sim.payloads.review_comment("created", again)
    read_only.sim.deliver("pull_request_review_comment", payload)
    read_only.settle()
    (answer,) = answers(read_only, comment)
    assert "contents: write" in answer and FIXED in answer
    assert fix_pulls(read_only) == [] and f"hindsight/fix-{sid}" not in read_only.sim.branches(REPO)


def test_not_enabled_opens_nothing(disabled: Harness) -> None:
    number, _sid, comment = planted(disabled)
    ask(disabled, number, comment)
    (answer,) = answers(disabled, comment)
    assert "[fixes] enabled = true" in answer and fix_pulls(disabled) == []


def test_github_errors_retry_or_answer(app: Harness) -> None:
    number, _sid, comment = planted(app)
    app.sim.inject("POST", r"/git/trees$", status=502, times=1)
    ask(app, number, comment)
    assert wait_until(lambda: len(fix_pulls(app)) == 1, timeout_s=15)  # retried after the 5xx
    assert answers(app, comment) == []
    other, other_sid, other_comment = planted(app)
    app.sim.inject("POST", r"/pulls$", status=422, times=1)
    ask(app, other, other_comment)
    (answer,) = answers(app, other_comment)
    assert "GitHub refused" in answer and "422" in answer
    stored = row(app, other_sid)
    assert stored is not None and stored.state == "refused"
    ask(app, other, other_comment)  # asking again after the refusal opens it
    assert len(fix_pulls(app)) == 2
    third, _third_sid, third_comment = planted(app)
    app.sim.inject("GET", r"/commits/", status=404, times=1)
    ask(app, third, third_comment)
    assert "no longer exists" in answers(app, third_comment)[0]
    fourth, _fourth_sid, fourth_comment = planted(app)
    app.sim.inject("POST", r"/git/commits$", status=409, times=1)
    ask(app, fourth, fourth_comment)
    (conflict,) = answers(app, fourth_comment)
    assert "GitHub refused" in conflict and "409" in conflict and FIXED in conflict
    fifth, fifth_sid, fifth_comment = planted(app)
    app.sim.protect_branch(REPO, f"hindsight/fix-{fifth_sid}")
    ask(app, fifth, fifth_comment)
    (protected,) = answers(app, fifth_comment)
    assert "Protected branch" in protected and len(fix_pulls(app)) == 2


def test_fix_pr_closed_with_refusal_dismisses_and_without_withdraws(app: Harness) -> None:
    number, sid, comment = planted(app)
    ask(app, number, comment)
    (fix,) = fix_pulls(app)
    app.sim.add_issue_comment(
        REPO, int(fix["number"]), "dismiss wont-fix", author="octocat", author_association="OWNER"
    )
    app.sim.close(REPO, int(fix["number"]))
    app.settle()
    (receipt,) = receipts(app)
    assert (receipt.decision, receipt.reason, receipt.source) == ("dismissed", "wont-fix", "fix_pr")
    assert f"hindsight/fix-{sid}" not in app.sim.branches(REPO)
    assert f"#{fix['number']} (closed, recorded as dismissed)." in body_of(app, comment)
    other, other_sid, other_comment = planted(app)
    ask(app, other, other_comment)
    withdrawn = next(f for f in fix_pulls(app) if parse_fix_marker(f["body"]) == other_sid)
    app.sim.close(REPO, int(withdrawn["number"]))
    app.settle()
    assert len(receipts(app)) == 1
    assert f"hindsight/fix-{other_sid}" not in app.sim.branches(REPO)


def test_a_fix_pr_edited_by_others_still_decides_by_its_merge(app: Harness) -> None:
    number, _sid, comment = planted(app)
    ask(app, number, comment)
    (fix,) = fix_pulls(app)
    app.sim.synchronize(REPO, int(fix["number"]), author="octocat")
    app.sim.close(REPO, int(fix["number"]), merged=True, by="octocat")
    app.settle()
    (receipt,) = receipts(app)
    assert receipt.decision == "accepted"
    assert receipt.span == f"#{fix['number']} (edited by others before the merge)"


def test_a_bots_merge_of_a_fix_pr_decides_nothing(app: Harness) -> None:
    number, _sid, comment = planted(app)
    ask(app, number, comment)
    (fix,) = fix_pulls(app)
    app.sim.world.account("merge-queue[bot]", "Bot")
    app.sim.close(REPO, int(fix["number"]), merged=True, by="merge-queue[bot]")
    app.settle()
    assert receipts(app) == []


def test_a_merged_fix_pr_outranks_the_threads_own_signals(app: Harness) -> None:
    number, _sid, comment = planted(app)
    ask(app, number, comment, "dismiss wont-fix")
    assert current(app) == [("dismissed", "reply")]
    ask(app, number, comment)
    (fix,) = fix_pulls(app)
    app.sim.close(REPO, int(fix["number"]), merged=True, by="octocat")
    app.settle()
    assert current(app) == [("accepted", "fix_pr")]
    assert "accepted — by @octocat, from its fix PR" in body_of(app, comment)
    assert "a merged one stands" in body_of(app, comment) and "reply `undo`" not in body_of(
        app, comment
    )
    ask(app, number, comment, "dismiss false-positive")  # a later reply: the merge still stands
    app.sim.synchronize(REPO, number, author="octocat")  # and a write-back that re-reads it all
    app.settle()
    assert current(app) == [("accepted", "fix_pr")]
    assert "accepted — by @octocat, from its fix PR" in body_of(app, comment)


def test_a_refused_fix_pr_and_a_later_reply_the_latest_decides(app: Harness) -> None:
    number, _sid, comment = planted(app)
    ask(app, number, comment, "accept")
    ask(app, number, comment)
    (fix,) = fix_pulls(app)
    app.sim.advance_clock(5)
    app.sim.add_issue_comment(
        REPO, int(fix["number"]), "dismiss wont-fix", author="octocat", author_association="OWNER"
    )
    app.sim.close(REPO, int(fix["number"]))
    app.settle()
    assert current(app) == [("dismissed", "fix_pr")]
    app.sim.synchronize(REPO, number, author="octocat")  # the older `accept` is read again
    app.settle()
    assert current(app) == [("dismissed", "fix_pr")]
    ask(app, number, comment, "accept")  # a newer maintainer reply is the latest word
    assert current(app) == [("accepted", "reply")]


PROVEN = (
    "--- a/src/app.py\n+++ b/src/app.py\n@@ -2,2 +2,3 @@\n config = parse_config()\n"
    "+require(config)\n print(config)\n"
)


def test_a_proven_fix_is_applied_or_said_not_to_apply(app: Harness) -> None:
    number, sid, comment = planted(app, replacement=None)
    prove(app, sid, PROVEN)
    app.sim.reset_log()
    ask(app, number, comment)
    assert fix_requests(app) <= 6
    (fix,) = fix_pulls(app)
    after = app.sim.files_at(REPO, f"hindsight/fix-{sid}")["src/app.py"]
    assert after == SOURCE.replace("print", "require(config)\nprint")
    assert "proven fix's patch" in fix["body"]
    assert [f.filename for f in app.sim.pull_files(REPO, int(fix["number"]))] == ["src/app.py"]
    other, other_sid, other_comment = planted(app, replacement=None)
    prove(app, other_sid, PROVEN)
    head_ref = app.sim.pull(REPO, other)["head"]["ref"]
    app.sim.push(REPO, {"src/app.py": "import os\nconfig = load()\n"}, branch=head_ref)
    app.settle()
    ask(app, other, other_comment)
    (answer,) = answers(app, other_comment)
    assert "no longer matches the code" in answer and "patch is shown with" in answer
    assert len(fix_pulls(app)) == 1


def test_a_stored_patch_outside_the_suggestion_is_never_applied(app: Harness) -> None:
    """The patch is read strictly again when applied, whatever the store holds."""
    number, sid, comment = planted(app, replacement=None)
    prove(app, sid, PROVEN.replace("src/app.py", ".github/workflows/ci.yml"))
    ask(app, number, comment)
    (answer,) = answers(app, comment)
    assert "`.github/`" in answer and fix_pulls(app) == []
    assert not [r for r in app.sim.requests() if r.method == "POST" and "/git/" in r.path]
