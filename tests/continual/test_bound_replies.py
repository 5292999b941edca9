"""Replies bound to evidence across one pull request: what `decide_pull` decides, claims and
plans to read (docs/writeback.md, "Verdicts bound to evidence")."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from continual.entry_keys import entry_key
from continual.markers import with_suggestion_marker
from continual.replies import Binding, Deferral, Verdict
from continual.values import Decision, Reason, Source
from continual.writeback.authors import Author
from continual.writeback.binding import Held
from continual.writeback.pull import ChangesSince, PullState, decide_pull, plan_reads
from continual.writeback.threads import ThreadComment
from tests.support.store import TITLE, stored_suggestion

SLUG = "hindsight"
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
OLD, HEAD = "a" * 40, "c" * 40
FIX_SHA = "3f2a1c9" + "d" * 33
BOT = Author(f"{SLUG}[bot]", "Bot", "NONE", via_app=True)
OWNER = Author("octocat", "User", "OWNER")
AUTHOR = Author("newcomer", "User", "CONTRIBUTOR")
AT_LINE = "@@ -11,2 +11,2 @@\n x = 1\n-y = parse_config()\n+y = parse_config() or {}"
FAR_AWAY = "@@ -80,1 +80,2 @@\n z = 3\n+w = 4"
KNOWN = (stored_suggestion("s1"),)  # posted on OLD, at src/app.py line 12


def comment() -> ThreadComment:
    body = with_suggestion_marker("Check it.", "s1", entry_key("correctness", TITLE))
    return ThreadComment(100, body, BOT, None, T0, path="src/app.py", line=12)


def reply(comment_id: int, body: str, author: Author = OWNER) -> ThreadComment:
    return ThreadComment(comment_id, body, author, 100, T0 + timedelta(minutes=comment_id))


def pull(*replies: ThreadComment, patch: str | None = None, **fields: object) -> PullState:
    changes = None
    if patch is not None:
        changes = ChangesSince({"src/app.py": patch}, ("newcomer",), commits=(FIX_SHA,), base=OLD)
    values: dict[str, object] = {"head_sha": HEAD, "pr_author": AUTHOR, "changes": changes}
    state = PullState(SLUG, (comment(), *replies), KNOWN, T0 + timedelta(days=1))
    return replace(state, **{**values, **fields})  # type: ignore[arg-type]


def held(state: PullState, **judged: Verdict | Deferral) -> dict[str, Held]:
    decided = decide_pull(state, judged={int(k[1:]): v for k, v in judged.items()})
    return {sid: claim.state for sid, claim in decided.claims.items()}


def test_fixed_with_a_change_at_its_lines_accepts_with_the_commit() -> None:
    [decision] = decide_pull(pull(reply(1, "Good catch, fixed."), patch=AT_LINE)).decisions
    assert (decision.decision, decision.source, decision.evidence, decision.commit) == (
        Decision.ACCEPTED,
        Source.REPLY,
        "lines-changed",
        FIX_SHA,
    )


def test_fixed_with_no_change_is_claimed_then_dropped_at_the_merge() -> None:
    waiting = pull(reply(1, "Good catch, fixed."), patch=FAR_AWAY)  # other lines only
    assert decide_pull(waiting).decisions == ()
    assert held(waiting) == {"s1": Held.CLAIMED}
    merged = replace(waiting, closed=True)
    assert decide_pull(merged).decisions == ()
    assert held(merged) == {"s1": Held.DROPPED}
    # Closed on the suggestion's own head: nothing changed, no comparison needed.
    same_head = pull(reply(1, "Fixed."), head_sha=OLD, closed=True)
    assert (decide_pull(same_head).decisions, held(same_head)) == ((), {"s1": Held.DROPPED})


def test_a_history_rewritten_before_the_merge_binds_nothing() -> None:
    """The compare answered Gone (the old head is unreachable): no evidence either way."""
    rewritten = pull(reply(1, "Fixed."), closed=True)  # changes None
    assert decide_pull(rewritten).decisions == ()
    assert held(rewritten) == {"s1": Held.CLAIMED}
    argued = Verdict(
        Decision.DISMISSED, Reason.NOT_APPLICABLE, "judge:j", "by design", Binding.AT_MERGE
    )
    assert held(pull(reply(1, "The caller owns that value."), closed=True), r1=argued) == {
        "s1": Held.ARGUED
    }


def test_a_reply_naming_a_commit_that_does_not_exist_is_no_evidence() -> None:
    state = pull(reply(1, "Fixed in 1234567."), patch=FAR_AWAY, closed=True)
    assert decide_pull(state).decisions == ()
    assert held(state) == {"s1": Held.DROPPED}
    [changed] = decide_pull(replace(state, changes=pull(patch=AT_LINE).changes)).decisions
    assert changed.commit == FIX_SHA  # the comparison's commit, not the one named


def test_an_argued_dismissal_decides_at_the_close_when_the_lines_stayed() -> None:
    argued = Verdict(Decision.DISMISSED, Reason.STYLE, "judge:j", "rather keep", Binding.AT_MERGE)
    body = "The caller owns that value."
    open_state = pull(reply(1, body), patch=FAR_AWAY)
    assert held(open_state, r1=argued) == {"s1": Held.ARGUED}
    [decision] = decide_pull(replace(open_state, closed=True), judged={1: argued}).decisions
    assert (decision.decision, decision.reason, decision.evidence) == (
        Decision.DISMISSED,
        Reason.STYLE,
        "lines-kept",
    )
    changed = replace(open_state, closed=True, changes=pull(patch=AT_LINE).changes)
    assert decide_pull(changed, judged={1: argued}).decisions == ()
    assert held(changed, r1=argued) == {"s1": Held.DROPPED}


def test_a_deferral_decides_nothing_whoever_read_it() -> None:
    state = pull(reply(1, "Let's do that in a follow-up PR."), patch=AT_LINE, closed=True)
    assert (decide_pull(state).decisions, held(state)) == ((), {"s1": Held.DEFERRED})
    judged = pull(reply(1, "Parking this one."), patch=AT_LINE)
    later = Deferral("judge:j", "Parking this one")
    assert held(judged, r1=later) == {"s1": Held.DEFERRED}


def test_a_judge_that_accepts_a_deferral_is_stopped() -> None:
    """A judge over-decides: it reads "accepted" into a deferral. The binding stops it, with the
    lines changed or not."""
    over = Verdict(Decision.ACCEPTED, None, "judge:j", "later", Binding.EVIDENCE)
    for patch in (AT_LINE, FAR_AWAY):
        state = pull(reply(1, "Sure, we can handle that later."), patch=patch)
        assert decide_pull(state, judged={1: over}).decisions == ()
        assert held(state, r1=over) == {"s1": Held.DEFERRED}


def test_a_typed_command_decides_at_once_whatever_the_code() -> None:
    [decision] = decide_pull(pull(reply(1, "accept"), patch=FAR_AWAY)).decisions
    assert (decision.decision, decision.evidence) == (Decision.ACCEPTED, None)
    [refused] = decide_pull(pull(reply(1, "dismiss style"), patch=AT_LINE)).decisions
    assert refused.decision is Decision.DISMISSED


def test_a_claim_lets_a_weaker_signal_decide() -> None:
    """A claim decides nothing, so a maintainer's 👍 still does (and the claim is not kept)."""
    from continual.writeback.signals import Reaction

    state = pull(reply(1, "Fixed."), patch=FAR_AWAY)
    thumbs = {100: (Reaction("octocat", False, "+1", T0 + timedelta(hours=1)),)}
    decided = decide_pull(replace(state, reactions=thumbs))
    assert [d.source for d in decided.decisions] == [Source.REACTION]
    assert decided.claims == {}


def test_a_resolution_is_evidence_only_from_a_maintainer_latest_state() -> None:
    state = pull(reply(1, "Fixed."), patch=FAR_AWAY)
    by_owner = decide_pull(replace(state, resolved={100: "octocat"}))
    assert (by_owner.resolved, by_owner.decisions) == ({"s1": "octocat"}, ())
    assert decide_pull(replace(state, resolved={100: "newcomer"})).resolved == {}  # PR author
    assert decide_pull(replace(state, resolved={100: "ci[bot]"})).resolved == {}
    assert decide_pull(state).resolved == {}  # resolved, then opened again: the latest counts


def test_a_reply_waiting_for_evidence_asks_for_the_one_comparison() -> None:
    waiting = pull(reply(1, "Fixed."))
    assert plan_reads(waiting).comparison_base == OLD
    assert plan_reads(waiting).signals is True  # a claim leaves the thread open to other signals
    typed = pull(reply(1, "accept"))
    assert plan_reads(typed).comparison_base is None
    on_head = pull(reply(1, "Fixed."), head_sha=OLD)
    assert plan_reads(on_head).comparison_base is None  # nothing can have changed since
    deferred = pull(reply(1, "In a follow-up PR."))
    assert plan_reads(deferred).comparison_base is None


def test_with_a_judge_an_undecided_reply_asks_for_the_comparison_too() -> None:
    """The judge answers after the reads are planned; its acceptance then needs the evidence."""
    undecided = pull(reply(1, "The caller owns that value."))
    assert plan_reads(undecided).comparison_base is None
    assert plan_reads(replace(undecided, judging=True)).comparison_base == OLD
    # A reply the rules decide at once leaves nothing for the judge to read.
    typed = pull(reply(1, "dismiss style"), judging=True)
    assert plan_reads(typed).comparison_base is None
