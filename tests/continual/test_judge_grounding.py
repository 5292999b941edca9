"""The judge's pure side: which replies it is asked about, what its answers may decide, what is kept."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import Engine, insert, select

from continual.judge import (
    CONTRACT,
    Category,
    JudgeAnswer,
    Judgement,
    Outcome,
    Revision,
    ground,
    judgements,
    keep,
    undecided_replies,
)
from continual.replies import Binding, Deferral, Verdict
from continual.tables import JudgeVerdictRow
from continual.values import Decision, Reason, Source
from continual.writeback.authors import Author
from continual.writeback.binding import Held
from continual.writeback.pull import decide_pull
from continual.writeback.threads import ThreadComment
from tests.continual.test_pull import CONTRIBUTOR, T0, comment, pull, reply
from tests.support.store import ACCOUNT_ID, OTHER_REPO_ID, REPO_ID, seed_tenant, stored_suggestion

UNDECIDED = "I went with the approach from the other module in the end."
BOT_REPLY = Author("ci-helper[bot]", "Bot", "MEMBER")
KNOWN = (stored_suggestion("s1"), stored_suggestion("s2"))


def asked(*comments: ThreadComment) -> list[int]:
    return [q.reply.id for q in undecided_replies(pull(*comments, known=KNOWN))]


def test_only_maintainers_undecided_replies_are_asked_newest_first() -> None:
    assert asked(
        comment(100, "s1"),
        reply(1, UNDECIDED, 100),
        reply(2, UNDECIDED, 100, author=CONTRIBUTOR),
        reply(3, UNDECIDED, 100, author=BOT_REPLY),
        reply(4, "   ", 100),
        comment(200, "s2"),
        reply(5, "Let me look at the tracing output first.", 200),
        reply(6, UNDECIDED, 999),  # not in a thread of ours
    ) == [5, 1]


def test_replies_the_rules_read_are_never_asked() -> None:
    assert asked(comment(100, "s1"), reply(1, "accept", 100)) == []
    assert asked(comment(100, "s1"), reply(1, "Done, fixed in 3f2a1c.", 100)) == []
    # A typed dismissal without its reason decides nothing, and is not the judge's to read.
    assert asked(comment(100, "s1"), reply(1, "dismiss", 100)) == []


def test_a_deferral_the_rules_read_is_never_asked() -> None:
    """The rules' deferral outranks whatever the judge could say of the same reply, and of any
    earlier one."""
    deferral = "Good point, let's do that in a follow-up PR."
    assert asked(comment(100, "s1"), reply(1, deferral, 100)) == []
    assert asked(comment(100, "s1"), reply(1, UNDECIDED, 100), reply(2, deferral, 100)) == []
    assert asked(comment(100, "s1"), reply(1, deferral, 100), reply(2, UNDECIDED, 100)) == [2]


def test_replies_older_than_a_decision_cannot_win_and_are_not_asked() -> None:
    assert asked(
        comment(100, "s1"), reply(1, UNDECIDED, 100), reply(2, "accept", 100), reply(3, "Hm.", 100)
    ) == [3]


def test_a_question_carries_the_suggestion_and_the_whole_thread() -> None:
    head = comment(100, "s1")
    thread = (head, reply(1, "why?", 100, author=CONTRIBUTOR), reply(2, UNDECIDED, 100))
    [question] = undecided_replies(pull(*thread, known=KNOWN))
    assert question.suggestion.id == "s1"
    assert question.thread == thread and question.reply == thread[2]


REPLY = reply(7, "No, the loader already validates this upstream. Keeping it.", 100)
ACCEPT = Verdict(Decision.ACCEPTED, None, "judge:j", "Keeping it", binding=Binding.EVIDENCE)


def dismissal(reason: Reason, quote: str) -> Verdict:
    return Verdict(Decision.DISMISSED, reason, "judge:j", quote, binding=Binding.AT_MERGE)


@pytest.mark.parametrize(
    ("answer", "outcome", "verdict"),
    [
        (
            JudgeAnswer(Category.DISMISSED, "false-positive", " the loader already validates ", 7),
            Outcome.DISMISSED,
            dismissal(Reason.FALSE_POSITIVE, "the loader already validates"),
        ),
        (
            JudgeAnswer(Category.DISMISSED, "won't fix", "Keeping it"),
            Outcome.DISMISSED,
            dismissal(Reason.WONT_FIX, "Keeping it"),
        ),
        (
            JudgeAnswer(Category.DISMISSED, "too noisy", "Keeping it"),
            Outcome.DISMISSED,
            dismissal(Reason.UNSPECIFIED, "Keeping it"),
        ),
        (
            JudgeAnswer(Category.DISMISSED, "", "Keeping it"),
            Outcome.DISMISSED,
            dismissal(Reason.UNSPECIFIED, "Keeping it"),
        ),
        (JudgeAnswer(Category.ACCEPTED, "", "Keeping it", 7), Outcome.ACCEPTED, ACCEPT),
        (
            JudgeAnswer(Category.DEFERRED, "", "Keeping it"),
            Outcome.DEFERRED,
            Deferral("judge:j", "Keeping it"),
        ),
        (JudgeAnswer(Category.AGREED, "", "Keeping it"), Outcome.AGREED, None),
        (JudgeAnswer(Category.QUESTION, "", ""), Outcome.QUESTION, None),
        (JudgeAnswer(Category.OTHER, "style", "not in the reply"), Outcome.OTHER, None),
        (JudgeAnswer(Category.ACCEPTED, "", "keeping it"), Outcome.UNGROUNDED, None),
        (JudgeAnswer(Category.DEFERRED, "", "validated upstream"), Outcome.UNGROUNDED, None),
        (JudgeAnswer(Category.DISMISSED, "style", ""), Outcome.UNGROUNDED, None),
        (JudgeAnswer(Category.ACCEPTED, "", " . "), Outcome.UNGROUNDED, None),
        (JudgeAnswer(Category.ACCEPTED, "", "Keeping it", 8), Outcome.OTHER_REPLY, None),
        (JudgeAnswer(Category.OTHER, "", "", 8), Outcome.OTHER_REPLY, None),
    ],
    ids=[
        "dismissal",
        "reason-spelled-as-typed",
        "unknown-reason-unspecified",
        "no-reason-unspecified",
        "acceptance-waits-for-evidence",
        "deferral",
        "agreed-without-change",
        "question",
        "other",
        "case-changed",
        "paraphrase",
        "empty-quote",
        "punctuation-quote",
        "other-reply",
        "abstention-about-another-reply",
    ],
)
def test_only_a_grounded_answer_about_this_reply_decides(
    answer: JudgeAnswer, outcome: Outcome, verdict: Verdict | Deferral | None
) -> None:
    assert ground(answer, REPLY, seat="j") == (outcome, verdict)


def test_a_quote_from_another_comment_of_the_thread_grounds_nothing() -> None:
    other = reply(6, "Good point, fixing it now", 100, author=CONTRIBUTOR)
    answer = JudgeAnswer(Category.ACCEPTED, "", "fixing it now", REPLY.id)
    assert other.body.find("fixing it now") >= 0
    assert ground(answer, REPLY, seat="j") == (Outcome.UNGROUNDED, None)


def test_a_judged_reply_stands_where_it_stands_in_its_thread() -> None:
    judged = {2: Verdict(Decision.DISMISSED, Reason.STYLE, "judge:j", "approach")}
    state = pull(comment(100, "s1"), reply(1, "accept", 100), reply(2, UNDECIDED, 100), known=KNOWN)
    [decision] = decide_pull(state, judged=judged).decisions
    assert (decision.decision, decision.rule, decision.reply_id, decision.source) == (
        Decision.DISMISSED,
        "judge:j",
        2,
        Source.REPLY,
    )
    later = replace(state, comments=(*state.comments, reply(3, "accept", 100)))
    [decision] = decide_pull(later, judged=judged).decisions
    assert (decision.rule, decision.reply_id) == ("grammar.accept", 3)
    # A verdict handed for a contributor's reply, or for a reply the rules read, counts nothing.
    contributor = pull(
        comment(100, "s1"), reply(2, UNDECIDED, 100, author=CONTRIBUTOR), known=KNOWN
    )
    assert decide_pull(contributor, judged=judged).decisions == ()
    ruled = pull(comment(100, "s1"), reply(2, "accept", 100), known=KNOWN)
    [decision] = decide_pull(ruled, judged=judged).decisions
    assert decision.rule == "grammar.accept"


def test_a_revision_is_the_reply_as_it_reads_now() -> None:
    first = reply(1, UNDECIDED, 100)
    assert Revision.of(first) == Revision.of(replace(first))
    assert Revision.of(first) != Revision.of(replace(first, updated_at=T0 + timedelta(hours=1)))
    assert Revision.of(first) != Revision.of(replace(first, body=UNDECIDED + "!"))


def kept(engine: Engine, revision: Revision, judgement: Judgement, *, now: int = 5) -> None:
    with engine.begin() as conn:
        keep(
            conn,
            account_id=ACCOUNT_ID,
            repository_id=REPO_ID,
            seat="j",
            revision=revision,
            judgement=judgement,
            now=now,
        )


def test_kept_judgements_are_found_per_repository_seat_and_revision(engine: Engine) -> None:
    seed_tenant(engine)
    first = Revision.of(reply(1, UNDECIDED, 100))
    edited = Revision.of(reply(1, UNDECIDED + " Edited.", 100))
    deferred = Revision.of(reply(2, "Let's do it in a follow-up.", 100))
    verdict = Verdict(Decision.DISMISSED, Reason.STYLE, "judge:j", "approach", Binding.AT_MERGE)
    deferral = Deferral("judge:j", "in a follow-up")
    kept(engine, first, Judgement(Outcome.DISMISSED, verdict))
    kept(engine, edited, Judgement(Outcome.FAILED, None, "timeout: too slow"), now=6)
    kept(engine, deferred, Judgement(Outcome.DEFERRED, deferral))
    # A second keep of the same revision (a concurrent run) leaves the first answer.
    kept(engine, first, Judgement(Outcome.OTHER, None), now=7)
    with engine.connect() as conn:
        assert judgements(conn, REPO_ID, "j", [first, edited, deferred]) == {
            first: Judgement(Outcome.DISMISSED, verdict),
            edited: Judgement(Outcome.FAILED, None, "timeout: too slow"),
            deferred: Judgement(Outcome.DEFERRED, deferral),
        }
        assert judgements(conn, REPO_ID, "other-seat", [first]) == {}
        assert judgements(conn, OTHER_REPO_ID, "j", [first]) == {}
        assert judgements(conn, REPO_ID, "j", []) == {}


def old_row(revision: Revision, *, outcome: str, contract: str) -> dict[str, object]:
    return {
        "account_id": ACCOUNT_ID,
        "repository_id": REPO_ID,
        "seat": "j",
        "contract": contract,
        "reply_id": revision.reply_id,
        "reply_updated_ms": revision.updated_ms,
        "body_sha256": revision.body_sha256,
        "outcome": outcome,
        "reason": None,
        "quote": "went with the approach",
        "detail": None,
        "asked_ms": 1,
    }


def test_an_answer_kept_under_the_old_contract_is_never_replayed(engine: Engine) -> None:
    """`hindsight.judge/1` acceptances over-decided: such a row is not an answer of the new
    contract, the revision is asked again, and the new answer is kept beside the old row."""
    seed_tenant(engine)
    revision = Revision.of(reply(1, UNDECIDED, 100))
    with engine.begin() as conn:
        conn.execute(
            insert(JudgeVerdictRow),
            [old_row(revision, outcome="accepted", contract="hindsight.judge/1")],
        )
    with engine.connect() as conn:
        assert judgements(conn, REPO_ID, "j", [revision]) == {}
    kept(engine, revision, Judgement(Outcome.AGREED, None))
    with engine.connect() as conn:
        assert judgements(conn, REPO_ID, "j", [revision]) == {
            revision: Judgement(Outcome.AGREED, None)
        }
        contracts = conn.execute(select(JudgeVerdictRow.contract)).scalars().all()
    assert sorted(contracts) == ["hindsight.judge/1", CONTRACT]


def test_a_kept_outcome_this_version_cannot_read_decides_nothing(engine: Engine) -> None:
    seed_tenant(engine)
    revision = Revision.of(reply(1, UNDECIDED, 100))
    with engine.begin() as conn:
        conn.execute(
            insert(JudgeVerdictRow), [old_row(revision, outcome="none", contract=CONTRACT)]
        )
    with engine.connect() as conn:
        [judgement] = judgements(conn, REPO_ID, "j", [revision]).values()
    assert (judgement.outcome, judgement.verdict) == (Outcome.FAILED, None)
    assert judgement.detail is not None and "'none'" in judgement.detail


@pytest.mark.parametrize(
    ("answer", "held"),
    [
        (JudgeAnswer(Category.ACCEPTED, "", "the approach"), Held.CLAIMED),
        (JudgeAnswer(Category.DISMISSED, "style", "the approach"), Held.ARGUED),
        (JudgeAnswer(Category.DEFERRED, "", "the approach"), Held.DEFERRED),
    ],
    ids=["accepted-is-claimed", "dismissed-is-argued", "deferred"],
)
def test_a_judged_reading_binds_as_a_natural_one(answer: JudgeAnswer, held: Held) -> None:
    """With no change to the commented lines and the pull request open, nothing the judge says
    decides: an acceptance is claimed, a dismissal argued, a deferral deferred."""
    state = pull(comment(100, "s1"), reply(2, UNDECIDED, 100), known=KNOWN)
    _, reading = ground(answer, state.comments[1], seat="j")
    assert reading is not None
    decided = decide_pull(state, judged={2: reading})
    assert decided.decisions == ()
    claim = decided.claims["s1"]
    assert (claim.state, claim.rule, claim.span, claim.reply_id) == (
        held,
        "judge:j",
        "the approach",
        2,
    )
