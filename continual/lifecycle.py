"""Pure rules of an entry's life: confirmation, expiry, demotion and whether it may be injected."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from continual.values import EVIDENCE_ONLY_SOURCES, Decision, EntryState

DAY_MS = 86_400_000
CONFIRMATION_TTL_MS = 30 * DAY_MS
DEMOTION_MIN_DISMISSALS = 2


@dataclass(frozen=True, slots=True)
class ReceiptFacts:
    """What the rules need of one receipt."""

    decision: Decision
    lab: str | None
    at_ms: int
    superseded: bool
    source: str = ""


@dataclass(frozen=True, slots=True)
class Tally:
    accepted: int
    dismissed: int
    accepted_with_lab: int
    last_confirmed_ms: int | None

    @property
    def expires_ms(self) -> int | None:
        if self.last_confirmed_ms is None:
            return None
        return self.last_confirmed_ms + CONFIRMATION_TTL_MS


def tally(receipts: Iterable[ReceiptFacts]) -> Tally:
    """Count the current (not superseded) receipts; confirmations are the accepted ones. A
    receipt of an evidence-only source (the review history) counts for nothing: it never makes
    an entry active, confirms it or pushes its expiry."""
    accepted = dismissed = with_lab = 0
    last: int | None = None
    for receipt in receipts:
        if receipt.superseded or receipt.source in EVIDENCE_ONLY_SOURCES:
            continue
        if receipt.decision is Decision.ACCEPTED:
            accepted += 1
            with_lab += bool(receipt.lab)
            last = receipt.at_ms if last is None else max(last, receipt.at_ms)
        else:
            dismissed += 1
    return Tally(accepted, dismissed, with_lab, last)


def should_demote(counts: Tally) -> bool:
    """≥ 2 dismissals and more dismissals than acceptances."""
    return counts.dismissed >= DEMOTION_MIN_DISMISSALS and counts.dismissed > counts.accepted


def entry_state(
    *,
    demoted: bool,
    admitted: bool,
    counts: Tally,
    expires_ms: int | None,
    now_ms: int,
) -> EntryState:
    """Active (injectable) iff not demoted, not expired, admitted, and accepted by a seat with a lab."""
    if demoted:
        return EntryState.DEMOTED
    if expires_ms is not None and now_ms >= expires_ms:
        return EntryState.EXPIRED
    if admitted and counts.accepted_with_lab > 0:
        return EntryState.ACTIVE
    return EntryState.CANDIDATE
