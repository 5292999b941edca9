"""`/v1/recall…`, `/v1/brief`, `/v1/context`: reading lessons, handing them, and editing them."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from continual import persons, store
from continual.persons import Caller, Preference
from continual.recall import Lesson, load_lessons
from continual.suppression import suppressed_entries
from continual.surfaces import (
    Handed,
    Target,
    hand_brief,
    hand_context,
    hand_recall,
    preview_recall,
)
from ghapp.api.auth import (
    ApiError,
    authenticated,
    deps_of,
    invalid,
    json_body,
    not_found,
    run,
    session_param,
    target_param,
)
from ghapp.api.retired import include_retired, retired_json
from ghapp.api.shapes import active_json, handed_json, lesson_json
from ghapp.db import reading
from ghapp.deps import Deps

MAX_QUERY_VALUES = 64

# Far above any real revision; the next one (expected + 1) still fits the revision column
# (32-bit on PostgreSQL).
MAX_REVISION = 2**31 - 2


def _preference(request: Request, caller: Caller) -> Preference:
    with reading(deps_of(request).engine) as conn:
        return persons.get_preference(conn, caller.person_id)


def _lessons(request: Request, caller: Caller) -> list[Lesson]:
    deps = deps_of(request)
    with reading(deps.engine) as conn:
        return load_lessons(conn, caller.account_id, now=deps.clock())


def _shown(request: Request, caller: Caller) -> list[dict[str, Any]]:
    """The account's lessons as the API shows them, each with the dismissal refusing it, if any."""
    deps = deps_of(request)
    now = deps.clock()
    with reading(deps.engine) as conn:
        lessons = load_lessons(conn, caller.account_id, now=now)
        refused = suppressed_entries(
            conn,
            (x.repository_id for x in lessons),
            now_ms=now,
            suppress_days=deps.suppress_days,
        )
    return [lesson_json(x, refused.get(x.id)) for x in lessons]


@authenticated
async def list_lessons(request: Request, caller: Caller) -> Response:
    """Every lesson; with ``include=retired`` also what maintenance retired or adapted."""
    with_retired = include_retired(request)
    answer: dict[str, Any] = {"lessons": await run(_shown, request, caller)}
    if with_retired:
        answer["retired"] = await retired_json(request, caller)
    return JSONResponse(answer)


@authenticated
async def active(request: Request, caller: Caller) -> Response:
    target = await target_param(request, caller)
    session = session_param(request, required=False)
    deps = deps_of(request)
    card = await run(_preference, request, caller)
    now = deps.clock()

    def work() -> tuple[Handed, list[Lesson]]:
        if session is None:
            with reading(deps.engine) as conn:
                handed, snapshot = preview_recall(
                    conn,
                    target,
                    preference=card,
                    now=now,
                    snapshots=deps.snapshots,
                    suppress_days=deps.suppress_days,
                )
            return handed, list(snapshot.lessons)
        handed = hand_recall(
            deps.engine,
            deps.settings.store_dir,
            target,
            session_id=session,
            preference=card,
            person_id=caller.person_id,
            now=now,
            snapshots=deps.snapshots,
            suppress_days=deps.suppress_days,
        )
        return handed, _lessons(request, caller)

    handed, lessons = await run(work)
    return JSONResponse(active_json(target, handed, {x.id: x for x in lessons}))


@authenticated
async def brief(request: Request, caller: Caller) -> Response:
    target = await target_param(request, caller)
    session = session_param(request)
    assert session is not None
    deps = deps_of(request)
    card = await run(_preference, request, caller)
    handed = await run(
        hand_brief,
        deps.engine,
        deps.settings.store_dir,
        target,
        session_id=session,
        preference=card,
        person_id=caller.person_id,
        now=deps.clock(),
        snapshots=deps.snapshots,
        suppress_days=deps.suppress_days,
        max_tokens=deps.settings.call_injection_tokens,
    )
    return JSONResponse(handed_json(target, handed))


def _values(request: Request, name: str) -> list[str]:
    values = [v for v in request.query_params.getlist(name) if v.strip()]
    if len(values) > MAX_QUERY_VALUES:
        raise invalid(name, f"at most {MAX_QUERY_VALUES} values")
    return values


@authenticated
async def context(request: Request, caller: Caller) -> Response:
    target: Target = await target_param(request, caller)
    session = session_param(request)
    assert session is not None
    paths, names = _values(request, "path"), _values(request, "identifier")
    words = _values(request, "word")
    if not (paths or names or words):
        raise invalid("path", "give at least one path, identifier or word the tool call touches")
    deps = deps_of(request)
    card = await run(_preference, request, caller)
    handed = await run(
        hand_context,
        deps.engine,
        deps.settings.store_dir,
        target,
        session_id=session,
        paths=paths,
        identifiers=names,
        words=words,
        preference=card,
        person_id=caller.person_id,
        now=deps.clock(),
        snapshots=deps.snapshots,
        suppress_days=deps.suppress_days,
        max_tokens=deps.settings.hook_injection_tokens,
    )
    return JSONResponse(handed_json(target, handed))


def _own_entry(conn: Any, caller: Caller, entry_id: str, *, live: bool = True) -> Any:
    """The caller's entry: live, or (``live=False``) anything not yet erased, so a retired or
    merged-away lesson can still be deleted."""
    row = store.entry(conn, entry_id)
    if row is None or row.account_id != caller.account_id or store.is_erased(row):
        raise not_found(f"lesson {entry_id}")
    if live and row.deleted_ms is not None:
        raise not_found(f"lesson {entry_id}")
    return row


def _revision(body: dict[str, Any]) -> int:
    value = body.get("expected_revision")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REVISION:
        raise invalid("expected_revision", "is required: the revision you read (an integer ≥ 1)")
    return value


@authenticated
async def edit(request: Request, caller: Caller) -> Response:
    entry_id = request.path_params["entry_id"]
    body = await json_body(request)
    if not isinstance(body, dict):
        raise invalid("body", "must be a JSON object with demote and expected_revision")
    demote = body.get("demote")
    if not isinstance(demote, bool):
        raise invalid("demote", "is required: true to demote, false to restore")
    for name in body:
        if name not in {"demote", "expected_revision"}:
            raise invalid(str(name), "is not a field of this call (demote, expected_revision)")
    await edit_lesson(deps_of(request), caller, entry_id, expected=_revision(body), demote=demote)
    shown = await run(_shown, request, caller)
    found = next((x for x in shown if x["id"] == entry_id), None)
    if found is None:
        raise not_found(f"lesson {entry_id}")
    return JSONResponse(found)


async def _guarded(work: Any, entry_id: str) -> None:
    try:
        await run(work)
    except store.RevisionConflict as exc:
        raise ApiError(
            409,
            "conflict",
            f"lesson {entry_id} is no longer at revision {exc.expected}: "
            "read it again and retry with its current revision",
        ) from None
    except store.EntryGone:
        raise not_found(f"lesson {entry_id}") from None


@authenticated
async def remove(request: Request, caller: Caller) -> Response:
    entry_id = request.path_params["entry_id"]
    raw = request.query_params.get("expected_revision")
    expected: int | None = None
    if raw is not None:
        # ASCII digits only: "²".isdigit() holds, but int() refuses it.
        if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_REVISION:
            raise invalid("expected_revision", f"must be an integer from 1 to {MAX_REVISION}")
        expected = int(raw)
    await delete_lesson(deps_of(request), caller, entry_id, expected=expected)
    return Response(status_code=204)


async def edit_lesson(
    deps: Deps, caller: Caller, entry_id: str, *, expected: int, demote: bool
) -> None:
    """A person demotes or restores one of their account's lessons, compare-and-swap on
    ``expected``: ApiError 409 when it moved on, 404 when it is not theirs or gone."""
    now = deps.clock()

    def work() -> None:
        with deps.engine.begin() as conn:
            _own_entry(conn, caller, entry_id)
            store.person_edit(
                conn, entry_id, expected=expected, demote=demote, actor=caller.login, now=now
            )

    await _guarded(work, entry_id)


async def delete_lesson(deps: Deps, caller: Caller, entry_id: str, *, expected: int | None) -> None:
    """A person deletes one of their account's lessons (a tombstone), with the same checks: a
    live one, one maintenance retired or one consolidation merged away."""
    now = deps.clock()

    def work() -> None:
        with deps.engine.begin() as conn:
            _own_entry(conn, caller, entry_id, live=False)
            store.tombstone(conn, entry_id, expected=expected, now=now)

    await _guarded(work, entry_id)
