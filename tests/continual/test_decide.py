"""Threads to decisions: who counts, which reply wins, and what fix PRs decide."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from continual.entry_keys import entry_key
from continual.markers import render_fix_marker, with_suggestion_marker
from continual.values import Decision, Reason, Source
from continual.writeback.authors import Author, is_maintainer
from continual.writeback.binding import Held
from continual.writeback.pull import ChangesSince, PullState, decide_pull
from continual.writeback.threads import (
    FixPull,
    Thread,
    ThreadComment,
    ThreadDecision,
    build_threads,
    decide_fix_pr,
    decide_thread,
)
from tests.support.store import stored_suggestion

SLUG = "hindsight"
BOT_LOGIN = "hindsight[bot]"
REPO = "acme/api"
KEY = entry_key("correctness", "Unchecked parse_config result")
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

BOT = Author(BOT_LOGIN, "Bot", "NONE", via_app=True)
OWNER = Author("olivia", "User", "OWNER")
MEMBER = Author("max", "User", "MEMBER")
COLLABORATOR = Author("cara", "User", "COLLABORATOR")
CONTRIBUTOR = Author("chris", "User", "CONTRIBUTOR")
STRANGER = Author("nina", "User", "NONE")
BOT_BY_TYPE = Author("helper", "Bot", "MEMBER")
BOT_BY_LOGIN = Author("renovate[bot]", "User", "MEMBER")
BOT_BY_APP = Author("max", "User", "MEMBER", via_app=True)


def suggestion(comment_id: int = 100, sid: str = "s1", author: Author = BOT) -> ThreadComment:
    body = with_suggestion_marker("Check the result of `parse_config`.", sid, KEY)
    return ThreadComment(comment_id, body, author, None, T0, path="src/app.py", line=12)


def reply(
    comment_id: int,
    body: str,
    author: Author = OWNER,
    *,
    to: int = 100,
    minutes: int = 1,
    edited: int | None = None,
) -> ThreadComment:
    created = T0 + timedelta(minutes=minutes)
    updated = None if edited is None else T0 + timedelta(minutes=edited)
    return ThreadComment(comment_id, body, author, to, created, updated, "src/app.py", 12)


def decide(*comments: ThreadComment, known: tuple[str, ...] = ("s1", "s2")) -> list[ThreadDecision]:
    state = PullState(SLUG, comments, tuple(stored_suggestion(sid) for sid in known), T0)
    return list(decide_pull(state).decisions)


# A push since the suggestion's head ("a" * 40) that changes its commented line (12).
CHANGE = ChangesSince(
    {"src/app.py": "@@ -11,2 +11,2 @@\n x = 1\n-y = parse_config()\n+y = parse_config() or {}"},
    ("olivia",),
    commits=("3f2a1c9" + "0" * 33,),
    base="a" * 40,
)


def decide_changed(*comments: ThreadComment) -> tuple[list[ThreadDecision], dict[str, Held]]:
    """The decisions, and the claims' states, once the commented lines changed since the
    suggestion; without that change a natural acceptance is only claimed."""
    known = (stored_suggestion("s1"),)
    state = PullState(SLUG, comments, known, T0, head_sha="b" * 40, changes=CHANGE)
    decided = decide_pull(state)
    unchanged = decide_pull(replace(state, head_sha="a" * 40, changes=None))
    assert not [d for d in unchanged.decisions if d.source is Source.REPLY and d.evidence]
    return list(decided.decisions), {sid: c.state for sid, c in unchanged.claims.items()}


# --- who counts -------------------------------------------------------------------------------


@pytest.mark.parametrize("author", [OWNER, MEMBER, COLLABORATOR])
def test_maintainers_decide(author: Author) -> None:
    [decision] = decide(suggestion(), reply(1, "accept", author))
    assert decision.decision is Decision.ACCEPTED
    assert decision.source is Source.REPLY
    assert decision.actor == author.login
    assert decision.reply_id == 1
    assert decision.rule == "grammar.accept"


@pytest.mark.parametrize("author", [CONTRIBUTOR, STRANGER])
def test_contributors_never_decide(author: Author) -> None:
    assert decide(suggestion(), reply(1, "accept", author)) == []


@pytest.mark.parametrize("author", [BOT_BY_TYPE, BOT_BY_LOGIN, BOT_BY_APP, BOT])
def test_bots_never_decide_by_any_of_the_three_signals(author: Author) -> None:
    assert not is_maintainer(author)
    assert decide(suggestion(), reply(1, "dismiss false-positive", author)) == []


def test_is_maintainer() -> None:
    assert is_maintainer(Author("x", "User", "member"))
    assert not is_maintainer(Author("x", "User", "FIRST_TIME_CONTRIBUTOR"))
    assert not is_maintainer(Author("dependabot[BOT]", "User", "OWNER"))


@given(
    st.sampled_from(["accept", "fixed", "dismiss wont-fix", "Good catch, fixed.", "By design."]),
    st.sampled_from(["Bot", "User"]),
    st.booleans(),
    st.booleans(),
)
def test_bots_never_decide_whatever_they_write(
    body: str, kind: str, bracket_login: bool, via_app: bool
) -> None:
    login = "helper[bot]" if bracket_login else "helper"
    author = Author(login, kind, "OWNER", via_app=via_app)
    result = decide(suggestion(), reply(1, body, author))
    assert result == [] or (kind == "User" and not bracket_login and not via_app)


# --- what is a suggestion -----------------------------------------------------------------------


def test_a_forged_marker_in_a_human_comment_is_ignored() -> None:
    forged = suggestion(200, "s1", author=OWNER)
    assert build_threads([forged], bot_login=BOT_LOGIN, known_suggestion_ids={"s1"}) == []
    assert decide(forged, reply(1, "accept", to=200)) == []


def test_a_marker_from_a_user_account_named_like_the_bot_is_ignored() -> None:
    impostor = suggestion(200, "s1", author=Author(BOT_LOGIN, "User", "NONE"))
    assert decide(impostor, reply(1, "accept", to=200)) == []


def test_an_unknown_suggestion_id_is_ignored() -> None:
    assert decide(suggestion(100, "s9"), reply(1, "accept")) == []


def test_a_malformed_marker_is_ignored() -> None:
    broken = ThreadComment(100, "text <!-- hindsight:suggestion id=s1 -->", BOT, None, T0)
    assert build_threads([broken], bot_login=BOT_LOGIN, known_suggestion_ids={"s1"}) == []


def test_threads_collect_only_their_own_replies() -> None:
    comments = [
        suggestion(100, "s1"),
        suggestion(300, "s2"),
        reply(1, "hello", to=100),
        reply(2, "world", to=300),
        reply(3, "unrelated", to=999),
        ThreadComment(4, "a top-level comment", OWNER, None, T0),
    ]
    threads = build_threads(comments, bot_login=BOT_LOGIN, known_suggestion_ids={"s1", "s2"})
    assert [(t.suggestion_id, t.entry_key, t.comment_id) for t in threads] == [
        ("s1", KEY, 100),
        ("s2", KEY, 300),
    ]
    assert [r.id for r in threads[0].replies] == [1]
    assert [r.id for r in threads[1].replies] == [2]


def test_each_suggestion_gets_its_own_decision() -> None:
    decisions = decide(
        suggestion(100, "s1"),
        suggestion(300, "s2"),
        reply(1, "accept", to=100),
        reply(2, "Out of scope for this PR.", to=300),
    )
    assert [(d.suggestion_id, d.decision, d.reason) for d in decisions] == [
        ("s1", Decision.ACCEPTED, None),
        ("s2", Decision.DISMISSED, Reason.OUT_OF_SCOPE),
    ]
    assert decisions[1].rule == "natural.out-of-scope"
    assert decisions[1].span == "Out of scope"


# --- which reply wins ---------------------------------------------------------------------------


def test_discussion_decides_nothing() -> None:
    assert decide(suggestion(), reply(1, "Why?"), reply(2, "dismiss", minutes=2)) == []


def test_the_latest_decision_bearing_reply_wins() -> None:
    [decision] = decide(
        suggestion(),
        reply(1, "accept", minutes=1),
        reply(2, "dismiss wont-fix", MEMBER, minutes=5),
        reply(3, "thanks, makes sense", minutes=9),
    )
    assert (decision.decision, decision.reason) == (Decision.DISMISSED, Reason.WONT_FIX)
    assert decision.reply_id == 2
    assert decision.actor == "max"
    assert decision.at == T0 + timedelta(minutes=5)


def test_agreement_alone_accepts_when_it_answers_the_suggestion_and_the_lines_changed() -> None:
    # Agreement without a change is only claimed; the change since the suggestion binds it.
    assert decide(suggestion(), reply(1, "Good catch!", minutes=1)) == []
    [decision], claims = decide_changed(suggestion(), reply(1, "Good catch!", minutes=1))
    assert (decision.decision, decision.rule) == (Decision.ACCEPTED, "natural.agreed")
    assert (decision.evidence, claims) == ("lines-changed", {"s1": Held.CLAIMED})
    # The replier's own earlier words and a bot's chatter do not change whom it answers.
    [decision], _ = decide_changed(
        suggestion(),
        reply(1, "Looking at this now", minutes=1),
        reply(2, "ci passed", BOT_BY_LOGIN, minutes=2),
        reply(3, "You're right, will fix.", minutes=3),
    )
    assert (decision.decision, decision.reply_id) == (Decision.ACCEPTED, 3)


def test_agreement_with_a_colleague_does_not_accept_the_suggestion() -> None:
    # "Makes sense" after a colleague's refusal agrees with the refusal.
    [decision] = decide(
        suggestion(),
        reply(1, "No — the list is copied before the loop, so this is fine.", MEMBER, minutes=1),
        reply(2, "Makes sense, thanks!", minutes=2),
    )
    assert (decision.decision, decision.reply_id) == (Decision.DISMISSED, 1)
    # A contributor's question is someone else speaking too: the owner's "Agreed." answers it.
    assert (
        decide(
            suggestion(),
            reply(1, "Should we drop it?", CONTRIBUTOR),
            reply(2, "Agreed.", minutes=2),
        )
        == []
    )


def test_accept_then_later_dismiss_then_accept_again() -> None:
    thread = (
        suggestion(),
        reply(1, "accept", minutes=1),
        reply(2, "dismiss wont-fix", minutes=2),
        reply(3, "Good catch, fixed in 3f2a1c9.", minutes=3),
    )
    # The latest reply claims the fix: it takes back the typed dismissal, but accepts only once
    # the lines changed, in the commit it names.
    assert decide(*thread) == []
    [decision], claims = decide_changed(*thread)
    assert decision.decision is Decision.ACCEPTED
    assert decision.rule == "natural.fixed-in-sha"
    assert (decision.commit, claims) == (CHANGE.commits[0], {"s1": Held.CLAIMED})


def test_ties_on_time_are_broken_by_id() -> None:
    [decision] = decide(
        suggestion(),
        reply(8, "dismiss style", minutes=1),
        reply(7, "accept", minutes=1),
    )
    assert decision.reply_id == 8


def test_a_later_contributor_reply_does_not_override_a_maintainer() -> None:
    [decision] = decide(
        suggestion(),
        reply(1, "accept", minutes=1),
        reply(2, "dismiss false-positive", CONTRIBUTOR, minutes=2),
    )
    assert decision.decision is Decision.ACCEPTED


def test_an_edited_reply_counts_as_it_reads_now() -> None:
    # "accept" was edited into a refusal: the body is what it says now.
    edited = reply(1, "dismiss not-applicable", minutes=1, edited=30)
    [decision] = decide(suggestion(), edited)
    assert (decision.decision, decision.reason) == (Decision.DISMISSED, Reason.NOT_APPLICABLE)
    assert decision.at == T0 + timedelta(minutes=30)


def test_an_edit_does_not_move_a_reply_later_in_the_thread() -> None:
    [decision] = decide(
        suggestion(),
        reply(1, "accept", minutes=1, edited=60),
        reply(2, "dismiss duplicate", minutes=2),
    )
    assert decision.reason is Reason.DUPLICATE


def test_a_deleted_reply_is_simply_absent() -> None:
    before = decide(suggestion(), reply(1, "accept", minutes=1), reply(2, "wontfix", minutes=2))
    assert before[0].decision is Decision.DISMISSED
    after = decide(suggestion(), reply(1, "accept", minutes=1))
    assert after[0].decision is Decision.ACCEPTED
    assert decide(suggestion()) == []


def test_decide_thread_directly() -> None:
    thread = Thread("s1", KEY, 100, (reply(1, "仕様です"),))
    decision = decide_thread(thread, app_slug=SLUG)
    assert decision is not None
    assert (decision.decision, decision.reason) == (Decision.DISMISSED, Reason.NOT_APPLICABLE)
    assert decision.rule == "natural.ja.ito"


# --- fix PRs ------------------------------------------------------------------------------------


def fix_pull(
    *,
    merged: bool = False,
    closed: bool = True,
    author: Author = BOT,
    repository: str = REPO,
    body: str | None = None,
    comments: tuple[ThreadComment, ...] = (),
) -> FixPull:
    return FixPull(
        number=42,
        repository=repository,
        body=body if body is not None else f"Fixes the finding.\n\n{render_fix_marker('s1')}",
        author=author,
        merged=merged,
        closed=closed,
        merged_at=T0 if merged else None,
        closed_at=T0 if closed else None,
        merged_by="olivia" if merged else None,
        comments=comments,
    )


def fix(pull: FixPull) -> ThreadDecision | None:
    return decide_fix_pr(
        pull, bot_login=BOT_LOGIN, app_slug=SLUG, suggestion_repositories={"s1": REPO}
    )


@pytest.mark.parametrize("author", [BOT, OWNER, COLLABORATOR])
def test_a_merged_fix_pr_accepts(author: Author) -> None:
    decision = decide_fix_pr(
        fix_pull(merged=True, author=author),
        bot_login=BOT_LOGIN,
        app_slug=SLUG,
        suggestion_repositories={"s1": REPO},
    )
    assert decision is not None
    assert (decision.decision, decision.source) == (Decision.ACCEPTED, Source.FIX_PR)
    assert decision.suggestion_id == "s1"
    assert decision.actor == "olivia"
    assert decision.rule == "fix_pr.merged"


@pytest.mark.parametrize("author", [CONTRIBUTOR, BOT_BY_LOGIN, Author("other[bot]", "Bot", "NONE")])
def test_a_fix_pr_opened_by_anyone_else_decides_nothing(author: Author) -> None:
    assert fix(fix_pull(merged=True, author=author)) is None


def test_a_fix_pr_in_another_repository_decides_nothing() -> None:
    assert fix(fix_pull(merged=True, repository="acme/web")) is None


def test_a_fix_pr_for_an_unknown_suggestion_or_without_marker_decides_nothing() -> None:
    assert fix(fix_pull(merged=True, body=render_fix_marker("s9"))) is None
    assert fix(fix_pull(merged=True, body="Fixes s1")) is None


def test_a_fix_pr_closed_with_a_maintainer_typed_refusal_dismisses() -> None:
    refusal = reply(5, "dismiss wont-fix", MEMBER, to=0, minutes=3)
    decision = fix(fix_pull(comments=(refusal,)))
    assert decision is not None
    assert decision.decision is Decision.DISMISSED
    assert decision.reason is Reason.WONT_FIX
    assert decision.source is Source.FIX_PR
    assert decision.reply_id == 5


def test_a_fix_pr_closed_without_a_typed_refusal_decides_nothing() -> None:
    assert fix(fix_pull()) is None
    natural = reply(5, "This is intentional, closing.", OWNER, to=0)
    assert fix(fix_pull(comments=(natural,))) is None
    by_contributor = reply(6, "dismiss wont-fix", CONTRIBUTOR, to=0)
    assert fix(fix_pull(comments=(by_contributor,))) is None
    later_accept = (
        reply(7, "dismiss wont-fix", OWNER, to=0, minutes=1),
        reply(8, "accept", OWNER, to=0, minutes=2),
    )
    assert fix(fix_pull(comments=later_accept)) is None


def test_an_open_fix_pr_decides_nothing() -> None:
    refusal = reply(5, "dismiss wont-fix", MEMBER, to=0)
    assert fix(fix_pull(closed=False, comments=(refusal,))) is None
