"""Migration 0029: the memory items history lessons and confirmed refusals were handed as go, and a
refusal confirmed before it made no suppression becomes a candidate again; the rest stays."""

from __future__ import annotations

from alembic import command
from sqlalchemy import insert, select

from continual.tables import Account, HistoryRefusal, MemoryItemRow, Repository
from ghapp.db import alembic_config, make_engine


def refusal(refusal_id: int, state: str) -> dict[str, object]:
    return {
        "id": refusal_id,
        "account_id": 1,
        "repository_id": 11,
        "pr": 5,
        "generation": 1,
        "bot": "lint-bot[bot]",
        "path": "src/db.py",
        "body": "Consider a pool.",
        "maintainer": "mona",
        "association": "MEMBER",
        "reply_id": refusal_id + 1,
        "quote": "won't fix",
        "reason": "wont-fix",
        "rule": "typed",
        "evidence": "at-once",
        "state": state,
        "decided_by": "octocat" if state != "candidate" else None,
        "decided_ms": 9 if state != "candidate" else None,
        "created_ms": 1,
    }


def item(subject: str, review_id: str = "history-11") -> dict[str, object]:
    return {
        "account_id": 1,
        "repository_id": 11,
        "review_id": review_id,
        "kind": "fact",
        "subject": subject,
        "text": "…",
        "seat": "history",
        "commit": "",
        "state": "active",
        "expires_ms": 10**13,
        "created_ms": 1,
    }


def test_handed_items_go_and_an_unbacked_confirmation_waits_for_a_person_again(
    database_url: str,
) -> None:
    config = alembic_config(database_url)
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0028_github_sign_in")
        with engine.begin() as conn:
            conn.execute(insert(Account).values(id=1, login="octo", created_ms=0))
            conn.execute(insert(Repository).values(id=11, account_id=1, full_name="octo/app"))
            conn.execute(
                insert(HistoryRefusal),
                [refusal(100, "confirmed"), refusal(200, "rejected"), refusal(300, "candidate")],
            )
            conn.execute(
                insert(MemoryItemRow),
                [
                    item("history-lesson:4"),
                    item("history-refusal:100"),
                    item("history:55"),  # a fact: stays
                    item("history-lesson:4", review_id="r_1"),  # not the history session
                ],
            )
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
        with engine.connect() as conn:
            states = dict(conn.execute(select(HistoryRefusal.id, HistoryRefusal.state)).all())
            decided = conn.execute(
                select(HistoryRefusal.decided_by).where(HistoryRefusal.id == 100)
            ).scalar_one()
            kept = conn.execute(
                select(MemoryItemRow.review_id, MemoryItemRow.subject).order_by(MemoryItemRow.id)
            ).all()
        assert states == {100: "candidate", 200: "rejected", 300: "candidate"}
        assert decided is None
        assert [tuple(row) for row in kept] == [
            ("history-11", "history:55"),
            ("r_1", "history-lesson:4"),
        ]
    finally:
        engine.dispose()
