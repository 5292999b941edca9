"""The store's fix PRs: one per suggestion, claimed before it is written, then opened and closed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Self

from sqlalchemy import Connection, Row, insert, select, update
from sqlalchemy.exc import IntegrityError

from continual.stored import StoredReceipt, StoredSuggestion, _of
from continual.tables import FixPullRow, FixState, Receipt, Suggestion
from continual.values import Source


@dataclass(frozen=True, slots=True)
class StoredFix:
    """The fix PR of one suggestion as the store keeps it."""

    suggestion_id: str
    repository_id: int
    pr: int
    number: int | None
    branch: str
    base_ref: str
    commit_sha: str | None
    state: str
    asked_by: str
    asked_comment_id: int
    updated_ms: int

    @classmethod
    def of(cls, row: Row[Any]) -> Self:
        return _of(cls, row)


def fix_of(conn: Connection, suggestion_id: str) -> StoredFix | None:
    row = conn.execute(
        select(FixPullRow).where(FixPullRow.suggestion_id == suggestion_id)
    ).one_or_none()
    return None if row is None else StoredFix.of(row)


def fix_by_number(conn: Connection, repository_id: int, number: int) -> StoredFix | None:
    """The fix PR the app opened as pull request `number` of the repository, if it is one."""
    row = conn.execute(
        select(FixPullRow).where(
            FixPullRow.repository_id == repository_id, FixPullRow.number == number
        )
    ).first()
    return None if row is None else StoredFix.of(row)


LEDGER_ASK = (
    0  # the `asked_comment_id` of an ask from `/ledger`: no comment, below every comment id
)
STALE_OPENING_MS = 120_000  # a claim left opening this long crashed: a later ask may take it over


class Claim(StrEnum):
    """What a `/fix` may do with the suggestion's one fix PR."""

    OPEN = "open"  # go on: write the fix PR (first ask, a retry, or an ask after a refusal)
    LINK = "link"  # it has a fix PR already: answer with its link
    SEEN = "seen"  # this `/fix` (or a later one) was handled already: do nothing


def claim_fix(
    conn: Connection,
    suggestion: StoredSuggestion,
    *,
    branch: str,
    base_ref: str,
    asked_by: str,
    comment_id: int | None,
    now: int,
) -> Claim:
    """Claim the suggestion's one fix PR for the `/fix` comment `comment_id` (None: an ask from
    `/ledger`), before anything is written. The row remembers the latest `/fix` handled, so a
    redelivered one does nothing."""
    values = {
        "branch": branch,
        "base_ref": base_ref,
        "state": FixState.OPENING.value,
        "asked_by": asked_by[:64],
        "asked_comment_id": LEDGER_ASK if comment_id is None else comment_id,
        "updated_ms": now,
    }
    found = fix_of(conn, suggestion.id)
    if found is None:
        try:
            with conn.begin_nested():
                conn.execute(
                    insert(FixPullRow).values(
                        suggestion_id=suggestion.id,
                        account_id=suggestion.account_id,
                        repository_id=suggestion.repository_id,
                        pr=suggestion.pr,
                        number=None,
                        commit_sha=None,
                        created_ms=now,
                        **values,
                    )
                )
        except IntegrityError:
            return Claim.SEEN
        return Claim.OPEN
    if comment_id is None:
        return _ledger_claim(conn, found, values, now)
    if comment_id == found.asked_comment_id and found.state == FixState.OPENING.value:
        return Claim.OPEN  # the same `/fix`, run again after a failure
    if comment_id <= found.asked_comment_id:
        return Claim.SEEN
    if found.number is not None:
        moved = _move_ask(conn, found, {"asked_comment_id": comment_id, "updated_ms": now})
        return Claim.LINK if moved else Claim.SEEN
    return Claim.OPEN if _move_ask(conn, found, values) else Claim.SEEN


def _ledger_claim(
    conn: Connection, found: StoredFix, values: Mapping[str, object], now: int
) -> Claim:
    """An ask from `/ledger` (no comment to order it by): link the fix PR there is; open again
    after a refusal, or over a claim that crashed while opening; else it is being opened."""
    if found.number is not None:
        return Claim.LINK
    if found.state == FixState.OPENING.value and now - found.updated_ms < STALE_OPENING_MS:
        return Claim.SEEN
    kept = {**values, "asked_comment_id": found.asked_comment_id}
    return Claim.OPEN if _move_ask(conn, found, kept) else Claim.SEEN


def _move_ask(conn: Connection, found: StoredFix, values: Mapping[str, object]) -> bool:
    """Compare-and-swap on the ask the row was read with: of two asks at once, one moves it."""
    moved = conn.execute(
        update(FixPullRow)
        .where(
            FixPullRow.suggestion_id == found.suggestion_id,
            FixPullRow.asked_comment_id == found.asked_comment_id,
            FixPullRow.updated_ms == found.updated_ms,
            FixPullRow.state == found.state,
        )
        .values(**values)
    )
    return moved.rowcount == 1


def note_opened(
    conn: Connection, suggestion_id: str, *, number: int, commit_sha: str, now: int
) -> None:
    conn.execute(
        update(FixPullRow)
        .where(FixPullRow.suggestion_id == suggestion_id)
        .values(number=number, commit_sha=commit_sha, state=FixState.OPEN.value, updated_ms=now)
    )


def note_refused(conn: Connection, suggestion_id: str, *, now: int) -> None:
    """The latest `/fix` opened nothing (the thread is told why); a later one may try again."""
    conn.execute(
        update(FixPullRow)
        .where(
            FixPullRow.suggestion_id == suggestion_id,
            FixPullRow.state == FixState.OPENING.value,
        )
        .values(state=FixState.REFUSED.value, updated_ms=now)
    )


def note_closed(conn: Connection, suggestion_id: str, *, merged: bool, now: int) -> None:
    state = FixState.MERGED if merged else FixState.CLOSED
    conn.execute(
        update(FixPullRow)
        .where(FixPullRow.suggestion_id == suggestion_id)
        .values(state=state.value, updated_ms=now)
    )


def suggestion_of_comment(
    conn: Connection, repository_id: int, comment_id: int
) -> StoredSuggestion | None:
    """The suggestion the app posted as review comment `comment_id` of the repository: only the
    app's own comments are known here, so a marker in anyone else's never names one."""
    row = conn.execute(
        select(Suggestion).where(
            Suggestion.repository_id == repository_id, Suggestion.comment_id == comment_id
        )
    ).first()
    return None if row is None else StoredSuggestion.of(row)


def fix_receipt(conn: Connection, suggestion_id: str) -> StoredReceipt | None:
    """The suggestion's current receipt from its fix PR, if its close decided anything."""
    row = conn.execute(
        select(Receipt).where(
            Receipt.suggestion_id == suggestion_id,
            Receipt.source == Source.FIX_PR.value,
            Receipt.superseded.is_(False),
        )
    ).first()
    return None if row is None else StoredReceipt.of(row)


@dataclass(frozen=True, slots=True)
class Pending:
    """A suggestion with no decision recorded, as `/ledger` lists it, with its fix PR if any."""

    suggestion: StoredSuggestion
    fix: StoredFix | None


def pending_suggestions(conn: Connection, repository_id: int, *, most: int) -> list[Pending]:
    """The repository's latest posted suggestions with no current receipt (newest first, at most
    `most`): the ones a fix PR may still be asked for from `/ledger`."""
    decided = select(Receipt.suggestion_id).where(Receipt.superseded.is_(False))
    rows = conn.execute(
        select(Suggestion)
        .where(
            Suggestion.repository_id == repository_id,
            Suggestion.comment_id.is_not(None),
            Suggestion.comment_of.is_(None),
            Suggestion.id.not_in(decided),
        )
        .order_by(Suggestion.created_ms.desc(), Suggestion.id)
        .limit(most)
    ).all()
    suggestions = [StoredSuggestion.of(row) for row in rows]
    fixes = {
        row.suggestion_id: StoredFix.of(row)
        for row in conn.execute(
            select(FixPullRow).where(FixPullRow.suggestion_id.in_([s.id for s in suggestions]))
        ).all()
    }
    return [Pending(s, fixes.get(s.id)) for s in suggestions]
