"""The ledger's values: one repository's counts, and with the brain its lessons and what was handed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from continual.recall import Lesson
from continual.values import Decision

PENDING = "pending"

# Field names are the keys the API and the CLI print (docs/api.md), in the order they print them:
# a new counter is one new field here, plus the query that fills it.

# Field metadata read by renderers: INLINE puts a value's own fields beside its siblings' instead
# of under its name; BRAIN marks what only `brain=true` fills (None, and left out, otherwise).
INLINE = "inline"
BRAIN = "brain"


def _rate(accepted: int, decided: int) -> float | None:
    return round(accepted / decided, 4) if decided else None


@dataclass(frozen=True, slots=True)
class Counts:
    """Suggestions by outcome (accepted, dismissed, pending) and the share of decided accepted."""

    total: int
    accepted: int
    dismissed: int
    pending: int
    acceptance_rate: float | None

    @classmethod
    def of(cls, outcomes: Iterable[str]) -> Counts:
        tally = Counter(outcomes)
        accepted = tally[Decision.ACCEPTED.value]
        dismissed = tally[Decision.DISMISSED.value]
        return cls(
            total=sum(tally.values()),
            accepted=accepted,
            dismissed=dismissed,
            pending=tally[PENDING],
            acceptance_rate=_rate(accepted, accepted + dismissed),
        )


@dataclass(frozen=True, slots=True)
class CallFailure:
    """How often one seat's calls failed for one reason."""

    seat: str
    reason: str
    count: int


@dataclass(frozen=True, slots=True)
class Calls:
    """The repository's seat calls by status, and the failures by seat and reason."""

    ok: int
    failed: int
    skipped: int
    failures: tuple[CallFailure, ...]


@dataclass(frozen=True, slots=True)
class SeatLensCounts:
    """One seat's suggestions under one lens: outcomes, proven findings, other seats agreeing."""

    seat: str
    lens: str
    counts: Counts = field(metadata={INLINE: True})
    proven: int
    agreements: int


@dataclass(frozen=True, slots=True)
class RuleCount:
    """How many current decisions one write-back rule made from one source."""

    rule: str
    decision: str
    source: str
    count: int


@dataclass(frozen=True, slots=True)
class SignalCount:
    """How many current decisions came from one kind of maintainer signal; `bound` of them were
    bound by the code's evidence, and the threads whose latest reply of that signal has not
    bound: `claimed` (an acceptance waiting for the change), `argued` (a dismissal waiting for
    the close), `deferred`, `dropped` (closed without the evidence)."""

    signal: str
    accepted: int
    dismissed: int
    bound: int = 0
    claimed: int = 0
    argued: int = 0
    deferred: int = 0
    dropped: int = 0


@dataclass(frozen=True, slots=True)
class BoundDecision:
    """One current decision the code's evidence bound, and the commit that shows it."""

    suggestion: str
    path: str
    decision: str
    signal: str
    rule: str
    evidence: str  # lines-changed, replacement-landed, lines-kept
    commit: str | None
    at_ms: int


# The kinds of signal a maintainer's decision can come from, in the order the ledger shows them.
# A reply is told apart by the rule that read it: the typed grammar, plain phrasing, the judge.
SIGNALS = (
    "grammar",
    "natural",
    "judge",
    "reaction",
    "applied",
    "fix_pr",
    "merged_author_fix",
    "person",
)


def signal_of(rule: str, source: str) -> str:
    """The kind of signal behind a receipt, from its source and the rule that read it."""
    if source != "reply":
        return source
    if rule.startswith("judge:"):
        return "judge"
    return "natural" if rule.startswith("natural") else "grammar"


HELD_STATES = ("claimed", "argued", "deferred", "dropped")


def by_signal(
    rules: tuple[RuleCount, ...],
    held: Mapping[tuple[str, str], int] | None = None,
    bound: Iterable[BoundDecision] = (),
) -> tuple[SignalCount, ...]:
    """Decisions per signal, every known signal listed (zeros included) and any other after;
    `held` counts the threads' claims by (signal, state), `bound` the decisions evidence bound."""
    empty = {"accepted": 0, "dismissed": 0, "bound": 0, **{state: 0 for state in HELD_STATES}}
    tally: dict[str, dict[str, int]] = {s: dict(empty) for s in SIGNALS}
    for rule in rules:
        counts = tally.setdefault(signal_of(rule.rule, rule.source), dict(empty))
        if rule.decision in counts:
            counts[rule.decision] += rule.count
    for (signal, state), count in (held or {}).items():
        counts = tally.setdefault(signal, dict(empty))
        if state in counts:
            counts[state] += count
    for decision in bound:
        tally.setdefault(decision.signal, dict(empty))["bound"] += 1
    return tuple(SignalCount(signal, **counts) for signal, counts in tally.items())


@dataclass(frozen=True, slots=True)
class Acceptance:
    """Outcomes of suggestions whose review was handed lessons, and of the others."""

    with_lessons: Counts
    without_lessons: Counts


@dataclass(frozen=True, slots=True)
class EntryCounts:
    """The repository's lessons by state."""

    active: int
    candidate: int
    demoted: int
    expired: int


@dataclass(frozen=True, slots=True)
class EntryRevision:
    """One lesson at the revision a review was handed."""

    id: str
    revision: int


@dataclass(frozen=True, slots=True)
class ReviewHanded:
    """What one review was handed: the guidance set, its lessons and its size."""

    review: str
    set_sha256: str
    entries: tuple[EntryRevision, ...]
    chars: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class RepositoryLedger:
    """One repository's ledger; `lessons` and `handed` are None unless the brain was asked for."""

    repository: str
    reviews: int
    posted: int
    calls: Calls
    suggestions: Counts
    by_seat_and_lens: tuple[SeatLensCounts, ...]
    decisions_by_rule: tuple[RuleCount, ...]
    decisions_by_signal: tuple[SignalCount, ...]
    acceptance: Acceptance
    entries: EntryCounts
    hits: int
    memory: Mapping[str, int]
    suppressed: int  # findings not posted: their mechanism was dismissed here (docs/writeback.md)
    resolved: int  # suggestions whose thread is resolved: evidence, never a decision
    # the newest decisions the code's evidence bound, with the commit that shows it
    bound_by_evidence: tuple[BoundDecision, ...] = ()
    # proofs of posted findings by outcome: proven, skipped-no-sandbox, still-failing, …
    proofs: Mapping[str, int] = field(default_factory=dict)
    lessons: tuple[Lesson, ...] | None = field(default=None, metadata={BRAIN: True})
    handed: tuple[ReviewHanded, ...] | None = field(default=None, metadata={BRAIN: True})
