"""A repository's back-fill run: asked for, held by one runner at a time, its cursor and budget
moved forward, paused, finished or stopped. One row per repository (``history_runs``)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, insert, select, update

from continual.tables import HistoryRun

DAY_MS = 86_400_000
DEFAULT_DAYS = 90
MAX_DAYS = 365
DEFAULT_MAX_PRS = 300
MAX_PRS = 10_000


class RunState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    PAUSED = "paused"  # waiting for the rate-limit window to reset
    DONE = "done"
    STOPPED = "stopped"  # the installation or the repository went away: nothing published


LIVE_STATES = frozenset({RunState.QUEUED, RunState.RUNNING, RunState.PAUSED})


class BadRequest(ValueError):
    """A back-fill asked with a period or a count out of bounds."""


def check_bounds(days: int, max_prs: int) -> None:
    if not 1 <= days <= MAX_DAYS:
        raise BadRequest(f"--days must be between 1 and {MAX_DAYS}, got {days}")
    if not 1 <= max_prs <= MAX_PRS:
        raise BadRequest(f"--max-prs must be between 1 and {MAX_PRS}, got {max_prs}")


@dataclass(frozen=True, slots=True)
class Run:
    """A run as stored."""

    repository_id: int
    account_id: int
    installation_id: int
    generation: int
    state: RunState
    days: int
    max_prs: int
    since_ms: int
    page: int
    prs_read: int
    prs_seen: int
    comments_kept: int
    addressed: int
    facts: int
    requests: int
    pauses: int
    paused_until_ms: int | None
    window_reset_ms: int | None
    window_spent: int
    last_error: str | None
    requested_ms: int
    started_ms: int | None
    updated_ms: int
    finished_ms: int | None

    @classmethod
    def of(cls, row: Any) -> Run:
        return cls(
            **{name: getattr(row, name) for name in cls.__slots__ if name != "state"},
            state=RunState(row.state),
        )

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES


def read_run(conn: Connection, repository_id: int) -> Run | None:
    row = conn.execute(
        select(*HistoryRun.__table__.c).where(HistoryRun.repository_id == repository_id)
    ).first()
    return Run.of(row) if row is not None else None


def runs_of(conn: Connection, account_id: int) -> list[Run]:
    rows = conn.execute(
        select(*HistoryRun.__table__.c)
        .where(HistoryRun.account_id == account_id)
        .order_by(HistoryRun.repository_id)
    ).all()
    return [Run.of(row) for row in rows]


def request_run(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    installation_id: int,
    days: int,
    max_prs: int,
    now_ms: int,
) -> tuple[Run, bool]:
    """Ask for a back-fill of the repository; answers the run and whether it is new. A run
    still live is left as it is (two requests make one run); a finished one starts its next
    generation from the first page, keeping what earlier generations read."""
    check_bounds(days, max_prs)
    held = read_run(conn, repository_id)
    if held is not None and held.live:
        return held, False
    values: dict[str, Any] = {
        "account_id": account_id,
        "installation_id": installation_id,
        "state": RunState.QUEUED.value,
        "days": days,
        "max_prs": max_prs,
        "since_ms": now_ms - days * DAY_MS,
        "page": 1,
        "prs_read": 0,
        "prs_seen": 0,
        "comments_kept": 0,
        "addressed": 0,
        "facts": 0,
        "requests": 0,
        "pauses": 0,
        "paused_until_ms": None,
        "window_spent": 0,
        "lease_token": None,
        "lease_expires_ms": None,
        "last_error": None,
        "requested_ms": now_ms,
        "started_ms": None,
        "updated_ms": now_ms,
        "finished_ms": None,
    }
    if held is None:
        conn.execute(insert(HistoryRun).values(repository_id=repository_id, generation=1, **values))
    else:
        conn.execute(
            update(HistoryRun)
            .where(HistoryRun.repository_id == repository_id)
            .values(generation=held.generation + 1, **values)
        )
    found = read_run(conn, repository_id)
    assert found is not None
    return found, True


def acquire(
    conn: Connection, repository_id: int, *, token: str, now_ms: int, lease_ms: int
) -> Run | None:
    """Hold the live run for ``lease_ms`` (a compare-and-swap on its lease); None when another
    runner holds it or nothing is live."""
    live = [state.value for state in LIVE_STATES]
    taken = conn.execute(
        update(HistoryRun)
        .where(
            HistoryRun.repository_id == repository_id,
            HistoryRun.state.in_(live),
            (HistoryRun.lease_expires_ms.is_(None))
            | (HistoryRun.lease_expires_ms <= now_ms)
            | (HistoryRun.lease_token == token),
        )
        .values(
            lease_token=token,
            lease_expires_ms=now_ms + lease_ms,
            state=RunState.RUNNING.value,
            paused_until_ms=None,
            updated_ms=now_ms,
        )
    ).rowcount
    if taken != 1:
        return None
    conn.execute(
        update(HistoryRun)
        .where(HistoryRun.repository_id == repository_id, HistoryRun.started_ms.is_(None))
        .values(started_ms=now_ms)
    )
    return read_run(conn, repository_id)


def advance(
    conn: Connection, repository_id: int, *, token: str, now_ms: int, lease_ms: int, **values: Any
) -> bool:
    """Write the run's progress while holding it (the lease is renewed); False when it was lost."""
    return (
        conn.execute(
            update(HistoryRun)
            .where(HistoryRun.repository_id == repository_id, HistoryRun.lease_token == token)
            .values(updated_ms=now_ms, lease_expires_ms=now_ms + lease_ms, **values)
        ).rowcount
        == 1
    )


def release(
    conn: Connection, repository_id: int, *, token: str, state: RunState, now_ms: int, **values: Any
) -> bool:
    """Let go of the run in ``state`` (paused, done or stopped)."""
    finished = now_ms if state in (RunState.DONE, RunState.STOPPED) else None
    return (
        conn.execute(
            update(HistoryRun)
            .where(HistoryRun.repository_id == repository_id, HistoryRun.lease_token == token)
            .values(
                state=state.value,
                lease_token=None,
                lease_expires_ms=None,
                updated_ms=now_ms,
                finished_ms=finished,
                **values,
            )
        ).rowcount
        == 1
    )


def stop_runs(
    conn: Connection,
    *,
    reason: str,
    now_ms: int,
    installation_id: int | None = None,
    repository_ids: Collection[int] = (),
) -> list[Run]:
    """Stop the live runs of an installation (or of these repositories) in the caller's
    transaction; answers them as they were, so their unpublished generations can be forgotten.
    A runner holding one finds it gone at its next pull request and publishes nothing."""
    live = [state.value for state in LIVE_STATES]
    query = select(*HistoryRun.__table__.c).where(HistoryRun.state.in_(live))
    if installation_id is not None:
        query = query.where(HistoryRun.installation_id == installation_id)
    else:
        query = query.where(HistoryRun.repository_id.in_(sorted(repository_ids)))
    stopped = [Run.of(row) for row in conn.execute(query).all()]
    if stopped:
        conn.execute(
            update(HistoryRun)
            .where(HistoryRun.repository_id.in_([run.repository_id for run in stopped]))
            .values(
                state=RunState.STOPPED.value,
                last_error=reason,
                finished_ms=now_ms,
                updated_ms=now_ms,
                paused_until_ms=None,
            )
        )
    return stopped
