"""Bearer tokens, JSON errors and the small plumbing every `/v1` endpoint shares."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy import Engine
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from continual import persons
from continual.persons import Caller
from continual.surfaces import Target, target_named
from continual.times import from_ms
from ghapp.bodies import GuardAnswers, Refused, parse_json, read_capped
from ghapp.db import reading
from ghapp.deps import Deps

log = logging.getLogger(__name__)

T = TypeVar("T")
Endpoint = Callable[[Request], Awaitable[Response]]
AuthedEndpoint = Callable[[Request, Caller], Awaitable[Response]]

BEARER = "bearer"
REPO_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")
SESSION_PATTERN = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
MAX_BODY_BYTES = 64 * 1024


class ApiError(Exception):
    """An answer other than success: status, a stable code, a message and maybe the field."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field

    def response(self) -> JSONResponse:
        error: dict[str, str] = {"code": self.code, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        headers = {"www-authenticate": "Bearer"} if self.status == 401 else {}
        if self.status == 413:  # the rest of the body is not wanted: end the connection
            headers["connection"] = "close"
        return JSONResponse({"error": error}, status_code=self.status, headers=headers)


def invalid(field: str, message: str) -> ApiError:
    return ApiError(422, "invalid", f"{field}: {message}", field)


def not_found(what: str) -> ApiError:
    return ApiError(404, "not_found", f"{what} does not exist in your account")


def deps_of(request: Request) -> Deps:
    deps: Deps = request.app.state.hindsight.deps
    return deps


async def run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run blocking database work off the event loop."""
    return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))


def iso(ms: int | None) -> str | None:
    """An ISO-8601 UTC time for a millisecond timestamp."""
    if ms is None:
        return None
    moment = from_ms(ms).isoformat(timespec="milliseconds")
    return moment.replace("+00:00", "Z")


def _token_of(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != BEARER or not value.strip():
        return None
    return value.strip()


def authenticate_token(engine: Engine, token: str, now: int) -> Caller | None:
    """Who holds ``token`` (None: unknown or revoked), noting its use at most once a minute."""
    with reading(engine) as conn:
        found = persons.authenticate(conn, token)
    if found is None:
        return None
    caller, last_used = found
    if caller.token_id is not None and persons.touch_due(last_used, now=now):
        with engine.begin() as conn:
            persons.touch(conn, caller.token_id, last_used, now=now)
    return caller


def authenticated(handler: AuthedEndpoint) -> Endpoint:
    """Wrap an endpoint: 401 without a valid token, and ApiError turned into its JSON answer."""

    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        try:
            token = _token_of(request)
            if token is None:
                raise ApiError(
                    401, "unauthorized", "send `Authorization: Bearer <token>` with a valid token"
                )
            deps = deps_of(request)
            caller = await run(authenticate_token, deps.engine, token, deps.clock())
            if caller is None:
                raise ApiError(401, "unauthorized", "the token is unknown or revoked")
            return await handler(request, caller)
        except ApiError as error:
            return error.response()
        except (GuardAnswers, ClientDisconnect):
            raise  # 413 and 408 are the guard's; a client gone has no one to answer
        except Exception:  # a fault of ours: logged, and answered in the API's own shape
            log.exception("api call failed", extra={"path": request.url.path})
            return ApiError(
                500, "internal", "the server failed to answer this call; it was logged"
            ).response()

    return endpoint


def repo_param(request: Request, *, required: bool = True) -> str | None:
    value = request.query_params.get("repo")
    if value is None or value == "":
        if required:
            raise invalid("repo", "is required, as owner/name")
        return None
    if not REPO_PATTERN.fullmatch(value):
        raise invalid("repo", f"must be owner/name, got {value!r}")
    return value


def session_param(request: Request, *, required: bool = True) -> str | None:
    value = request.query_params.get("session")
    if value is None or value == "":
        if required:
            raise invalid("session", "is required: the agent's session id")
        return None
    if not SESSION_PATTERN.fullmatch(value):
        raise invalid("session", "must be 1–128 characters of letters, digits and . _ : @ -")
    return value


def bool_param(request: Request, name: str) -> bool:
    value = request.query_params.get(name, "false").lower()
    if value not in {"true", "false", "1", "0"}:
        raise invalid(name, f"must be true or false, got {value!r}")
    return value in {"true", "1"}


async def target_param(request: Request, caller: Caller) -> Target:
    """The `repo` query parameter as a repository of the caller's account (404 otherwise)."""
    name = repo_param(request)
    assert name is not None

    def find() -> Target | None:
        with reading(deps_of(request).engine) as conn:
            return target_named(conn, caller.account_id, name)

    target = await run(find)
    if target is None:
        raise not_found(f"repository {name}")
    return target


async def json_body(request: Request) -> Any:
    """The request's JSON body, read no further than `MAX_BODY_BYTES`."""
    try:
        body = await read_capped(request, MAX_BODY_BYTES)
    except Refused as refused:
        raise ApiError(refused.status, refused.code, refused.message) from None
    except ClientDisconnect:
        raise ApiError(400, "bad_request", "the body did not arrive whole") from None
    try:
        return parse_json(body or b"null")
    except ValueError:
        raise ApiError(
            400, "bad_request", "the body is not valid JSON (nested at most 1024 deep)"
        ) from None


async def unknown_route(request: Request) -> Response:
    return ApiError(404, "not_found", f"no API call {request.method} {request.url.path}").response()
