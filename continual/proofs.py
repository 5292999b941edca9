"""Proofs as evidence: what running a suggestion's proof showed, stored beside the suggestion.

A proof is never a decision: it adds no receipt, activates no lesson and widens none. It is
shown on the posted suggestion and carried on the receipts of the decisions made on that
suggestion, so whoever reads a receipt sees the test, its result and the commit it ran on.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, insert, select
from sqlalchemy.engine import Connection

from continual.tables import ProofRow


@dataclass(frozen=True, slots=True)
class ProofEvidence:
    """The proof of a suggestion: its test, the outcome (``proven``, ``skipped``, …) and why,
    the head commit it ran on and what it ran in (``bwrap``, ``unsandboxed``, ``none``)."""

    test: str
    outcome: str
    reason: str
    head_sha: str
    sandbox: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class NewProof:
    suggestion_id: str
    account_id: int
    repository_id: int
    review_id: str | None
    evidence: ProofEvidence
    fix_patch: str | None = None  # the proven fix's patch a fix PR may apply (fix_patches)


def record_proofs(conn: Connection, proofs: Iterable[NewProof]) -> int:
    """Store each proof's evidence in the caller's transaction; answers how many."""
    rows = [
        {
            "suggestion_id": p.suggestion_id,
            "account_id": p.account_id,
            "repository_id": p.repository_id,
            "review_id": p.review_id,
            "test": p.evidence.test,
            "outcome": p.evidence.outcome,
            "reason": p.evidence.reason,
            "head_sha": p.evidence.head_sha,
            "sandbox": p.evidence.sandbox,
            "created_ms": p.evidence.at_ms,
            "fix_patch": p.fix_patch,
        }
        for p in proofs
    ]
    if rows:
        conn.execute(insert(ProofRow), rows)
    return len(rows)


def _evidence(row: Row[Any]) -> ProofEvidence:
    return ProofEvidence(
        test=row.test,
        outcome=row.outcome,
        reason=row.reason,
        head_sha=row.head_sha,
        sandbox=row.sandbox,
        at_ms=row.created_ms,
    )


def proven_patch(conn: Connection, suggestion_id: str) -> str | None:
    """The patch of the suggestion's proven fix, as shown with it; None when it has none."""
    found = conn.execute(
        select(ProofRow.fix_patch).where(
            ProofRow.suggestion_id == suggestion_id, ProofRow.outcome == "proven"
        )
    ).scalar()
    return found if isinstance(found, str) and found else None


def proofs_of_account(conn: Connection, account_id: int) -> dict[str, ProofEvidence]:
    """The account's proofs by suggestion id (what the account's receipts carry)."""
    rows = conn.execute(select(ProofRow).where(ProofRow.account_id == account_id)).all()
    return {row.suggestion_id: _evidence(row) for row in rows}


def outcomes_by_repository(conn: Connection, account_id: int) -> Mapping[int, dict[str, int]]:
    """Per repository, how many proofs ended in each outcome (the ledger's ``proofs``)."""
    tally: defaultdict[int, Counter[str]] = defaultdict(Counter)
    for repository_id, outcome in conn.execute(
        select(ProofRow.repository_id, ProofRow.outcome).where(ProofRow.account_id == account_id)
    ).all():
        tally[repository_id][outcome] += 1
    return {repository_id: dict(sorted(counts.items())) for repository_id, counts in tally.items()}
