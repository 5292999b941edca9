"""A confirmed refusal becomes a suppression: the records the suppression rules read — the bot's
suggestion, the maintainer's dismissal as a receipt, and the mechanism's entry, demoted by the
person who confirmed it, so it stands until a person lifts it (docs/history.md)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from continual import store
from continual.entry_keys import entry_key
from continual.history.evidence import gist
from continual.values import Decision, Reason, Source

# The id of the suggestion a confirmed refusal is stored as; never one a review posts ("s_…").
REFUSED_PREFIX = "history-refusal:"
SEAT = "history"
TITLE_CHARS = 120
# A refused mechanism is not advice: no admission stage lets its entry be handed as a lesson.
NOT_ADVICE = "refusal"
ENTRY_TEXT = "{bot}'s suggestion on `{path}`, refused by @{maintainer} in #{pr}: {quote}"


def refused_suggestion_id(refusal_id: int) -> str:
    return f"{REFUSED_PREFIX}{refusal_id}"


def _reason(value: str) -> Reason:
    try:
        return Reason(value)
    except ValueError:
        return Reason.UNSPECIFIED


def suppress_refusal(conn: Connection, refusal: Any, *, actor: str, now_ms: int) -> str:
    """Record a confirmed refusal (a ``history_refusals`` row) as a suppression of the bot's
    mechanism in the caller's transaction; answers the entry's id. A live entry of the same
    mechanism (the bot raised it before) takes the receipt; else a new entry is made."""
    title = gist(refusal.body, TITLE_CHARS) or f"{refusal.bot}'s suggestion on {refusal.path}"
    key = entry_key(refusal.bot, title)
    sid = refused_suggestion_id(refusal.id)
    store.record_suggestion(
        conn,
        store.NewSuggestion(
            id=sid,
            account_id=refusal.account_id,
            repository_id=refusal.repository_id,
            pr=refusal.pr,
            head_sha="",  # the back-fill does not keep the commit the bot commented on
            path=refusal.path,
            line=refusal.line,
            seat=SEAT,
            lab=None,
            lens=refusal.bot,
            title=title,
            entry_key=key,
            body=refusal.body,
        ),
        now=now_ms,
    )
    current = store.entry_for_key(conn, refusal.repository_id, key)
    if current is None:
        text = ENTRY_TEXT.format(
            bot=refusal.bot,
            path=refusal.path,
            maintainer=refusal.maintainer,
            pr=refusal.pr,
            quote=refusal.quote,
        )
        new = store.NewEntry(
            account_id=refusal.account_id,
            repository_id=refusal.repository_id,
            key=key,
            lens=refusal.bot,
            title=title,
            text=text,
            admission=NOT_ADVICE,
            associations={},
        )
        store.create_entry(conn, new, now=now_ms)
        current = store.live_entry(conn, refusal.repository_id, key)
        assert current is not None
    context = store.suggestion(conn, sid)
    assert context is not None
    receipt = store.NewReceipt(
        suggestion_id=sid,
        decision=Decision.DISMISSED,
        source=Source.HISTORY,
        at_ms=refusal.created_ms,
        reason=_reason(refusal.reason),
        rule=refusal.rule,
        span=refusal.quote,
        actor=refusal.maintainer,
        evidence="lines-kept" if refusal.evidence == "lines-kept" else None,
    )
    store.set_receipt(conn, current.id, refusal.account_id, receipt, context)
    demotion = {} if current.demoted_ms is not None else {"demoted_ms": now_ms, "demoted_by": actor}
    store.refresh(conn, current.id, current.revision, now=now_ms, **demotion)
    return current.id
