"""What a job handler is handed: its collaborators, built once at start and passed down."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from continual.recall.snapshot import SnapshotCache
from ghapp.jobs import Clock, JobQueue
from ghapp.metrics import Metrics
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
    metrics: Metrics = field(default_factory=Metrics)
