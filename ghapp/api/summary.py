"""`/v1/memory`: a repository's memory switch (view, on/off, clear all of it) and
`/v1/memory/summary`: view, clear and rebuild its memory summary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from continual.memory import (
    MemorySwitch,
    clear_memory,
    hits_by_repository,
    memory_switch,
    set_memory,
    states_by_repository,
)
from continual.persons import Caller
from continual.recall import Snapshot
from continual.summary.store import StoredSummary, clear_summary, current_summary
from continual.surfaces import Target
from ghapp.api.auth import authenticated, deps_of, invalid, iso, json_body, run, target_param
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


def _switch_json(target: Target, switch: MemorySwitch) -> dict[str, Any]:
    return {
        "repository": target.repository,
        "enabled": switch.enabled,
        "changed_at": iso(switch.changed_ms),
        "changed_by": switch.changed_by,
    }


@authenticated
async def memory_view(request: Request, caller: Caller) -> Response:
    """``GET /v1/memory``: the switch, what is stored, and the summary handed (null when off)."""
    target = await target_param(request, caller)
    deps = deps_of(request)
    now = deps.clock()

    def work() -> dict[str, Any]:
        with deps.engine.begin() as conn:
            switch = memory_switch(conn, target.repository_id)
            states = states_by_repository(conn, target.account_id, now_ms=now)
            stored: dict[str, int] = dict(states.get(target.repository_id, {}))
            hits = hits_by_repository(conn, target.account_id).get(target.repository_id, 0)
            summary = None
            if switch.enabled:
                snapshot = deps.snapshots.get(conn, target.account_id, now=now)
                summary = summary_json(current_summary(conn, target, snapshot, now=now))
        return {
            **_switch_json(target, switch),
            "items": dict(sorted(stored.items())),
            "hits": hits,
            "summary": summary,
        }

    return JSONResponse(await run(work))


@authenticated
async def memory_switch_put(request: Request, caller: Caller) -> Response:
    """``PUT /v1/memory`` with ``{"enabled": true|false}``: turn the repository's memory on or off."""
    target = await target_param(request, caller)
    body = await json_body(request)
    if (
        not isinstance(body, dict)
        or set(body) != {"enabled"}
        or not isinstance(body["enabled"], bool)
    ):
        raise invalid(
            "enabled", "send a JSON object with enabled: true or false, and no other field"
        )
    deps = deps_of(request)
    now = deps.clock()

    def work() -> MemorySwitch:
        with deps.engine.begin() as conn:
            return set_memory(
                conn,
                account_id=target.account_id,
                repository_id=target.repository_id,
                enabled=body["enabled"],
                actor=caller.login,
                now=now,
            )

    return JSONResponse(_switch_json(target, await run(work)))


@authenticated
async def memory_clear(request: Request, caller: Caller) -> Response:
    """``DELETE /v1/memory``: delete all the repository's memory data (items, hits, summary,
    session-memory files); the switch stays as it is."""
    target = await target_param(request, caller)
    deps = deps_of(request)
    cleared = await run(
        clear_memory,
        deps.engine,
        deps.settings.store_dir,
        account_id=target.account_id,
        repository_id=target.repository_id,
        repository=target.repository,
    )
    return JSONResponse({"repository": target.repository, "deleted": cleared.as_json()})
