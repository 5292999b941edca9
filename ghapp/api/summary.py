"""`/v1/memory/summary`: view, clear and rebuild a repository's memory summary."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from continual.persons import Caller
from continual.recall import Snapshot
from continual.summary.store import StoredSummary, clear_summary, current_summary
from continual.surfaces import Target
from ghapp.api.auth import authenticated, deps_of, run, target_param
from ghapp.api.shapes import summary_json

Change = Callable[[Connection, Target, Snapshot, int], StoredSummary]


async def _answer(request: Request, caller: Caller, change: Change) -> Response:
    target = await target_param(request, caller)
    deps = deps_of(request)
    now = deps.clock()

    def work() -> StoredSummary:
        with deps.engine.begin() as conn:
            snapshot = deps.snapshots.get(conn, target.account_id, now=now)
            return change(conn, target, snapshot, now)

    return JSONResponse(summary_json(await run(work)))


@authenticated
async def view(request: Request, caller: Caller) -> Response:
    """The summary the next review or brief of the repository is handed (rebuilt if stale)."""
    return await _answer(
        request, caller, lambda conn, t, s, now: current_summary(conn, t, s, now=now)
    )


@authenticated
async def clear(request: Request, caller: Caller) -> Response:
    """Withdraw it until the repository's lessons or memory change, or a rebuild."""
    return await _answer(
        request,
        caller,
        lambda conn, t, s, now: clear_summary(conn, t, s, now=now, actor=caller.login),
    )


@authenticated
async def rebuild(request: Request, caller: Caller) -> Response:
    """Build it again now, whatever its fingerprint says."""
    return await _answer(
        request, caller, lambda conn, t, s, now: current_summary(conn, t, s, now=now, rebuild=True)
    )
