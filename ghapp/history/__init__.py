"""The history back-fill at the door (docs/history.md): its durable job (``jobs``), reading one
merged pull request (``reading``), one turn of a run (``backfill``) and its publication with
the discovery seat (``publishing``)."""

from __future__ import annotations

from ghapp.history.backfill import LEASE_MS, PER_PULL, Backfill, Options, Outcome, Stop
from ghapp.history.jobs import JOB_KIND, repository_of, schedule, schedule_all, serial_key, stop_for
from ghapp.history.reading import past_comment

__all__ = [
    "JOB_KIND",
    "LEASE_MS",
    "PER_PULL",
    "Backfill",
    "Options",
    "Outcome",
    "Stop",
    "past_comment",
    "repository_of",
    "schedule",
    "schedule_all",
    "serial_key",
    "stop_for",
]
