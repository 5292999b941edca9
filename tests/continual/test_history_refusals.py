"""A confirmed history refusal is a suppression: handed in the review's dismissed block whatever
the memory setting, withholding the mechanism everywhere in the repository, never a lesson,
lifted by a person's restore; a rejected, decided, unknown or foreign candidate changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from continual import store
from continual.entry_keys import entry_key
from continual.history.evidence import PastComment
from continual.history.lessons import (
    Missing,
    decide_refusal,
    save_refusals,
    seed_published,
)
from continual.history.refusals import BotRefusal
from continual.history.suppressed import REFUSED_PREFIX
from continual.ledger import review_ledger
from continual.memory import memory_enabled
from continual.recall import SnapshotCache, load_lessons
from continual.suppression import DISMISSED_HEADER, suppressing, suppressions
from continual.surfaces.review import hand_review_lessons
from continual.tables import Entry, HistoryRefusal, MemoryItemRow, Receipt, Suggestion
from continual.times import to_ms
from continual.values import EntryState
from continual.writeback.authors import Author
from tests.support.store import ACCOUNT_ID, OTHER_REPO_ID, REPO_ID, seed_tenant

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
NOW = to_ms(T0) + 400 * 86_400_000  # long after the reply: a dismissal's 180 days are over
BOT = Author("ci-helper[bot]", "Bot", "NONE")
MAINTAINER = Author("octocat", "User", "MEMBER")
BODY = "Wrap `open_pool` in a retry loop.\n\nTransient errors are common here."
TITLE = "Wrap `open_pool` in a retry loop. Transient errors are common here."
KEY = entry_key(BOT.login, TITLE)


def comment(cid: int, author: Author, body: str, *, to: int | None = None) -> PastComment:
    return PastComment(
        id=cid,
        author=author,
        path="src/db.py",
        line=10,
        commit_sha="a" * 40,
        body=body,
        in_reply_to=to,
        created_at=T0 + timedelta(minutes=cid % 1000),
    )


def refusal(cid: int, body: str = BODY) -> BotRefusal:
    return BotRefusal(
        suggestion=comment(cid, BOT, body),
        reply=comment(cid + 1, MAINTAINER, "wontfix: we fail fast here", to=cid),
        reason="wont-fix",
        rule="typed.wontfix",
        quote="wontfix: we fail fast here",
        evidence="at-once",
    )


@pytest.fixture
def db(engine: Engine) -> Engine:
    """Two published candidates of one repository, one of the other repository."""
    seed_tenant(engine)
    with engine.begin() as conn:
        for repository_id, pr, found in (
            (REPO_ID, 3, [refusal(5000), refusal(6000)]),
            (OTHER_REPO_ID, 4, [refusal(7000)]),
        ):
            save_refusals(
                conn,
                account_id=ACCOUNT_ID,
                repository_id=repository_id,
                pr=pr,
                generation=1,
                refusals=found,
                now_ms=NOW,
            )
            seed_published(conn, repository_id)
    return engine


def decide(engine: Engine, refusal_id: int, *, confirm: bool = True, **where: Any) -> None:
    place = {"account_id": ACCOUNT_ID, "repository_id": REPO_ID, **where}
    with engine.begin() as conn:
        decide_refusal(
            conn, **place, refusal_id=refusal_id, confirm=confirm, actor="mona", now_ms=NOW
        )


def review(engine: Engine, tmp_path: Path, session: str, **options: Any) -> Any:
    return hand_review_lessons(
        engine,
        tmp_path,
        account_id=ACCOUNT_ID,
        repository_id=REPO_ID,
        session_id=session,
        paths=["src/app.py"],
        now=NOW,
        **options,
    )


def count(engine: Engine, table: Any) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def test_a_confirmed_refusal_is_handed_in_the_dismissed_block_with_memory_off(
    db: Engine, tmp_path: Path
) -> None:
    decide(db, 5000)
    with db.connect() as conn:
        assert not memory_enabled(conn, REPO_ID)
        (found,) = suppressions(conn, REPO_ID, now_ms=NOW)
        (entry,) = conn.execute(select(Entry)).all()
        (receipt,) = conn.execute(select(Receipt)).all()
        assert suppressions(conn, OTHER_REPO_ID, now_ms=NOW) == ()
    assert (found.key, found.lens, found.title) == (KEY, "ci-helper[bot]", TITLE)
    assert (found.repository_wide, found.until_ms, found.actor) == (True, None, "octocat")
    assert (entry.demoted_by, entry.demoted_ms, entry.dismissed_count) == ("mona", NOW, 0)
    assert receipt.suggestion_id == f"{REFUSED_PREFIX}5000"
    assert (receipt.source, receipt.reason, receipt.actor) == ("history", "wont-fix", "octocat")
    assert (receipt.pr, receipt.at_ms) == (3, to_ms(T0 + timedelta(minutes=1)))  # the reply

    hand = review(db, tmp_path, "r1")
    assert hand.dismissed == (found,) and hand.lessons == ()
    assert f"{DISMISSED_HEADER}\n- {TITLE} (lens ci-helper[bot]; anywhere in the repository " in (
        hand.text
    )
    assert "(first at src/db.py); reason demoted; dismissed by octocat)" in hand.text
    # Write-back withholds a finding of the mechanism, at any path of the repository.
    assert suppressing(hand.dismissed, KEY, "src/elsewhere.py") == found
    assert suppressing(hand.dismissed, entry_key("correctness", TITLE), "src/db.py") is None


def test_a_confirmed_refusal_is_never_a_lesson_nor_a_suggestion_of_ours(db: Engine) -> None:
    decide(db, 5000)
    with db.connect() as conn:
        (lesson,) = load_lessons(conn, ACCOUNT_ID, now=NOW)
        (ledger,) = [x for x in review_ledger(conn, ACCOUNT_ID, now=NOW, brain=True) if x.lessons]
        assert conn.execute(select(MemoryItemRow.id)).first() is None  # no memory item either
    assert lesson.state is EntryState.DEMOTED
    assert ledger.suggestions.total == 0 and ledger.by_seat_and_lens == ()
    assert ledger.entries.demoted == 1


def test_a_lift_ends_it_and_a_cached_hand_reads_it_again(db: Engine, tmp_path: Path) -> None:
    snapshots = SnapshotCache()
    assert review(db, tmp_path, "r0", snapshots=snapshots).dismissed == ()
    decide(db, 5000)
    (found,) = review(db, tmp_path, "r1", snapshots=snapshots).dismissed
    with db.begin() as conn:
        store.person_edit(
            conn, found.entry_id, expected=found.revision, demote=False, actor="mona", now=NOW
        )
    hand = review(db, tmp_path, "r2", snapshots=snapshots)
    assert hand.dismissed == () and DISMISSED_HEADER not in hand.text
    assert hand.lessons == ()  # lifted, it is a candidate: still never handed
    with db.connect() as conn:
        assert suppressions(conn, REPO_ID, now_ms=NOW) == ()
        (lesson,) = load_lessons(conn, ACCOUNT_ID, now=NOW)
    assert lesson.state is EntryState.CANDIDATE
    # The same mechanism refused and confirmed again: suppressed again, by that confirmation.
    decide(db, 6000)
    (again,) = review(db, tmp_path, "r3", snapshots=snapshots).dismissed
    assert (again.entry_id, again.actor, again.until_ms) == (found.entry_id, "mona", None)


def test_the_same_mechanism_refused_twice_is_one_entry_with_two_receipts(db: Engine) -> None:
    decide(db, 5000)
    decide(db, 6000)
    with db.connect() as conn:
        (found,) = suppressions(conn, REPO_ID, now_ms=NOW)
        receipts = conn.execute(select(Receipt.entry_id)).scalars().all()
    assert receipts == [found.entry_id, found.entry_id]
    assert count(db, Entry) == 1


def test_a_rejected_candidate_suppresses_nothing(db: Engine, tmp_path: Path) -> None:
    decide(db, 5000, confirm=False)
    assert (count(db, Entry), count(db, Suggestion), count(db, Receipt)) == (0, 0, 0)
    assert review(db, tmp_path, "r1").dismissed == ()


@pytest.mark.parametrize(
    ("first", "then", "where"),
    [
        (True, 5000, {}),  # confirmed twice
        (False, 5000, {}),  # rejected, then confirmed
        (None, 99, {}),  # no such candidate
        (None, 7000, {}),  # another repository's candidate
        (None, 5000, {"repository_id": OTHER_REPO_ID}),  # asked about the other repository
        (None, 5000, {"account_id": ACCOUNT_ID + 1}),  # asked by another account
    ],
)
def test_a_decided_unknown_or_foreign_candidate_is_missing(
    db: Engine, first: bool | None, then: int, where: dict[str, int]
) -> None:
    if first is not None:
        decide(db, 5000, confirm=first)
    entries = count(db, Entry)
    with pytest.raises(Missing):
        decide(db, then, **where)
    assert count(db, Entry) == entries
    with db.connect() as conn:
        states = dict(conn.execute(select(HistoryRefusal.id, HistoryRefusal.state)).all())
    assert states[7000] == "candidate"
