"""Retired and adapted lessons: listed with what, when, why and by which commit; a person restores."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from continual import store
from continual.maintenance import KeyTaken, LessonChange, NotRetired, changes, restore
from continual.persons import Caller
from ghapp.api.auth import (
    ApiError,
    authenticated,
    deps_of,
    invalid,
    json_body,
    not_found,
    run,
)
from ghapp.api.shapes import change_json
from ghapp.db import reading

INCLUDE_VALUES = frozenset({"retired"})


def include_retired(request: Request) -> bool:
    """``include=retired`` asks for the retired and adapted lessons too; anything else is a 400."""
    values = request.query_params.getlist("include")
    unknown = sorted(set(values) - INCLUDE_VALUES)
    if unknown:
        raise invalid("include", f"unknown value {unknown[0]!r} (the one value is 'retired')")
    return "retired" in values


async def retired_json(request: Request, caller: Caller) -> list[dict[str, Any]]:
    deps = deps_of(request)

    def work() -> list[LessonChange]:
        with reading(deps.engine) as conn:
            return changes(conn, caller.account_id)

    return [change_json(c) for c in await run(work)]


@authenticated
async def restore_lesson(request: Request, caller: Caller) -> Response:
    """``POST /v1/recall/{id}/restore`` with ``expected_revision``: the retired lesson is live
    again (compare-and-swap, like demote and restore)."""
    entry_id = request.path_params["entry_id"]
    body = await json_body(request)
    if not isinstance(body, dict) or set(body) != {"expected_revision"}:
        raise invalid("body", "must be a JSON object with expected_revision only")
    expected = body["expected_revision"]
    if isinstance(expected, bool) or not isinstance(expected, int) or not 1 <= expected < 2**31 - 1:
        raise invalid("expected_revision", "is required: the revision you read (an integer ≥ 1)")
    deps = deps_of(request)
    now = deps.clock()

    def work() -> int:
        with deps.engine.begin() as conn:
            row = store.entry(conn, entry_id)
            if row is None or row.account_id != caller.account_id:
                raise store.EntryGone(entry_id)
            return restore(conn, entry_id, expected=expected, actor=caller.login, now=now)

    try:
        revision = await run(work)
    except store.RevisionConflict:
        raise ApiError(
            409,
            "conflict",
            f"lesson {entry_id} is no longer at revision {expected}: read it again and retry",
        ) from None
    except (KeyTaken, NotRetired) as exc:
        raise ApiError(409, "conflict", str(exc)) from None
    except store.EntryGone:
        raise not_found(f"lesson {entry_id}") from None
    return JSONResponse({"id": entry_id, "revision": revision, "state": "restored"})
