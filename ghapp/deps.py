"""What a job handler is handed: its collaborators, built once at start and passed down."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from continual.recall.snapshot import SnapshotCache
from continual.suppression import DEFAULT_SUPPRESS_DAYS
from ghapp.jobs import Clock, JobQueue
from ghapp.settings import Settings
from review.config import ReviewConfig

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
    snapshots: SnapshotCache = field(default_factory=SnapshotCache)

    @property
    def suppress_days(self) -> int:
        """How long a dismissal keeps its mechanism out (`[writeback] suppress_days`)."""
        if self.review_config is None:
            return DEFAULT_SUPPRESS_DAYS
        return self.review_config.writeback.suppress_days
