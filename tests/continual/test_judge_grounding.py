"""The judge's pure side: which replies it is asked about, what its answers may decide, what is kept."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import Engine

from continual.judge import (
    JudgeAnswer,
    Judgement,
    Outcome,
    Revision,
    ground,
    judgements,
    keep,
    undecided_replies,
)
from continual.replies import Verdict
from continual.values import Decision, Reason, Source
from continual.writeback.authors import Author
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


@pytest.mark.parametrize(
    ("answer", "outcome", "verdict"),
    [
        (
            JudgeAnswer("dismissed", "false-positive", " the loader already validates this ", 7),
            Outcome.DISMISSED,
            Verdict(
                Decision.DISMISSED,
                Reason.FALSE_POSITIVE,
                "judge:j",
                "the loader already validates this",
            ),
        ),
        (
            JudgeAnswer("dismissed", "won't fix", "Keeping it"),
            Outcome.DISMISSED,
            Verdict(Decision.DISMISSED, Reason.WONT_FIX, "judge:j", "Keeping it"),
        ),
        (
            JudgeAnswer("accepted", "", "Keeping it", 7),
            Outcome.ACCEPTED,
            Verdict(Decision.ACCEPTED, None, "judge:j", "Keeping it"),
        ),
        (JudgeAnswer("dismissed", "too noisy", "Keeping it"), Outcome.UNKNOWN_REASON, None),
        (JudgeAnswer("dismissed", "", "Keeping it"), Outcome.UNKNOWN_REASON, None),
        (JudgeAnswer("dismissed", "unspecified", "Keeping it"), Outcome.UNKNOWN_REASON, None),
        (JudgeAnswer("accepted", "", "keeping it"), Outcome.UNGROUNDED, None),  # not verbatim
        (JudgeAnswer("accepted", "", "validated upstream"), Outcome.UNGROUNDED, None),
        (JudgeAnswer("accepted", "", ""), Outcome.UNGROUNDED, None),
        (JudgeAnswer("accepted", "", " . "), Outcome.UNGROUNDED, None),
        (JudgeAnswer("accepted", "", "Keeping it", 8), Outcome.OTHER_REPLY, None),
        (JudgeAnswer("none", "", "Keeping it"), Outcome.NONE, None),
    ],
    ids=[
        "dismissal",
        "reason-spelled-as-typed",
        "acceptance",
        "unknown-reason",
        "no-reason",
        "a-reactions-reason",
        "case-changed",
        "paraphrase",
        "empty-quote",
        "punctuation-quote",
        "other-reply",
        "none",
    ],
)
def test_only_a_grounded_answer_about_this_reply_decides(
    answer: JudgeAnswer, outcome: Outcome, verdict: Verdict | None
) -> None:
    assert ground(answer, REPLY, seat="j") == (outcome, verdict)


def test_a_quote_from_another_comment_of_the_thread_grounds_nothing() -> None:
    other = reply(6, "Good point, fixing it now", 100, author=CONTRIBUTOR)
    answer = JudgeAnswer("accepted", "", "fixing it now", REPLY.id)
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


def test_kept_judgements_are_found_per_repository_seat_and_revision(engine: Engine) -> None:
    seed_tenant(engine)
    first = Revision.of(reply(1, UNDECIDED, 100))
    edited = Revision.of(reply(1, UNDECIDED + " Edited.", 100))
    verdict = Verdict(Decision.DISMISSED, Reason.STYLE, "judge:j", "approach")
    with engine.begin() as conn:
        keep(
            conn,
            account_id=ACCOUNT_ID,
            repository_id=REPO_ID,
            seat="j",
            revision=first,
            judgement=Judgement(Outcome.DISMISSED, verdict),
            now=5,
        )
        keep(
            conn,
            account_id=ACCOUNT_ID,
            repository_id=REPO_ID,
            seat="j",
            revision=edited,
            judgement=Judgement(Outcome.FAILED, None, "timeout: too slow"),
            now=6,
        )
        # A second keep of the same revision (a concurrent run) leaves the first answer.
        keep(
            conn,
            account_id=ACCOUNT_ID,
            repository_id=REPO_ID,
            seat="j",
            revision=first,
            judgement=Judgement(Outcome.NONE, None),
            now=7,
        )
    with engine.connect() as conn:
        assert judgements(conn, REPO_ID, "j", [first, edited]) == {
            first: Judgement(Outcome.DISMISSED, verdict),
            edited: Judgement(Outcome.FAILED, None, "timeout: too slow"),
        }
        assert judgements(conn, REPO_ID, "other-seat", [first]) == {}
        assert judgements(conn, OTHER_REPO_ID, "j", [first]) == {}
        assert judgements(conn, REPO_ID, "j", []) == {}
