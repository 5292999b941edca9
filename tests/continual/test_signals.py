"""Reactions, `undo`, an author's merged fix and resolved threads, as pure rules on plain values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from continual.markers import with_suggestion_marker
from continual.patches import changed_new_lines
from continual.replies import TYPED_REASONS, classify_reply, is_undo
from continual.stored import StoredSuggestion
from continual.values import Reason, Source
from continual.writeback.authors import Author
from continual.writeback.pull import ChangesSince, PullState, decide_pull, plan_reads
from continual.writeback.signals import Merge, Reaction, touches
from continual.writeback.threads import ThreadComment

SLUG = "hindsight"
BOT = Author(f"{SLUG}[bot]", "Bot", "NONE")
OWNER = Author("octocat", "User", "OWNER")
CONTRIBUTOR = Author("newcomer", "User", "CONTRIBUTOR")
T0 = datetime(2026, 1, 1, tzinfo=UTC)
PATCH = "@@ -10,3 +10,4 @@\n a\n b\n+c\n d"


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def suggestion(sid: str = "s1", head: str = "old") -> StoredSuggestion:
    return StoredSuggestion(
        id=sid, account_id=1, repository_id=1, pr=7, head_sha=head, path="src/app.py", line=12,
        seat="alpha", lab="lab", lens="correctness", title="T", entry_key="lesson/t-0123456789",
        created_ms=0, comment_id=100,
    )  # fmt: skip


def head_comment() -> ThreadComment:
    body = with_suggestion_marker("**T**", "s1", "lesson/t-0123456789")
    return ThreadComment(100, body, BOT, None, at(0))


def reply(cid: int, body: str, who: Author, seconds: int) -> ThreadComment:
    return ThreadComment(cid, body, who, 100, at(seconds))


def state(*replies: ThreadComment, **options: object) -> PullState:
    return PullState(
        app_slug=SLUG,
        comments=(head_comment(), *replies),
        known=(suggestion(),),
        read_at=at(1000),
        head_sha="new",
        **options,  # type: ignore[arg-type]
    )


def thumbs(content: str, login: str = "octocat", seconds: int = 10, bot: bool = False) -> Reaction:
    return Reaction(login, bot, content, at(seconds))


def test_changed_lines_in_new_file_numbers() -> None:
    assert changed_new_lines(PATCH) == {12}
    assert changed_new_lines("@@ -5,2 +5,1 @@\n x\n-y") == {6}
    assert touches(PATCH, 15) and not touches(PATCH, 16) and not touches(None, 12)
    assert touches(PATCH, None), "a comment on the whole file: any change counts"


def test_latest_maintainer_reaction_decides_and_bots_never() -> None:
    reactions = {
        100: (thumbs("+1", seconds=10), thumbs("-1", seconds=20), thumbs("-1", "x[bot]", 30, True))
    }
    decided = decide_pull(state(reply(101, "hm", OWNER, 5), reactions=reactions))
    (decision,) = decided.decisions
    assert (decision.decision, decision.reason, decision.source, decision.rule) == (
        "dismissed", Reason.UNSPECIFIED, Source.REACTION, "reaction.thumbs-down",
    )  # fmt: skip


def test_reactors_nobody_vouches_for_are_asked_about_bots_never() -> None:
    reactions = {
        100: (thumbs("+1", "quiet", 10), thumbs("-1", "x[bot]", 20, True), thumbs("eyes", "y", 30))
    }
    assert plan_reads(state(reactions=reactions)).unknown_actors == ("quiet",)
    assert decide_pull(state(reactions=reactions)).decisions == ()
    vouched = state(reactions=reactions, maintainers=frozenset({"quiet"}))
    assert [d.actor for d in decide_pull(vouched).decisions] == ["quiet"]


def test_a_reply_outranks_a_later_reaction() -> None:
    reactions = {100: (thumbs("+1", seconds=50),)}
    (decision,) = decide_pull(state(reply(101, "wontfix", OWNER, 5), reactions=reactions)).decisions
    assert decision.source is Source.REPLY and decision.decision == "dismissed"


def test_undo_clears_and_only_later_signals_count() -> None:
    replies = (reply(101, "accept", OWNER, 5), reply(102, "@hindsight undo", OWNER, 20))
    decided = decide_pull(state(*replies, reactions={100: (thumbs("+1", seconds=10),)}))
    assert decided.decisions == () and decided.undone == ("s1",)
    later = decide_pull(state(*replies, reactions={100: (thumbs("+1", seconds=30),)}))
    assert [d.source for d in later.decisions] == [Source.REACTION]
    contributor = decide_pull(
        state(reply(101, "accept", OWNER, 5), reply(102, "undo", CONTRIBUTOR, 9))
    )
    assert [d.decision for d in contributor.decisions] == ["accepted"]


@pytest.mark.parametrize(
    ("text", "undo"),
    [("undo", True), ("/undo", True), ("@hindsight undo.", True), ("@someone undo", False),
     ("undo the rename please", False), ("> undo\nno", False)],
)  # fmt: skip
def test_undo_grammar(text: str, undo: bool) -> None:
    assert is_undo(text, app_slug=SLUG) is undo
    assert classify_reply(text, app_slug=SLUG) is None, "undo is never a verdict itself"


def author_fix(*replies: ThreadComment, merge: Merge | None, patch: str = PATCH) -> PullState:
    return state(
        *replies,
        pr_author=CONTRIBUTOR,
        merge=merge,
        changes=ChangesSince({"src/app.py": patch}, ("newcomer",)),
    )


def test_an_authors_fix_merged_by_a_person_and_what_undoes_it() -> None:
    merge = Merge("octocat", False, at(100))
    (decision,) = decide_pull(
        author_fix(reply(101, "Fixed, thanks!", CONTRIBUTOR, 5), merge=merge)
    ).decisions
    assert (decision.source, decision.actor, decision.reply_id) == (
        Source.MERGED_AUTHOR_FIX,
        "octocat",
        101,
    )
    taken_back = author_fix(
        reply(101, "Fixed, thanks!", CONTRIBUTOR, 5),
        reply(102, "wontfix", CONTRIBUTOR, 9),
        merge=merge,
    )
    assert decide_pull(taken_back).decisions == ()
    assert decide_pull(author_fix(reply(101, "Fixed.", CONTRIBUTOR, 5), merge=None)).decisions == ()
    bot = Merge("queue[bot]", True, at(100))
    assert decide_pull(author_fix(reply(101, "Fixed.", CONTRIBUTOR, 5), merge=bot)).decisions == ()
    far = "@@ -40,1 +40,2 @@\n x\n+y"
    assert (
        decide_pull(
            author_fix(reply(101, "Fixed.", CONTRIBUTOR, 5), merge=merge, patch=far)
        ).decisions
        == ()
    )


def test_a_resolved_thread_is_evidence_never_a_decision() -> None:
    decided = decide_pull(state(resolved={100: "octocat"}))
    assert decided.decisions == () and decided.resolved == {"s1": "octocat"}


def test_unspecified_is_no_typed_reason() -> None:
    assert Reason.UNSPECIFIED not in set(TYPED_REASONS.values())
    assert classify_reply("dismiss unspecified", app_slug=SLUG) is None


def test_no_one_is_asked_about_a_thread_a_reply_decides() -> None:
    reactions = {100: (thumbs("+1", "quiet", 10),), 999: (thumbs("+1", "elsewhere", 10),)}
    assert (
        plan_reads(state(reply(101, "accept", OWNER, 5), reactions=reactions)).unknown_actors == ()
    )
    assert plan_reads(state(reactions=reactions)).unknown_actors == ("quiet",), "only our threads"
