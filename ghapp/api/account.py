"""`/v1/persons/preference`, `/v1/review-ledger` and `DELETE /v1/sessions/{id}`."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from continual import persons
from continual.ledger import RepositoryLedger, review_ledger
from continual.persons import Caller, InvalidField, Preference
from continual.sessions import delete_session
from ghapp.api.auth import (
    SESSION_PATTERN,
    ApiError,
    authenticated,
    bool_param,
    deps_of,
    json_body,
    not_found,
    run,
)
from ghapp.api.shapes import ledger_json, preference_json
from ghapp.db import reading


@authenticated
async def get_preference(request: Request, caller: Caller) -> Response:
    def read() -> Preference:
        with reading(deps_of(request).engine) as conn:
            return persons.get_preference(conn, caller.person_id)

    return JSONResponse(preference_json(caller, await run(read)))


@authenticated
async def put_preference(request: Request, caller: Caller) -> Response:
    body = await json_body(request)
    deps = deps_of(request)

    def write() -> Preference:
        with deps.engine.begin() as conn:
            current = persons.get_preference(conn, caller.person_id)
            card = persons.validate_preference(body, current)
            return persons.put_preference(conn, caller.person_id, card, now=deps.clock())

    try:
        card = await run(write)
    except InvalidField as exc:
        raise ApiError(422, "invalid", str(exc), exc.field) from None
    return JSONResponse(preference_json(caller, card))


@authenticated
async def ledger(request: Request, caller: Caller) -> Response:
    brain = bool_param(request, "brain")
    deps = deps_of(request)

    def read() -> list[RepositoryLedger]:
        with reading(deps.engine) as conn:
            return review_ledger(conn, caller.account_id, now=deps.clock(), brain=brain)

    repositories = [ledger_json(x) for x in await run(read)]
    return JSONResponse({"repositories": repositories, "brain": brain})


@authenticated
async def forget_session(request: Request, caller: Caller) -> Response:
    session = request.path_params["session_id"]
    if not SESSION_PATTERN.fullmatch(session):
        raise not_found(f"session {session[:128]}")
    deps = deps_of(request)
    deleted = await run(
        delete_session,
        deps.engine,
        deps.settings.store_dir,
        account_id=caller.account_id,
        session_id=session,
        now=deps.clock(),
    )
    if deleted is None:
        raise not_found(f"session {session}")
    return JSONResponse(deleted.as_json())
