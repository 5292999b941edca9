"""What a job handler is handed: its collaborators, built once at start and passed down."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from continual.recall import SnapshotCache
from continual.suppression import DEFAULT_SUPPRESS_DAYS
from ghapp.jobs import Clock, JobQueue
from ghapp.metrics import Metrics
from ghapp.settings import Settings
from review.config import ReviewConfig
from review.sandbox import Sandbox

if TYPE_CHECKING:
    from ghapp.github.client import GitHubClient


@dataclass(frozen=True)
class Deps:
    settings: Settings
    engine: Engine
    queue: JobQueue
    github: GitHubClient | None
    clock: Clock
    review_config: ReviewConfig | None = None
    sandbox: Sandbox | None = None  # where proofs run, detected at start (review.sandbox)
    snapshots: SnapshotCache = field(default_factory=SnapshotCache)
    metrics: Metrics = field(default_factory=Metrics)

    @property
    def suppress_days(self) -> int:
        """How long a dismissal keeps its mechanism out (`[writeback] suppress_days`)."""
        if self.review_config is None:
            return DEFAULT_SUPPRESS_DAYS
        return self.review_config.writeback.suppress_days
