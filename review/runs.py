"""What one review runs over and what it produced: the job, its planned calls, how each call
ended, and the findings as they will be posted."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from continual.memory import MemoryHit, MemoryItem
from continual.tables import CallStatus
from review.contract import Finding, LessonRef, PullRequestInfo
from review.lenses import Lens
from review.memory import SessionMemory
from review.proof import ProofReport
from review.sandbox import Sandbox
from review.seats import Seat
from review.shards import PullFile, Shard


@dataclass(frozen=True)
class ReviewJob:
    """What one review runs over; ``checkout`` is a local git repository holding the head."""

    review_id: str
    repository: str
    pull: PullRequestInfo
    files: tuple[PullFile, ...]
    lessons: tuple[LessonRef, ...] = ()
    lessons_text: str = ""
    recalled: tuple[MemoryItem, ...] = ()
    checkout: Path | None = None
    dismissed_text: str = ""  # the repository's dismissed mechanisms, as the header hands them
    summary_text: str = ""  # the repository's memory summary, framed, as the header hands it
    sandbox: Sandbox | None = None  # where proofs run; None: the machine's (detected once)


@dataclass(frozen=True)
class PlannedCall:
    """One seat × lens × shard call in the order the review starts them."""

    index: int
    seat: Seat
    lens: Lens
    shard: Shard

    def call_id(self, review_id: str) -> str:
        """``<review>/<seat>/<lens>/<shard>``."""
        return f"{review_id}/{self.seat.config.name}/{self.lens.name}/{self.shard.index}"


@dataclass(frozen=True)
class CallOutcome:
    """How one call ended and what it was handed."""

    call_id: str
    seat: str
    lab: str
    lens: str
    shard: int
    status: CallStatus
    duration_ms: int = 0
    reason: str | None = None
    message: str | None = None
    set_sha256: str | None = None
    findings: int = 0
    dropped: int = 0
    memory_omitted: int = 0
    cross_omitted: int = 0
    prompt_chars: int = 0
    header_chars: int = 0


@dataclass(frozen=True)
class Agreeing:
    """Another seat that reported the same mechanism on the same line."""

    seat: str
    lab: str
    lens: str


@dataclass(frozen=True)
class PostedFinding:
    """A finding as it will be posted: once per mechanism and line, whoever else agreed."""

    finding: Finding
    seat: str
    lab: str
    lens: str
    call_id: str
    key: str
    agreements: tuple[Agreeing, ...] = ()
    proof: ProofReport | None = None

    @property
    def proven(self) -> bool:
        return self.proof is not None and self.proof.proven


@dataclass(frozen=True)
class ReviewRun:
    """Everything a review produced, ready to be stored and posted."""

    review_id: str
    header: str
    shards: int
    calls: tuple[CallOutcome, ...]
    findings: tuple[PostedFinding, ...]
    memory: SessionMemory
    hits: tuple[MemoryHit, ...]

    def count(self, status: CallStatus) -> int:
        return sum(1 for call in self.calls if call.status is status)
