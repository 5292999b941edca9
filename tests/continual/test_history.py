"""What counts in the review history, the evidence, the cited fact, and that a history receipt
never confirms a lesson."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from continual.history.evidence import (
    Outcome,
    PastComment,
    PastPull,
    Receipt,
    author_reply,
    counted,
    fact_text,
    gist,
    identifiers,
    judge,
    ranked,
)
from continual.history.runs import BadRequest, check_bounds
from continual.lifecycle import ReceiptFacts, tally
from continual.memory.provenance import Reporter, Source
from continual.memory.render import cited_line
from continual.values import Decision
from continual.values import Source as ReceiptSource
from continual.writeback.authors import Author

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
PULL = PastPull(number=12, author="dev", head_sha="f" * 40, merged_at=T0 + timedelta(days=1))
MAINTAINER = Author("octocat", "User", "MEMBER")
# Line 10 of src/db.py rewritten after the comment.
FIXED = {"src/db.py": "@@ -10,1 +10,1 @@\n-conn = connect()\n+conn = pool.acquire()"}


def comment(
    cid: int,
    author: Author = MAINTAINER,
    *,
    line: int | None = 10,
    path: str = "src/db.py",
    reply_to: int | None = None,
    body: str = "Use `pool.acquire` here.",
) -> PastComment:
    return PastComment(
        id=cid,
        author=author,
        path=path,
        line=line,
        commit_sha="a" * 40,
        body=body,
        in_reply_to=reply_to,
        created_at=T0 + timedelta(minutes=cid),
    )


def test_only_maintainers_thread_openers_count_never_bots_or_the_author() -> None:
    comments = [
        comment(1),
        comment(2, Author("ci[bot]", "Bot", "NONE")),
        comment(3, Author("helper", "User", "MEMBER", via_app=True)),
        comment(4, Author("dev", "User", "OWNER")),  # the pull request's own author
        comment(5, Author("drive-by", "User", "CONTRIBUTOR")),
        comment(6, reply_to=1),  # a reply, not a thread of its own
        comment(7, Author("ghost", "User", "NONE")),  # a deleted account
    ]
    assert [c.id for c in counted(PULL, comments)] == [1]


def test_an_addressed_comment_an_unchanged_one_and_no_evidence() -> None:
    comments = [comment(1, line=10), comment(2, line=40)]
    judged = judge(PULL, comments, patches=FIXED, first_commit="b" * 40)
    assert [(k.comment.id, k.outcome, k.addressed_sha) for k in judged] == [
        (1, Outcome.ADDRESSED, "b" * 40),
        (2, Outcome.UNCHANGED, None),
    ]
    gone = judge(PULL, comments, patches=None, first_commit=None)
    assert {k.outcome for k in gone} == {Outcome.NO_EVIDENCE}


def test_the_authors_reply_is_kept_with_the_comment() -> None:
    reply = comment(9, Author("dev", "User", "CONTRIBUTOR"), reply_to=1, body="Done in b1.")
    assert author_reply(comment(1), [comment(1), reply], "dev") == "Done in b1."
    assert author_reply(comment(1), [comment(1)], "dev") is None


def test_the_fact_cites_who_asked_where_and_what_addressed_it_with_secrets_redacted() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    receipt = Receipt(
        comment_id=1,
        pr=123,
        author="octocat",
        path="src/db.py",
        body=f"Never log the token {token}.\n\nUse `pool.acquire`.",
        addressed_sha="abc1234def",
        merged_by="mona",
        created_at=T0,
    )
    text = fact_text(receipt)
    assert text.startswith("@octocat asked in #123 on `src/db.py`: Never log the token [redacted")
    assert text.endswith("Use `pool.acquire`; addressed in abc1234")
    assert token not in text
    assert identifiers(receipt.body) == ("pool.acquire",)


def test_a_long_comment_is_cut_at_a_word() -> None:
    cut = gist("word " * 100, 30)
    assert len(cut) <= 30 and cut.endswith("…")


def test_facts_are_bounded_most_recurrent_then_most_recent() -> None:
    def receipt(cid: int, path: str, minutes: int) -> Receipt:
        at = T0 + timedelta(minutes=minutes)
        return Receipt(cid, 1, "octocat", path, "Use it.", "b" * 40, None, at)

    receipts = [receipt(1, "a.py", 1), receipt(2, "b.py", 5), receipt(3, "b.py", 2)]
    assert [r.comment_id for r in ranked(receipts, 2)] == [2, 3]
    assert [r.comment_id for r in ranked(receipts, 3)] == [2, 3, 1]
    assert ranked(receipts, 0) == []


def test_a_history_receipt_never_confirms_or_activates_a_lesson() -> None:
    history = ReceiptFacts(Decision.ACCEPTED, "acme", 5, False, ReceiptSource.HISTORY.value)
    counts = tally([history])
    assert (counts.accepted, counts.accepted_with_lab, counts.last_confirmed_ms) == (0, 0, None)
    reply = ReceiptFacts(Decision.ACCEPTED, "acme", 5, False, ReceiptSource.REPLY.value)
    assert tally([history, reply]).accepted_with_lab == 1


def test_a_history_fact_is_handed_as_memory_with_its_citation_not_as_a_claim() -> None:
    line = cited_line(
        "@octocat asked in #12 on `src/db.py`: use the pool; addressed in abc1234",
        session="history-1",
        commit="abc1234def",
        reporters=[Reporter("history", "")],
        source=Source.HISTORY,
    )
    assert line == (
        "- @octocat asked in #12 on `src/db.py`: use the pool; addressed in abc1234 "
        "(from the repository's review history; session history-1, commit abc1234)"
    )


@pytest.mark.parametrize(("days", "prs"), [(0, 10), (366, 10), (90, 0), (90, 10_001)])
def test_a_period_or_a_count_out_of_bounds_is_refused(days: int, prs: int) -> None:
    with pytest.raises(BadRequest):
        check_bounds(days, prs)
