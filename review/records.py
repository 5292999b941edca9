"""The review's rows: the idempotency record per head, its calls, suggestions and agreements."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from continual import store
from continual.maintenance.anchors import verify_anchors
from continual.memory import MemoryHit, MemoryItem, delete_rows, save_hits, save_items
from continual.proofs import NewProof, ProofEvidence, record_proofs
from continual.secrets import redact, redact_json, redact_optional
from continual.suppression import Withheld, record_withheld
from continual.tables import (
    CallStatus,
    ProofRow,
    ReviewAgreement,
    ReviewCallRow,
    ReviewRow,
    ReviewState,
    Suggestion,
    SuppressedFinding,
)
from review.compose import Draft, comment_owners, proven_fix_patch
from review.runs import PostedFinding, ReviewRun

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReviewTarget:
    """The pull-request head one review is about, in the store's terms."""

    account_id: int
    repository_id: int
    repository: str
    pr: int
    head_sha: str


@dataclass(frozen=True)
class Claim:
    """The idempotency record as found: a fresh run, a draft to (re)post, or nothing to do."""

    review_id: str
    state: ReviewState
    draft: Draft | None = None
    github_review_id: int | None = None


def claim_review(engine: Engine, target: ReviewTarget, *, now: int) -> Claim:
    """Create or read the one review row of this head.

    A row left ``running`` by an interrupted attempt is reset (its calls, suggestions and memory
    deleted; nothing of it was posted) and run again under the same id.
    """
    review_id = store.new_id("r")
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(ReviewRow).values(
                    id=review_id,
                    account_id=target.account_id,
                    repository_id=target.repository_id,
                    pr=target.pr,
                    head_sha=target.head_sha,
                    state=ReviewState.RUNNING.value,
                    created_ms=now,
                )
            )
        return Claim(review_id, ReviewState.RUNNING)
    except IntegrityError:
        pass
    with engine.begin() as conn:
        row = conn.execute(
            select(ReviewRow).where(
                ReviewRow.repository_id == target.repository_id,
                ReviewRow.pr == target.pr,
                ReviewRow.head_sha == target.head_sha,
            )
        ).one()
        state = ReviewState(row.state)
        if state is ReviewState.RUNNING:
            _reset(conn, row.id)
        draft = Draft.from_json(row.draft) if row.draft else None
        return Claim(row.id, state, draft, row.github_review_id)


def _reset(conn: Connection, review_id: str) -> None:
    conn.execute(delete(ReviewCallRow).where(ReviewCallRow.review_id == review_id))
    conn.execute(delete(ReviewAgreement).where(ReviewAgreement.review_id == review_id))
    conn.execute(delete(ProofRow).where(ProofRow.review_id == review_id))
    conn.execute(delete(Suggestion).where(Suggestion.review_id == review_id))
    conn.execute(delete(SuppressedFinding).where(SuppressedFinding.review_id == review_id))
    delete_rows(conn, review_id)


def new_suggestion_ids(findings: Sequence[PostedFinding]) -> list[tuple[str, PostedFinding]]:
    return [(store.new_id("s"), item) for item in findings]


def save_run(
    engine: Engine,
    target: ReviewTarget,
    *,
    run: ReviewRun,
    suggestions: Sequence[tuple[str, PostedFinding]],
    draft: Draft | None,
    lessons_sha256: str,
    lessons: int,
    learned: Sequence[MemoryItem],
    hits: Sequence[MemoryHit],
    now: int,
    withheld: Sequence[Withheld] = (),
    context: Mapping[str, str] | None = None,
) -> list[MemoryItem]:
    """Store everything the run produced in one transaction and move the row to posting/empty;
    ``withheld`` are the findings not posted because their mechanism was dismissed here;
    ``context`` is what the head holds of each changed file (the diff's head side), which a
    lesson's anchors are checked against. Answers the memory items as stored (a claim the
    repository's memory corroborates stored active)."""
    with engine.begin() as conn:
        _save_calls(conn, target.account_id, run, now)
        owners = comment_owners(suggestions)
        for suggestion_id, item in suggestions:
            new = _suggestion(target, run, suggestion_id, item, lessons_sha256, context or {})
            store.record_suggestion(
                conn, replace(new, comment_of=owners.get(suggestion_id)), now=now
            )
            _save_agreements(conn, target.account_id, run.review_id, suggestion_id, item, now)
        record_proofs(conn, _proofs(target, run.review_id, suggestions, now))
        record_withheld(
            conn,
            account_id=target.account_id,
            repository_id=target.repository_id,
            review_id=run.review_id,
            withheld=withheld,
            now=now,
        )
        stored = save_items(
            conn,
            account_id=target.account_id,
            repository_id=target.repository_id,
            items=learned,
            now_ms=now,
        )
        save_hits(
            conn,
            account_id=target.account_id,
            repository_id=target.repository_id,
            review_id=run.review_id,
            hits=hits,
            now_ms=now,
        )
        state = ReviewState.POSTING if draft is not None else ReviewState.EMPTY
        conn.execute(
            update(ReviewRow)
            .where(ReviewRow.id == run.review_id)
            .values(
                state=state.value,
                set_sha256=lessons_sha256,
                lessons=lessons,
                shards=run.shards,
                calls_ok=run.count(CallStatus.OK),
                calls_failed=run.count(CallStatus.FAILED),
                calls_skipped=run.count(CallStatus.SKIPPED),
                suggestions=len(suggestions),
                draft=redact_json(draft.to_json()) if draft is not None else None,
                finished_ms=now if draft is None else None,
            )
        )
    return stored


def _suggestion(
    target: ReviewTarget,
    run: ReviewRun,
    suggestion_id: str,
    item: PostedFinding,
    lessons_sha256: str,
    context: Mapping[str, str],
) -> store.NewSuggestion:
    finding = item.finding
    anchors = verify_anchors(
        path=finding.path, title=finding.title, lesson=finding.lesson or "", files=context
    )
    return store.NewSuggestion(
        id=suggestion_id,
        account_id=target.account_id,
        repository_id=target.repository_id,
        pr=target.pr,
        head_sha=target.head_sha,
        path=finding.path,
        line=finding.line,
        seat=item.seat,
        lab=item.lab,
        lens=item.lens,
        title=finding.title,
        entry_key=item.key,
        body=finding.body,
        lesson=finding.lesson or "",
        replacement=finding.suggestion,
        set_sha256=lessons_sha256,
        review_id=run.review_id,
        proven=item.proven,
        anchors=anchors.to_json(),
    )


def _proofs(
    target: ReviewTarget,
    review_id: str,
    suggestions: Sequence[tuple[str, PostedFinding]],
    now: int,
) -> list[NewProof]:
    """The evidence of every posted finding whose proof was run (or skipped, and why)."""
    return [
        NewProof(
            suggestion_id=suggestion_id,
            account_id=target.account_id,
            repository_id=target.repository_id,
            review_id=review_id,
            evidence=ProofEvidence(
                test=item.finding.proof.test,
                outcome=item.proof.outcome.value,
                reason=redact(item.proof.reason),
                head_sha=target.head_sha,
                sandbox=item.proof.sandbox,
                at_ms=now,
            ),
            fix_patch=proven_fix_patch(item.finding, proven=item.proven),
        )
        for suggestion_id, item in suggestions
        if item.proof is not None and item.finding.proof is not None
    ]


def _save_calls(conn: Connection, account_id: int, run: ReviewRun, now: int) -> None:
    if not run.calls:
        return
    conn.execute(
        insert(ReviewCallRow),
        [
            {
                "account_id": account_id,
                "review_id": run.review_id,
                "call_id": call.call_id,
                "seat": call.seat,
                "lab": call.lab,
                "lens": call.lens,
                "shard": call.shard,
                "status": call.status.value,
                "reason": call.reason,
                "message": redact_optional(call.message),
                "duration_ms": call.duration_ms,
                "set_sha256": call.set_sha256,
                "findings": call.findings,
                "dropped": call.dropped,
                "memory_omitted": call.memory_omitted,
                "cross_omitted": call.cross_omitted,
                "prompt_chars": call.prompt_chars,
                "created_ms": now,
            }
            for call in run.calls
        ],
    )


def _save_agreements(
    conn: Connection,
    account_id: int,
    review_id: str,
    suggestion_id: str,
    item: PostedFinding,
    now: int,
) -> None:
    for agreeing in item.agreements:
        conn.execute(
            insert(ReviewAgreement).values(
                account_id=account_id,
                review_id=review_id,
                suggestion_id=suggestion_id,
                seat=agreeing.seat,
                lab=agreeing.lab,
                lens=agreeing.lens,
                created_ms=now,
            )
        )


def mark_posted(engine: Engine, review_id: str, github_review_id: int, *, now: int) -> None:
    """Record the posted review's GitHub id: from now on the head counts as reviewed."""
    with engine.begin() as conn:
        conn.execute(
            update(ReviewRow)
            .where(ReviewRow.id == review_id)
            .values(
                state=ReviewState.POSTED.value, github_review_id=github_review_id, finished_ms=now
            )
        )


def set_comment_ids(engine: Engine, pairs: Iterable[tuple[str, int]]) -> int:
    """Tie each suggestion to the GitHub comment that carries its marker."""
    count = 0
    with engine.begin() as conn:
        for suggestion_id, comment_id in pairs:
            store.set_comment_id(conn, suggestion_id, comment_id)
            count += 1
    return count
