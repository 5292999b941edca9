"""Helpers for store tests: an account, a repository and suggestions with sensible defaults."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, insert

from continual import store
from continual.entry_keys import entry_key
from continual.stored import StoredSuggestion
from continual.tables import Account, Repository
from continual.values import Decision, Reason, Source
from continual.writeback.apply import new_entry_for
from continual.writeback.threads import ThreadDecision

ACCOUNT_ID = 101
REPO_ID = 201
OTHER_REPO_ID = 202
_ids = itertools.count(1)

LESSON = "Check the result of `parse_config` in src/app.py before using it."
TITLE = "Unchecked parse_config result"


def seed_tenant(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(Account).values(
                id=ACCOUNT_ID, login="octo-org", type="Organization", created_ms=0
            )
        )
        conn.execute(
            insert(Repository).values(
                [
                    {"id": REPO_ID, "account_id": ACCOUNT_ID, "full_name": "octo-org/app"},
                    {"id": OTHER_REPO_ID, "account_id": ACCOUNT_ID, "full_name": "octo-org/lib"},
                ]
            )
        )


def add_suggestion(
    engine: Engine,
    *,
    pr: int = 7,
    repository_id: int = REPO_ID,
    lab: str | None = "acme-labs",
    title: str = TITLE,
    lesson: str = LESSON,
    lens: str = "correctness",
    path: str = "src/app.py",
    **fields: Any,
) -> str:
    sid = f"s{next(_ids)}"
    suggestion = store.NewSuggestion(
        id=sid,
        account_id=ACCOUNT_ID,
        repository_id=repository_id,
        pr=pr,
        head_sha="a" * 40,
        path=path,
        line=12,
        seat="alpha",
        lab=lab,
        lens=lens,
        title=title,
        entry_key=entry_key(lens, title),
        lesson=lesson,
        set_sha256="f" * 64,
        **fields,
    )
    with engine.begin() as conn:
        store.record_suggestion(conn, suggestion, now=0)
    return sid


def decision(
    sid: str,
    kind: Decision = Decision.ACCEPTED,
    *,
    reason: Reason | None = None,
    at: int = 1_700_000_000,
    source: Source = Source.REPLY,
    actor: str = "maintainer",
) -> ThreadDecision:
    return ThreadDecision(
        suggestion_id=sid,
        decision=kind,
        reason=reason,
        source=source,
        rule="grammar.accept" if kind is Decision.ACCEPTED else "grammar.dismiss",
        span=kind.value,
        actor=actor,
        at=datetime.fromtimestamp(at, UTC),
        reply_id=None,
    )


def stored_suggestion(sid: str, **fields: Any) -> StoredSuggestion:
    """A suggestion as the store hands it out, for decisions tested without a database."""
    values: dict[str, Any] = {
        "id": sid,
        "account_id": ACCOUNT_ID,
        "repository_id": REPO_ID,
        "pr": 7,
        "head_sha": "a" * 40,
        "path": "src/app.py",
        "line": 12,
        "seat": "alpha",
        "lab": "acme-labs",
        "lens": "correctness",
        "title": TITLE,
        "entry_key": entry_key("correctness", TITLE),
        "created_ms": 0,
        "lesson": LESSON,
        **fields,
    }
    return StoredSuggestion(**values)


def entry_without_writeback(engine: Engine, sid: str, *, now: int) -> str:
    """An entry of `sid`'s mechanism with its acceptance, made directly in the store (as entries
    made before consolidation ran after each write-back); its id."""
    with engine.begin() as conn:
        found = store.suggestion(conn, sid)
        assert found is not None
        entry_id = store.create_entry(conn, new_entry_for(found), now=now)
        receipt = store.NewReceipt(sid, Decision.ACCEPTED, Source.REPLY, now)
        store.set_receipt(conn, entry_id, found.account_id, receipt, found)
        store.refresh(conn, entry_id, 1, now=now)  # as every receipt change is followed
    return entry_id
