"""Receipts: each suggestion's current decision per source, and the counts they give an entry."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, insert, select, update

from continual.lifecycle import ReceiptFacts, Tally, should_demote, tally
from continual.secrets import redact_optional
from continual.store.entries import cas_update, entry
from continual.stored import StoredReceipt, StoredSuggestion
from continual.tables import Receipt
from continual.values import Decision, Reason, Source


@dataclass(frozen=True, slots=True)
class NewReceipt:
    suggestion_id: str
    decision: Decision
    source: Source
    at_ms: int
    reason: Reason | None = None
    rule: str | None = None
    span: str | None = None
    actor: str | None = None
    evidence: str | None = None  # what bound it (continual.writeback.evidence.Bound)
    evidence_commit: str | None = None  # the commit that shows it


def receipts_of(conn: Connection, entry_id: str) -> list[StoredReceipt]:
    rows = conn.execute(
        select(Receipt).where(Receipt.entry_id == entry_id).order_by(Receipt.id)
    ).all()
    return [StoredReceipt.of(row) for row in rows]


def entry_tally(conn: Connection, entry_id: str, *, after_ms: int | None = None) -> Tally:
    """The entry's counts; with ``after_ms``, of the receipts stamped after that moment only."""
    return tally(
        ReceiptFacts(Decision(r.decision), r.lab, r.at_ms, r.superseded, r.source)
        for r in receipts_of(conn, entry_id)
        if after_ms is None or r.at_ms > after_ms
    )


def refresh(conn: Connection, entry_id: str, expected: int, *, now: int, **values: Any) -> int:
    """Recompute the receipt counts, confirmation, expiry and demotion from the receipts, under
    CAS: every change of an entry's receipts is followed by this, in its transaction.

    Demotion counts only the receipts after a person's restore (``suppression_lifted_ms``): the
    dismissals a person already overruled never demote the entry again."""
    counts = entry_tally(conn, entry_id)
    current = entry(conn, entry_id)
    assert current is not None
    lifted = current.suppression_lifted_ms
    since = counts if lifted is None else entry_tally(conn, entry_id, after_ms=lifted)
    changes: dict[str, Any] = {
        "last_confirmed_ms": counts.last_confirmed_ms,
        "expires_ms": counts.expires_ms,
        "accepted_count": counts.accepted,
        "dismissed_count": counts.dismissed,
        "labelled_count": counts.accepted_with_lab,
        **values,
    }
    if current.demoted_ms is None and should_demote(since):
        changes["demoted_ms"] = now
        changes["demoted_by"] = "rule"
    return cas_update(conn, entry_id, expected, **changes)


def set_receipt(
    conn: Connection, entry_id: str, account_id: int, new: NewReceipt, context: StoredSuggestion
) -> bool:
    """Make `new` the current decision of its suggestion and source; False when nothing changed.

    Receipts are keyed by (suggestion, decision, source): the same decision again adds nothing; a
    changed decision supersedes the other current receipt of that suggestion and source.
    """
    same_source = conn.execute(
        select(Receipt).where(
            Receipt.suggestion_id == new.suggestion_id, Receipt.source == new.source.value
        )
    ).all()
    existing = next((r for r in same_source if r.decision == new.decision.value), None)
    others = [r.id for r in same_source if r.decision != new.decision.value and not r.superseded]
    reason = new.reason.value if new.reason else None
    new = replace(new, span=redact_optional(new.span))  # a reply's words, stored redacted
    shown = {"evidence": new.evidence, "evidence_commit": new.evidence_commit}
    if existing is not None and not existing.superseded and not others:
        if existing.reason == reason:
            if (existing.evidence, existing.evidence_commit) == (new.evidence, new.evidence_commit):
                return False
            # The same decision, now bound by other evidence (a later commit shows the change).
            conn.execute(update(Receipt).where(Receipt.id == existing.id).values(**shown))
            return True
        # The same decision for another reason (a dismissal edited from false-positive to
        # wont-fix): the reason decides where it suppresses, so the receipt follows it.
        conn.execute(
            update(Receipt)
            .where(Receipt.id == existing.id)
            .values(
                reason=reason,
                rule=new.rule,
                span=new.span,
                actor=new.actor,
                at_ms=new.at_ms,
                **shown,
            )
        )
        return True
    if others:
        conn.execute(update(Receipt).where(Receipt.id.in_(others)).values(superseded=True))
    if existing is not None:
        conn.execute(
            update(Receipt)
            .where(Receipt.id == existing.id)
            .values(
                superseded=False,
                reason=reason,
                rule=new.rule,
                span=new.span,
                actor=new.actor,
                at_ms=new.at_ms,
                **shown,
            )
        )
        return True
    conn.execute(
        insert(Receipt).values(
            entry_id=entry_id,
            account_id=account_id,
            suggestion_id=new.suggestion_id,
            decision=new.decision.value,
            reason=reason,
            source=new.source.value,
            rule=new.rule,
            span=new.span,
            seat=context.seat,
            lab=context.lab,
            set_sha256=context.set_sha256,
            pr=context.pr,
            head_sha=context.head_sha,
            actor=new.actor,
            at_ms=new.at_ms,
            superseded=False,
            **shown,
        )
    )
    return True


def retract(
    conn: Connection, suggestion_id: str, source: Source | Collection[Source]
) -> str | None:
    """Supersede the current receipts of a suggestion and source(s) whose decision is gone (a
    deleted or edited reply, an undo); returns the entry id when something changed."""
    sources = [source.value] if isinstance(source, Source) else [s.value for s in source]
    if not sources:
        return None
    rows = conn.execute(
        select(Receipt.id, Receipt.entry_id).where(
            Receipt.suggestion_id == suggestion_id,
            Receipt.source.in_(sources),
            Receipt.superseded.is_(False),
        )
    ).all()
    if not rows:
        return None
    conn.execute(
        update(Receipt).where(Receipt.id.in_([r.id for r in rows])).values(superseded=True)
    )
    return str(rows[0].entry_id)
