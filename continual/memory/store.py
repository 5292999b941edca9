"""Stored session memory in the database: save a review's items and hits, recall, count, forget."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy import Connection, delete, func, insert, select

from continual.memory.items import (
    ItemKind,
    MemoryHit,
    MemoryItem,
    kept_as,
    promotable,
    without_secrets,
)
from continual.memory.provenance import Reporter, Source, joined, reported_source
from continual.tables import MemoryHitRow, MemoryItemRow
from continual.times import from_ms, to_ms
from continual.values import EntryState

EXPIRED = "expired"


def reporters_json(reporters: Sequence[Reporter]) -> str:
    return json.dumps([[reporter.seat, reporter.lab] for reporter in reporters])


def _reporters(row_json: str, seat: str) -> tuple[Reporter, ...]:
    """A row's reporters; a row kept before they were recorded has its seat, lab unknown."""
    pairs = json.loads(row_json or "[]")
    found = tuple(Reporter(str(pair[0]), str(pair[1])) for pair in pairs)
    return found or (Reporter(seat, ""),)


def _standing(
    conn: Connection, account_id: int, repository_id: int, subjects: set[str], now_ms: int
) -> dict[str, tuple[Source, tuple[Reporter, ...]]]:
    """Per subject, what the repository's unexpired memory already holds: the best source any
    of its items has and every seat (with its lab) that reported it."""
    out: dict[str, tuple[Source, tuple[Reporter, ...]]] = {}
    if not subjects:
        return out
    rows = conn.execute(
        select(
            MemoryItemRow.subject,
            MemoryItemRow.source,
            MemoryItemRow.state,
            MemoryItemRow.seat,
            MemoryItemRow.reporters,
        )
        .where(
            MemoryItemRow.account_id == account_id,
            MemoryItemRow.repository_id == repository_id,
            MemoryItemRow.expires_ms > now_ms,
            MemoryItemRow.subject.in_(sorted(subjects)),
        )
        .order_by(MemoryItemRow.id)
    ).all()
    for subject, source, state, seat, reporters in rows:
        held, who = out.get(subject, (Source.REPORTED, ()))
        found = Source(source) if state == EntryState.ACTIVE.value else Source.REPORTED
        out[subject] = (
            found if found.established and not held.established else held,
            joined(who, _reporters(reporters, seat)),
        )
    return out


def _with_standing(
    item: MemoryItem, standing: tuple[Source, tuple[Reporter, ...]] | None, now_ms: int
) -> MemoryItem:
    """``item`` as the repository's memory makes it: a claim another lab already reported here
    is corroborated, and a subject the app observed (or two labs reported) stays established."""
    if standing is None or item.source.established or not promotable(item.kind, item.text):
        return item
    held, who = standing
    reporters = joined(item.reported_by, who)
    source = held if held.established else reported_source(reporters, promotable=True)
    if not source.established:
        return item
    state, expires_at = kept_as(source, from_ms(now_ms))
    return replace(item, source=source, reporters=reporters, state=state, expires_at=expires_at)


def save_items(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    items: Sequence[MemoryItem],
    now_ms: int,
) -> list[MemoryItem]:
    """Store what a review learned and answer it as stored. An item arrives as its source makes
    it (a seat's report: a candidate); a claim the repository's memory already holds from a seat
    of another lab, or that the app observed, is stored corroborated or observed (active). An
    item holding a secret is never stored."""
    items = without_secrets(items)
    if not items:
        return []
    subjects = {item.subject for item in items if not item.source.established}
    standing = _standing(conn, account_id, repository_id, subjects, now_ms)
    items = [_with_standing(item, standing.get(item.subject), now_ms) for item in items]
    conn.execute(
        insert(MemoryItemRow),
        [
            {
                "account_id": account_id,
                "repository_id": repository_id,
                "review_id": item.session,
                "kind": item.kind.value,
                "subject": item.subject,
                "text": item.text,
                "seat": item.seat,
                "lens": item.lens,
                "commit": item.commit,
                "files": json.dumps(list(item.files)),
                "state": item.state.value,
                "source": item.source.value,
                "reporters": reporters_json(item.reported_by),
                "expires_ms": to_ms(item.expires_at),
                "created_ms": now_ms,
            }
            for item in items
        ],
    )
    return items


def save_hits(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    review_id: str,
    hits: Sequence[MemoryHit],
    now_ms: int,
) -> int:
    """Store the recalled subjects that came up again in review ``review_id``."""
    if not hits:
        return 0
    conn.execute(
        insert(MemoryHitRow),
        [
            {
                "account_id": account_id,
                "repository_id": repository_id,
                "review_id": review_id,
                "recalled_review_id": hit.recalled_session,
                "kind": hit.kind.value,
                "subject": hit.subject,
                "subject_sha256": hashlib.sha256(hit.subject.encode()).hexdigest(),
                "seat": hit.seat,
                "call_id": hit.call_id,
                "created_ms": now_ms,
            }
            for hit in hits
        ],
    )
    return len(hits)


def recall_items(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    now_ms: int,
    exclude_review: str | None = None,
) -> list[MemoryItem]:
    """Unexpired memory of the repository's earlier sessions, newest first, one per subject (an
    established item before any claim of the same subject)."""
    query = (
        select(MemoryItemRow)
        .where(
            MemoryItemRow.account_id == account_id,
            MemoryItemRow.repository_id == repository_id,
            MemoryItemRow.expires_ms > now_ms,
        )
        .order_by(MemoryItemRow.created_ms.desc(), MemoryItemRow.id.desc())
    )
    if exclude_review is not None:
        query = query.where(MemoryItemRow.review_id != exclude_review)
    best: dict[str, MemoryItem] = {}
    for row in conn.execute(query).all():
        held = best.get(row.subject)
        if held is not None and (held.established or row.state != EntryState.ACTIVE.value):
            continue
        item = MemoryItem(
            kind=ItemKind(row.kind),
            subject=row.subject,
            text=row.text,
            seat=row.seat,
            session=row.review_id,
            commit=row.commit,
            state=EntryState(row.state),
            expires_at=from_ms(row.expires_ms),
            recorded_at=from_ms(row.created_ms),
            lens=row.lens,
            files=tuple(json.loads(row.files)),
            source=Source(row.source),
            reporters=_reporters(row.reporters, row.seat),
        )
        if held is None or item.established:
            best[row.subject] = item
    return list(best.values())


def holds(conn: Connection, session_id: str, *, account_id: int) -> bool:
    """Whether the account stores any memory item or hit of the session."""
    for table, column in (
        (MemoryItemRow, MemoryItemRow.review_id),
        (MemoryHitRow, MemoryHitRow.review_id),
    ):
        found = conn.execute(
            select(column).where(table.account_id == account_id, column == session_id).limit(1)
        ).first()
        if found is not None:
            return True
    return False


def delete_rows(
    conn: Connection, session_id: str, *, account_id: int | None = None
) -> tuple[int, int]:
    """Delete the session's stored items and hits (of one account, when given); answers
    (items, hits) deleted."""
    items = delete(MemoryItemRow).where(MemoryItemRow.review_id == session_id)
    hits = delete(MemoryHitRow).where(MemoryHitRow.review_id == session_id)
    if account_id is not None:
        items = items.where(MemoryItemRow.account_id == account_id)
        hits = hits.where(MemoryHitRow.account_id == account_id)
    return conn.execute(items).rowcount, conn.execute(hits).rowcount


def states_by_repository(
    conn: Connection, account_id: int, *, now_ms: int
) -> dict[int, Counter[str]]:
    """Per repository of the account: its stored items by state, the expired counted apart."""
    out: defaultdict[int, Counter[str]] = defaultdict(Counter)
    for repository_id, state, expires_ms in conn.execute(
        select(MemoryItemRow.repository_id, MemoryItemRow.state, MemoryItemRow.expires_ms).where(
            MemoryItemRow.account_id == account_id
        )
    ).all():
        out[repository_id][EXPIRED if expires_ms <= now_ms else state] += 1
    return dict(out)


def hits_by_repository(conn: Connection, account_id: int) -> dict[int, int]:
    """Per repository of the account: how many recalled subjects came up again."""
    rows = conn.execute(
        select(MemoryHitRow.repository_id, func.count())
        .where(MemoryHitRow.account_id == account_id)
        .group_by(MemoryHitRow.repository_id)
    ).all()
    return {repository_id: count for repository_id, count in rows}
