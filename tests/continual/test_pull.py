"""One pull request decided from plain values: which comparison to read, applied suggestions, threads."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from continual.entry_keys import entry_key
from continual.markers import with_suggestion_marker
from continual.stored import StoredSuggestion
from continual.values import Decision, Source
from continual.writeback.authors import Author
from continual.writeback.pull import ChangesSince, PullState, decide_pull, plan_reads
from continual.writeback.threads import ThreadComment
from tests.support.store import TITLE, stored_suggestion

SLUG = "hindsight"
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
READ_AT = T0 + timedelta(days=1)
OLD_HEAD, NEWER_HEAD, HEAD = "a" * 40, "b" * 40, "c" * 40
BOT = Author(f"{SLUG}[bot]", "Bot", "NONE", via_app=True)
OWNER = Author("octocat", "User", "OWNER")
CONTRIBUTOR = Author("drive-by", "User", "CONTRIBUTOR")
BLOCK = "    if config is None:\n        raise ValueError('no config')"
PATCH = (
    "@@ -1,2 +1,4 @@\n config = parse_config()\n"
    "+    if config is None:\n+        raise ValueError('no config')\n print(config)"
)


def comment(comment_id: int, sid: str) -> ThreadComment:
    body = with_suggestion_marker("Check it.", sid, entry_key("correctness", TITLE))
    return ThreadComment(comment_id, body, BOT, None, T0, path="src/app.py", line=2)


def reply(comment_id: int, body: str, to: int, author: Author = OWNER) -> ThreadComment:
    return ThreadComment(comment_id, body, author, to, T0 + timedelta(minutes=comment_id))


def pull(
    *comments: ThreadComment,
    known: tuple[StoredSuggestion, ...],
    pr_author: Author | None = OWNER,
    head_sha: str | None = HEAD,
) -> PullState:
    return PullState(SLUG, comments, known, READ_AT, head_sha=head_sha, pr_author=pr_author)


def with_block(sid: str, head_sha: str = OLD_HEAD, created_ms: int = 0) -> StoredSuggestion:
    return stored_suggestion(sid, replacement=BLOCK, head_sha=head_sha, created_ms=created_ms)


def test_the_oldest_earlier_head_with_replacement_code_is_the_base() -> None:
    known = (
        with_block("s2", head_sha=NEWER_HEAD, created_ms=20),
        with_block("s1", head_sha=OLD_HEAD, created_ms=10),
        stored_suggestion("s0", head_sha="0" * 40, created_ms=0),  # no replacement code
        with_block("s3", head_sha=HEAD, created_ms=0),  # posted on the current head
    )
    assert plan_reads(pull(comment(100, "s1"), known=known)).comparison_base == OLD_HEAD


def test_no_comparison_without_a_head_a_maintainer_or_a_replacement() -> None:
    known = (with_block("s1"),)
    assert plan_reads(pull(known=known, head_sha=None)).comparison_base is None
    assert plan_reads(pull(known=known, pr_author=CONTRIBUTOR)).comparison_base is None
    assert plan_reads(pull(known=(stored_suggestion("s1"),))).comparison_base is None
    assert plan_reads(pull(known=(with_block("s1", head_sha=HEAD),))).comparison_base is None


def test_a_maintainer_reply_makes_a_comparison_worth_reading() -> None:
    state = pull(comment(100, "s1"), reply(1, "looking", 100), known=(with_block("s1"),))
    assert plan_reads(replace(state, pr_author=CONTRIBUTOR)).comparison_base == OLD_HEAD


def test_a_block_a_maintainer_committed_is_accepted_as_applied() -> None:
    state = pull(comment(100, "s1"), known=(with_block("s1"),))
    changes = ChangesSince({"src/app.py": PATCH}, ("drive-by", "octocat"))
    [decision] = decide_pull(replace(state, changes=changes)).decisions
    assert (decision.suggestion_id, decision.decision, decision.source) == (
        "s1",
        Decision.ACCEPTED,
        Source.APPLIED,
    )
    assert (decision.rule, decision.actor, decision.at) == (
        "applied.suggestion-block",
        "octocat",
        READ_AT,
    )
    assert decision.span == "    if config is None:"
    assert decision.reply_id is None


def test_no_applied_decision_without_the_changes_or_a_maintainers_commit() -> None:
    state = pull(comment(100, "s1"), known=(with_block("s1"),))
    assert decide_pull(state).decisions == ()
    by_contributor = ChangesSince({"src/app.py": PATCH}, ("drive-by",))
    assert decide_pull(replace(state, changes=by_contributor)).decisions == ()
    elsewhere = ChangesSince({"src/other.py": PATCH}, ("octocat",))
    assert decide_pull(replace(state, changes=elsewhere)).decisions == ()


def test_one_decision_per_thread_the_reply_before_the_applied_block() -> None:
    state = pull(
        comment(100, "s1"),
        comment(200, "s2"),
        reply(1, "accept", 200),
        reply(2, "dismiss style", 100),
        known=(with_block("s1"), stored_suggestion("s2")),
    )
    changes = ChangesSince({"src/app.py": PATCH}, ("octocat",))
    decided = decide_pull(replace(state, changes=changes))
    assert [(d.suggestion_id, d.source, d.decision) for d in decided.decisions] == [
        ("s1", Source.REPLY, "dismissed"),
        ("s2", Source.REPLY, "accepted"),
    ]
    applied = decide_pull(replace(state, comments=state.comments[:3], changes=changes))
    assert [(d.suggestion_id, d.source) for d in applied.decisions] == [
        ("s1", Source.APPLIED),
        ("s2", Source.REPLY),
    ]


def test_threads_read_are_reported_for_retraction() -> None:
    """A thread read with no decision (its reply deleted) is listed; an unseen suggestion is not."""
    state = pull(
        comment(100, "s1"),
        comment(200, "s2"),
        reply(1, "accept", 200),
        known=(stored_suggestion("s1"), stored_suggestion("s2"), stored_suggestion("s3")),
    )
    decided = decide_pull(state)
    assert decided.threads == ("s1", "s2")
    assert [d.suggestion_id for d in decided.decisions] == ["s2"]


def test_no_comparison_for_a_thread_a_reply_decides() -> None:
    undecided = pull(comment(100, "s1"), known=(with_block("s1"),))
    assert plan_reads(undecided).comparison_base is not None
    replied = pull(comment(100, "s1"), reply(1, "wontfix", 100), known=(with_block("s1"),))
    assert plan_reads(replied).comparison_base is None, (
        "a reply outranks anything the comparison finds"
    )
