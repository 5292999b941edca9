"""How the simulator answers HTTP: auth, pagination, error bodies, logging and injected faults."""

from __future__ import annotations

import asyncio
import json
import math
import secrets
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

import jwt
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ghsim.hooks import HookLog
from ghsim.model import ApiError, Installation
from ghsim.recording import RECORDED_HEADERS, Faults, LoggedRequest, RequestLog
from ghsim.shapes import Shapes
from ghsim.state import World

DOCS_URL = "https://docs.github.com/rest"
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100
RATE_LIMIT = 15000
JWT_MAX_LIFETIME_S = 600
JWT_LEEWAY_S = 60
STATUS_MESSAGES = {
    400: "Bad Request",
    401: "Bad credentials",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    422: "Validation Failed",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Server Error",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}

T = TypeVar("T")


@dataclass(frozen=True)
class Call:
    """One request as a handler sees it: path parameters, query and parsed JSON body."""

    request: Request
    params: dict[str, Any]
    query: QueryParams
    body: Any

    def repo_name(self) -> str:
        return f"{self.params['owner']}/{self.params['repo']}"

    def field(self, name: str) -> Any:
        return self.body.get(name) if isinstance(self.body, dict) else None


class Context:
    """What every handler shares: the world, its JSON shapes, the app's key, log and faults."""

    def __init__(self, world: World, public_key_pem: str, log: RequestLog, faults: Faults) -> None:
        self.world = world
        self.public_key_pem = public_key_pem
        self.log = log
        self.faults = faults
        self.hooks = HookLog(world.now)
        self.shapes = Shapes(world, "http://simulator.invalid")
        self._used = 0
        self._used_lock = threading.Lock()
        # The core rate limit: RATE_LIMIT an hour, never enforced, unless `limit_rate` says
        # otherwise (a small budget in a short window, answered with GitHub's 403 once spent).
        self.rate_limit = RATE_LIMIT
        self.rate_window_s = 3600.0
        self.rate_enforced = False
        self._window_start = world.now()

    @property
    def rate_window_start(self) -> datetime:
        """When the current rate-limit window began (windows follow each other from it)."""
        return self._window_start

    def limit_rate(self, limit: int, window_s: float) -> None:
        """Serve ``limit`` requests per ``window_s`` seconds, and a 403 (remaining 0) past it."""
        with self._used_lock:
            self.rate_limit, self.rate_window_s, self.rate_enforced = limit, window_s, True
            self._used, self._window_start = 0, self.world.now()

    def set_base_url(self, base_url: str) -> None:
        self.shapes = Shapes(self.world, base_url)

    def require_app(self, call: Call) -> None:
        """The request must carry a valid RS256 JWT issued by the app (checked on real time)."""
        scheme, _, credential = call.request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or credential.count(".") != 2:
            raise ApiError(
                401,
                "A JSON web token could not be decoded" if scheme else "Requires authentication",
            )
        try:
            claims = jwt.decode(
                credential,
                self.public_key_pem,
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"]},
                leeway=JWT_LEEWAY_S,
            )
        except jwt.PyJWTError:
            raise ApiError(401, "A JSON web token could not be decoded") from None
        if int(claims["exp"]) - int(claims["iat"]) > JWT_MAX_LIFETIME_S + JWT_LEEWAY_S:
            raise ApiError(401, "'Expiration time' claim ('exp') is too far in the future")
        if str(claims["iss"]) != str(self.world.app_id):
            raise ApiError(401, "Integration not found")

    def require_installation(self, call: Call) -> Installation:
        scheme, _, credential = call.request.headers.get("authorization", "").partition(" ")
        if scheme.lower() not in ("token", "bearer") or not credential:
            raise ApiError(401, "Requires authentication")
        if not credential.startswith("ghs_"):
            raise ApiError(401, "Bad credentials")
        return self.world.token_installation(credential)

    def require_repo(self, call: Call) -> str:
        """The request's token must belong to the installation that holds the repository."""
        installation = self.require_installation(call)
        repo = self.world.repo(call.repo_name())
        if repo.installation_id != installation.id:
            raise ApiError(404, "Not Found")
        return repo.full_name

    def rate_headers(self) -> dict[str, str]:
        """The headers of one more request's answer (it is counted in the current window)."""
        with self._used_lock:
            now = self.world.now()
            if not self.rate_enforced:
                self._used += 1
                used, limit = self._used, self.rate_limit
                reset = int(now.timestamp()) + 3600
                remaining = max(limit - used, 1)
            else:
                elapsed = (now - self._window_start).total_seconds()
                if elapsed >= self.rate_window_s:
                    windows = int(elapsed // self.rate_window_s)
                    self._window_start += timedelta(seconds=windows * self.rate_window_s)
                    self._used = 0
                self._used += 1
                used, limit = self._used, self.rate_limit
                start = self._window_start.timestamp()
                reset = math.ceil(start + self.rate_window_s)
                remaining = max(limit - used, 0)
        return {
            "x-ratelimit-limit": str(limit),
            "x-ratelimit-remaining": str(remaining),
            "x-ratelimit-reset": str(reset),
            "x-ratelimit-used": str(used if self.rate_enforced else min(used, limit - 1)),
            "x-ratelimit-resource": "core",
        }

    def over_limit(self, headers: dict[str, str]) -> bool:
        """Whether an answer with these rate headers is past an enforced limit."""
        return self.rate_enforced and int(headers["x-ratelimit-used"]) > int(
            headers["x-ratelimit-limit"]
        )


def error_body(status: int, message: str, errors: list[Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "message": message,
        "documentation_url": DOCS_URL,
        "status": str(status),
    }
    if errors is not None:
        body["errors"] = errors
    return body


def per_page(call: Call) -> int:
    """The ``per_page`` asked for, within 1–100 (default 30)."""
    try:
        return min(max(int(call.query.get("per_page", DEFAULT_PER_PAGE)), 1), MAX_PER_PAGE)
    except ValueError:
        raise ApiError(422, "Validation Failed", ["per_page must be an integer"]) from None


def paginate(call: Call, items: Sequence[T]) -> tuple[list[T], dict[str, str]]:
    """One page of ``items`` (``per_page`` ≤ 100, ``page`` from 1) and its Link header."""
    size = per_page(call)
    try:
        page = max(int(call.query.get("page", 1)), 1)
    except ValueError:
        raise ApiError(422, "Validation Failed", ["per_page and page must be integers"]) from None
    last = max((len(items) + size - 1) // size, 1)
    chunk = list(items[(page - 1) * size : page * size])
    url = call.request.url

    def link(number: int, rel: str) -> str:
        target = url.include_query_params(per_page=size, page=number)
        return f'<{target}>; rel="{rel}"'

    links = []
    if page > 1:
        links += [link(min(page - 1, last), "prev")]
    if page < last:
        links += [link(page + 1, "next"), link(last, "last")]
    if page > 1:
        links += [link(1, "first")]
    return chunk, ({"link": ", ".join(links)} if links else {})


Handler = Callable[[Context, Call], Response]


def auth_kind(request: Request) -> str:
    scheme, _, credential = request.headers.get("authorization", "").partition(" ")
    if not scheme:
        return "none"
    if scheme.lower() == "bearer" and credential.count(".") == 2:
        return "jwt"
    return "token" if scheme.lower() in ("token", "bearer") else scheme.lower()


def endpoint(ctx: Context, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Wrap ``handler``: parse JSON, apply faults, map ApiError to GitHub's error JSON, log it."""

    async def run(request: Request) -> Response:
        with ctx.log.answering():
            return await logged(request)

    async def logged(request: Request) -> Response:
        raw = await request.body()
        body: Any = None
        response: Response
        rate = ctx.rate_headers()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            response = JSONResponse(error_body(400, "Problems parsing JSON"), status_code=400)
        else:
            if ctx.over_limit(rate) and not request.url.path.startswith("/app"):
                message = "API rate limit exceeded for installation."
                response = JSONResponse(error_body(403, message), status_code=403)
            else:
                response = await answer(request, body)
        response.headers["x-github-request-id"] = secrets.token_hex(8).upper()
        response.headers["x-github-api-version-selected"] = "2022-11-28"
        for name, value in rate.items():
            response.headers.setdefault(name, value)
        ctx.log.record(
            LoggedRequest(
                method=request.method,
                path=request.url.path,
                query=dict(request.query_params),
                status=response.status_code,
                headers={k: request.headers[k] for k in RECORDED_HEADERS if k in request.headers},
                auth=auth_kind(request),
                body=body,
                at=ctx.world.now(),
            )
        )
        return response

    async def answer(request: Request, body: Any) -> Response:
        fault = ctx.faults.match(request.method, request.url.path)
        if fault is not None:
            if fault.latency_s > 0:
                await asyncio.sleep(fault.latency_s)
            if fault.status is not None:
                content = fault.body
                if content is None:
                    content = error_body(fault.status, STATUS_MESSAGES.get(fault.status, "Error"))
                if isinstance(content, str):
                    return Response(content, fault.status, dict(fault.headers), "text/html")
                return JSONResponse(content, fault.status, dict(fault.headers))
        call = Call(request, dict(request.path_params), request.query_params, body)
        try:
            return handler(ctx, call)
        except ApiError as error:
            return JSONResponse(
                error_body(error.status, error.message, error.errors), status_code=error.status
            )

    return run


def json_response(
    content: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    return JSONResponse(content, status_code=status, headers=headers)
