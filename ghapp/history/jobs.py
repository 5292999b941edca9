"""The back-fill as durable work: asked for in the caller's transaction with its job (one run
per repository at a time), asked for on install, and stopped when the installation goes."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, select

from continual.history.runs import DEFAULT_DAYS, DEFAULT_MAX_PRS, Run, request_run, stop_runs
from continual.history.store import discard_generation
from continual.tables import Repository
from ghapp.jobs import JobSpec, enqueue

JOB_KIND = "history.backfill"


def serial_key(repository_id: int) -> str:
    """Back-fill jobs of one repository run one at a time."""
    return f"history:{repository_id}"


def repository_of(key: str | None) -> int | None:
    prefix, _, rest = (key or "").partition(":")
    return int(rest) if prefix == "history" and rest.isdecimal() else None


def schedule(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    installation_id: int,
    now_ms: int,
    days: int = DEFAULT_DAYS,
    max_prs: int = DEFAULT_MAX_PRS,
) -> tuple[Run, bool]:
    """Ask for a back-fill in the caller's transaction, with its durable job; a live run of the
    repository stands for this one (answers it, and False)."""
    run, new = request_run(
        conn,
        account_id=account_id,
        repository_id=repository_id,
        installation_id=installation_id,
        days=days,
        max_prs=max_prs,
        now_ms=now_ms,
    )
    if new:
        spec = JobSpec(
            kind=JOB_KIND, serial_key=serial_key(repository_id), installation_id=installation_id
        )
        enqueue(conn, [spec], now=now_ms)
    return run, new


def stop_for(
    conn: Connection,
    *,
    reason: str,
    now_ms: int,
    installation_id: int | None = None,
    repository_ids: Sequence[int] = (),
) -> int:
    """The installation was removed (or these repositories left it): its live back-fills stop,
    and what they read and did not publish is forgotten. Answers how many stopped."""
    stopped = stop_runs(
        conn,
        reason=reason,
        now_ms=now_ms,
        installation_id=installation_id,
        repository_ids=repository_ids,
    )
    for run in stopped:
        discard_generation(conn, run.repository_id, run.generation)
    return len(stopped)


def schedule_all(conn: Connection, repository_ids: Sequence[int], now_ms: int) -> int:
    """Ask for a back-fill of each of these repositories (just installed); answers how many."""
    rows = conn.execute(
        select(Repository.id, Repository.account_id, Repository.installation_id).where(
            Repository.id.in_(list(repository_ids)), Repository.removed_ms.is_(None)
        )
    ).all()
    made = 0
    for row in rows:
        if row.installation_id is None:
            continue
        _, new = schedule(
            conn,
            account_id=row.account_id,
            repository_id=row.id,
            installation_id=row.installation_id,
            now_ms=now_ms,
        )
        made += new
    return made
