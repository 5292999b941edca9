"""What is kept of a webhook delivery: its dedupe keys for good, its body for a retention period.

The delivery id and the body's sha256 stay as long as the database does, so a replay of any
delivery ever recorded is refused, even after its account was purged. The body (up to 25 MiB) is
pruned once no unfinished job needs it and the retention period has passed, or at once when its
account is purged.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, and_, exists, select, update

from ghapp.tables import Delivery, Job, JobState

# A pruned body; a recorded delivery always had a JSON object as its body, never this.
PRUNED = ""
DAY_MS = 86_400_000
PRUNE_BATCH = 1_000
# Jobs that may still read their delivery's body.
UNFINISHED = (JobState.QUEUED, JobState.RUNNING, JobState.WAITING, JobState.HELD)


def retention_ms(days: int) -> int:
    return days * DAY_MS


def prune_bodies(conn: Connection, *, received_before_ms: int, limit: int = PRUNE_BATCH) -> int:
    """Prune up to `limit` bodies received before the cutoff that no unfinished job needs."""
    needed = exists().where(
        and_(Job.delivery_id == Delivery.id, Job.state.in_([s.value for s in UNFINISHED]))
    )
    due = (
        select(Delivery.id)
        .where(Delivery.received_ms < received_before_ms, Delivery.body != PRUNED, ~needed)
        .limit(limit)
    )
    ids = list(conn.execute(due).scalars())
    if not ids:
        return 0
    conn.execute(update(Delivery).where(Delivery.id.in_(ids)).values(body=PRUNED))
    return len(ids)


def forget_installations(conn: Connection, installation_ids: Sequence[int]) -> int:
    """Prune the bodies of these installations' deliveries and unlink them, keeping their keys."""
    if not installation_ids:
        return 0
    result = conn.execute(
        update(Delivery)
        .where(Delivery.installation_id.in_(list(installation_ids)))
        .values(body=PRUNED, installation_id=None)
    )
    return int(result.rowcount)
