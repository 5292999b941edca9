"""A repository's memory summary: built from its lessons and session memory, stored with the
fingerprint of its sources (reads and writes in ``continual.summary.store``), handed to reviews
and briefs under the heuristic framing."""

from __future__ import annotations

from continual.summary.build import (
    GUIDANCE,
    SUMMARY_ID,
    SUMMARY_MAX_CHARS,
    Summary,
    build_summary,
    fingerprint,
    is_summary_id,
)

__all__ = [
    "GUIDANCE",
    "SUMMARY_ID",
    "SUMMARY_MAX_CHARS",
    "Summary",
    "build_summary",
    "fingerprint",
    "is_summary_id",
]
