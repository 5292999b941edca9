"""The store's writes: suggestions, entries under compare-and-swap revisions, receipts, tombstones."""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, delete, func, insert, or_, select, update

from continual.lifecycle import ReceiptFacts, Tally, should_demote, tally
from continual.recall import note_entry_change, number_links
from continual.secrets import find_secret, redact, redact_json, redact_optional, redact_values
from continual.stored import StoredEntry, StoredReceipt, StoredSuggestion
from continual.tables import Entry, Receipt, Repository, Suggestion
from continual.tombstones import hold_sources
from continual.values import Decision, Reason, Source


class RevisionConflict(Exception):
    """The entry changed since it was read: re-read it and try again."""

    def __init__(self, entry_id: str, expected: int) -> None:
        super().__init__(
            f"entry {entry_id} is no longer at revision {expected}: re-read it and retry"
        )
        self.entry_id = entry_id
        self.expected = expected


class EntryGone(Exception):
    """The entry was deleted (it is a tombstone) or never existed in this account."""

    def __init__(self, entry_id: str) -> None:
        super().__init__(f"entry {entry_id} does not exist or was deleted")
        self.entry_id = entry_id


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


@dataclass(frozen=True, slots=True)
class NewSuggestion:
    id: str
    account_id: int
    repository_id: int
    pr: int
    head_sha: str
    path: str
    line: int | None
    seat: str
    lab: str | None
    lens: str
    title: str
    entry_key: str
    body: str = ""
    lesson: str = ""
    replacement: str | None = None
    set_sha256: str | None = None
    review_id: str | None = None
    proven: bool = False
    anchors: str | None = None  # JSON, continual.maintenance.Anchors
    comment_of: str | None = None  # the suggestion whose comment carries this finding too


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


@dataclass(frozen=True, slots=True)
class NewEntry:
    """What creating an entry for a mechanism needs; admission and associations come computed."""

    account_id: int
    repository_id: int
    key: str
    lens: str
    title: str
    text: str
    admission: str | None
    associations: Mapping[str, Any]


def record_suggestion(conn: Connection, suggestion: NewSuggestion, *, now: int) -> None:
    """Store a suggestion, its seat's text redacted (``continual.secrets``). Replacement code that
    holds a secret is not kept: a redacted replacement is not the code that was posted, and the
    seat's finding is parsed without it anyway (``review.contract``)."""
    values = {field: getattr(suggestion, field) for field in NewSuggestion.__slots__}
    for field in ("path", "title", "body", "lesson"):
        values[field] = redact(values[field])
    values["anchors"] = redact_json(suggestion.anchors)
    if suggestion.replacement is not None and find_secret(suggestion.replacement) is not None:
        values["replacement"] = None
    conn.execute(insert(Suggestion).values(**values, created_ms=now))


def set_comment_id(conn: Connection, suggestion_id: str, comment_id: int) -> None:
    """Tie a suggestion, and those whose finding its comment carries, to that GitHub comment."""
    conn.execute(
        update(Suggestion)
        .where(or_(Suggestion.id == suggestion_id, Suggestion.comment_of == suggestion_id))
        .values(comment_id=comment_id)
    )


def note_resolved(
    conn: Connection, suggestion_ids: Collection[str], resolved: Mapping[str, str], *, now: int
) -> int:
    """Record who resolved each suggestion's thread (or that it is open again); evidence only.

    Returns how many suggestions changed; an unchanged thread is not written.
    """
    if not suggestion_ids:
        return 0
    rows = conn.execute(
        select(Suggestion.id, Suggestion.resolved_by).where(Suggestion.id.in_(suggestion_ids))
    ).all()
    changed = 0
    for suggestion_id, stored_by in rows:
        by = resolved.get(suggestion_id)
        if by == stored_by:
            continue
        conn.execute(
            update(Suggestion)
            .where(Suggestion.id == suggestion_id)
            .values(resolved_by=by, resolved_ms=None if by is None else now)
        )
        changed += 1
    return changed


def repository_id(conn: Connection, full_name: str) -> int | None:
    """The id of the repository called `owner/name`, if the store knows it."""
    found = conn.execute(
        select(Repository.id).where(Repository.full_name == full_name)
    ).scalar_one_or_none()
    return None if found is None else int(found)


def suggestions_of_pull(
    conn: Connection, repository_id: int, pr: int
) -> dict[str, StoredSuggestion]:
    rows = conn.execute(
        select(Suggestion).where(Suggestion.repository_id == repository_id, Suggestion.pr == pr)
    ).all()
    return {row.id: StoredSuggestion.of(row) for row in rows}


def suggestion(conn: Connection, suggestion_id: str) -> StoredSuggestion | None:
    row = conn.execute(select(Suggestion).where(Suggestion.id == suggestion_id)).one_or_none()
    return None if row is None else StoredSuggestion.of(row)


def carried_by_comment(conn: Connection, suggestion_id: str) -> list[str]:
    """The suggestion and those whose finding its comment carries too (raised under other
    lenses at the same line): a decision on that comment is a decision on each of them."""
    shared = conn.execute(
        select(Suggestion.id).where(Suggestion.comment_of == suggestion_id).order_by(Suggestion.id)
    ).scalars()
    return [suggestion_id, *shared]


def suggestion_repository(conn: Connection, suggestion_id: str) -> str | None:
    """The `owner/name` of the repository a suggestion was posted in, if the store knows it."""
    found = conn.execute(
        select(Repository.full_name)
        .join(Suggestion, Suggestion.repository_id == Repository.id)
        .where(Suggestion.id == suggestion_id)
    ).first()
    return None if found is None else str(found.full_name)


def live_entry(conn: Connection, repository_id: int, key: str) -> StoredEntry | None:
    row = conn.execute(
        select(Entry).where(
            Entry.repository_id == repository_id, Entry.key == key, Entry.deleted_ms.is_(None)
        )
    ).one_or_none()
    return None if row is None else StoredEntry.of(row)


def entry_for_key(conn: Connection, repository_id: int, key: str) -> StoredEntry | None:
    """The live entry that takes decisions on `key`: its own, or the entry it was consolidated
    into (its replaced entry names that one in ``replaced_by``); None when neither is live."""
    current = live_entry(conn, repository_id, key)
    if current is not None:
        return current
    target = conn.execute(
        select(Entry.replaced_by)
        .where(
            Entry.repository_id == repository_id,
            Entry.key == key,
            Entry.replaced_by.is_not(None),
        )
        .order_by(Entry.deleted_ms.desc(), Entry.id)
    ).scalar()
    if target is None:
        return None
    found = entry(conn, str(target))
    return found if found is not None and found.deleted_ms is None else None


def entry(conn: Connection, entry_id: str) -> StoredEntry | None:
    row = conn.execute(select(Entry).where(Entry.id == entry_id)).one_or_none()
    return None if row is None else StoredEntry.of(row)


def create_entry(conn: Connection, new: NewEntry, *, now: int) -> str:
    entry_id = new_id("e")
    note_entry_change(conn, entry_id, new.account_id)
    conn.execute(
        insert(Entry).values(
            id=entry_id,
            account_id=new.account_id,
            repository_id=new.repository_id,
            key=new.key,
            scope="repository",
            lens=new.lens,
            title=redact(new.title),
            text=redact(new.text),
            admission=new.admission,
            associations=json.dumps(redact_values(new.associations), sort_keys=True),
            link_numbers=number_links(conn, new.account_id, redact_values(new.associations)),
            revision=1,
            created_ms=now,
        )
    )
    return entry_id


def receipts_of(conn: Connection, entry_id: str) -> list[StoredReceipt]:
    rows = conn.execute(
        select(Receipt).where(Receipt.entry_id == entry_id).order_by(Receipt.id)
    ).all()
    return [StoredReceipt.of(row) for row in rows]


def entry_tally(conn: Connection, entry_id: str) -> Tally:
    return tally(
        ReceiptFacts(Decision(r.decision), r.lab, r.at_ms, r.superseded)
        for r in receipts_of(conn, entry_id)
    )


def cas_update(conn: Connection, entry_id: str, expected: int, **values: Any) -> int:
    """Change a live entry only if it is still at `expected`; returns the new revision. Title,
    text and associations are stored redacted."""
    values = _redacted_entry_values(values)
    result = conn.execute(
        update(Entry)
        .where(Entry.id == entry_id, Entry.revision == expected, Entry.deleted_ms.is_(None))
        .values(revision=expected + 1, **values)
    )
    if result.rowcount != 1:
        current = entry(conn, entry_id)
        if current is None or current.deleted_ms is not None:
            raise EntryGone(entry_id)
        raise RevisionConflict(entry_id, expected)
    account_id = note_entry_change(conn, entry_id)
    if "associations" in values:  # numbered under the account's lock, taken just above
        numbers = number_links(conn, account_id, values["associations"])
        conn.execute(update(Entry).where(Entry.id == entry_id).values(link_numbers=numbers))
    return expected + 1


def _redacted_entry_values(values: dict[str, Any]) -> dict[str, Any]:
    cleaned = dict(values)
    for field in ("title", "text"):
        if isinstance(cleaned.get(field), str):
            cleaned[field] = redact(cleaned[field])
    links = cleaned.get("associations")
    if isinstance(links, str):
        cleaned["associations"] = redact_json(links)
    elif links is not None:
        cleaned["associations"] = redact_values(links)
    return cleaned


def refresh(conn: Connection, entry_id: str, expected: int, *, now: int, **values: Any) -> int:
    """Recompute the receipt counts, confirmation, expiry and demotion from the receipts, under
    CAS: every change of an entry's receipts is followed by this, in its transaction."""
    counts = entry_tally(conn, entry_id)
    current = entry(conn, entry_id)
    assert current is not None
    changes: dict[str, Any] = {
        "last_confirmed_ms": counts.last_confirmed_ms,
        "expires_ms": counts.expires_ms,
        "accepted_count": counts.accepted,
        "dismissed_count": counts.dismissed,
        "labelled_count": counts.accepted_with_lab,
        **values,
    }
    if current.demoted_ms is None and should_demote(counts):
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
    if existing is not None and not existing.superseded and not others:
        if existing.reason == reason:
            return False
        # The same decision for another reason (a dismissal edited from false-positive to
        # wont-fix): the reason decides where it suppresses, so the receipt follows it.
        conn.execute(
            update(Receipt)
            .where(Receipt.id == existing.id)
            .values(reason=reason, rule=new.rule, span=new.span, actor=new.actor, at_ms=new.at_ms)
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


def person_edit(
    conn: Connection, entry_id: str, *, expected: int, demote: bool, actor: str, now: int
) -> int:
    """A person demotes or restores an entry; only this lifts a demotion. A restore also lifts
    the suppression of every dismissal recorded so far (a later dismissal suppresses again): the
    lift is stamped no earlier than the newest receipt, whatever GitHub's clock said."""
    if demote:
        return cas_update(conn, entry_id, expected, demoted_ms=now, demoted_by=actor)
    newest = conn.execute(
        select(func.max(Receipt.at_ms)).where(Receipt.entry_id == entry_id)
    ).scalar_one_or_none()
    return cas_update(
        conn,
        entry_id,
        expected,
        demoted_ms=None,
        demoted_by=None,
        suppression_lifted_ms=max(now, int(newest or 0)),
        suppression_lifted_by=actor,
    )


def tombstone(conn: Connection, entry_id: str, *, expected: int | None, now: int) -> int:
    """Delete an entry's content and receipts, keeping id, key, repository, revision and sources."""
    current = entry(conn, entry_id)
    if current is None or current.deleted_ms is not None:
        raise EntryGone(entry_id)
    expected = current.revision if expected is None else expected
    sources = sorted(
        set(
            conn.execute(
                select(Receipt.suggestion_id).where(Receipt.entry_id == entry_id)
            ).scalars()
        )
    )
    revision = cas_update(
        conn,
        entry_id,
        expected,
        deleted_ms=now,
        text="",
        title="",
        associations="{}",
        tombstone_sources=json.dumps(sources),
        last_confirmed_ms=None,
        expires_ms=None,
        accepted_count=0,
        dismissed_count=0,
        labelled_count=0,
    )
    conn.execute(delete(Receipt).where(Receipt.entry_id == entry_id))
    hold_sources(conn, current.account_id, entry_id, sources, now=now)
    return revision
