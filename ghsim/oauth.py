"""The app's OAuth user flow as GitHub serves it: the authorize page, the code's exchange (errors
answered 200 with an `error` field), and the user token's REST calls (`/user`, its installations
and their repositories with the user's permissions)."""

from __future__ import annotations

import html
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ghsim.endpoint import Call, Context, json_response, paginate
from ghsim.model import ApiError, Installation
from ghsim.recording import RECORDED_HEADERS, LoggedRequest

TROUBLESHOOTING = (
    "https://docs.github.com/apps/managing-oauth-apps/"
    "troubleshooting-oauth-app-access-token-request-errors/"
)
EXCHANGE_ERRORS = {
    "incorrect_client_credentials": "The client_id and/or client_secret passed are incorrect.",
    "bad_verification_code": "The code passed is incorrect or expired.",
    "redirect_uri_mismatch": "The redirect_uri MUST match the registered callback URL for "
    "this application.",
}
LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}
AUTHORIZE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize {name}</title></head>
<body><h1>Authorize {name}</h1>
<form method="post" action="/login/oauth/authorize">
<input type="hidden" name="client_id" value="{client_id}">
<input type="hidden" name="redirect_uri" value="{redirect_uri}">
<input type="hidden" name="state" value="{state}">
<label>Signed in as <input name="login" id="login" value="{login}"></label>
<button type="submit" name="decision" value="authorize" id="authorize">Authorize {name}</button>
<button type="submit" name="decision" value="cancel" id="cancel">Cancel</button>
</form></body></html>
"""
PROBLEM_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><h1>{title}</h1><p id="problem">{problem}</p></body></html>
"""
# A repository's `permissions` hash for each role.
ROLE_GRANTS = {
    "admin": {"admin", "maintain", "push", "triage", "pull"},
    "maintain": {"maintain", "push", "triage", "pull"},
    "write": {"push", "triage", "pull"},
    "triage": {"triage", "pull"},
    "read": {"pull"},
}

WebHandler = Callable[[Context, Request, dict[str, str]], Awaitable[Response]]


def _problem(title: str, problem: str, status: int) -> HTMLResponse:
    body = PROBLEM_PAGE.format(title=html.escape(title), problem=html.escape(problem))
    return HTMLResponse(body, status_code=status)


def client_id(ctx: Context) -> str:
    return str(ctx.shapes.app()["client_id"])


def _redirect_allowed(ctx: Context, redirect_uri: str) -> bool:
    """GitHub's rule: the host and port of a callback URL (any port on loopback), and a path
    at or under its path."""
    wanted = urlsplit(redirect_uri)
    for callback in ctx.world.sign_ins.callback_urls:
        known = urlsplit(callback)
        loopback = (known.hostname or "") in LOOPBACK
        if wanted.scheme != known.scheme or wanted.hostname != known.hostname:
            continue
        if not loopback and wanted.port != known.port:
            continue
        if wanted.path.rstrip("/").startswith(known.path.rstrip("/")):
            return True
    return False


def _back(target: str, query: dict[str, str]) -> RedirectResponse:
    separator = "&" if "?" in target else "?"
    return RedirectResponse(f"{target}{separator}{urlencode(query)}", status_code=302)


async def _fields(request: Request) -> dict[str, str]:
    """Form, JSON or query fields, as GitHub reads the exchange's parameters."""
    fields = dict(request.query_params)
    raw = await request.body()
    if raw:
        if request.headers.get("content-type", "").startswith("application/json"):
            try:
                data = json.loads(raw)
            except ValueError:
                data = {}
            if isinstance(data, dict):
                fields.update({str(k): str(v) for k, v in data.items()})
        else:
            parsed = parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
            fields.update({k: v[-1] for k, v in parsed.items()})
    return fields


async def authorize(ctx: Context, request: Request, fields: dict[str, str]) -> Response:
    """`GET /login/oauth/authorize` shows the consent page; its `POST` is the person's answer."""
    if fields.get("client_id") != client_id(ctx):
        return _problem("Page not found", "No application has this client_id.", 404)
    redirect_uri = fields.get("redirect_uri") or None
    callbacks = ctx.world.sign_ins.callback_urls
    state = fields.get("state", "")
    if redirect_uri is not None and not _redirect_allowed(ctx, redirect_uri):
        if not callbacks:
            return _problem("Error", "The redirect_uri is not associated with this app.", 422)
        description = "The redirect_uri MUST match the registered callback URL for this app."
        query = {"error": "redirect_uri_mismatch", "error_description": description}
        return _back(callbacks[0], {**query, "state": state})
    target = redirect_uri or (callbacks[0] if callbacks else None)
    if target is None:
        return _problem("Error", "This app has no callback URL.", 422)
    if request.method == "GET":
        page = AUTHORIZE_PAGE.format(
            name=html.escape(ctx.world.app_name),
            client_id=html.escape(client_id(ctx)),
            redirect_uri=html.escape(redirect_uri or ""),
            state=html.escape(state),
            login=html.escape(ctx.world.sign_ins.web_user or ""),
        )
        return HTMLResponse(page)
    if fields.get("decision") != "authorize":
        denied = "The user has denied your application access."
        query = {"error": "access_denied", "error_description": denied, "state": state}
        return _back(target, query)
    login = fields.get("login", "").strip()
    if not login:
        return _problem("Sign in to GitHub", "Sign in to continue.", 401)
    ctx.world.account(login, "Bot" if login.endswith("[bot]") else "User")
    code = ctx.world.sign_ins.issue(login, client_id(ctx), redirect_uri)
    return _back(target, {"code": code, "state": state})


async def access_token(ctx: Context, request: Request, fields: dict[str, str]) -> Response:
    """`POST /login/oauth/access_token`: 200 with the user token, or 200 with an `error`."""
    sign_ins = ctx.world.sign_ins
    error: str | None = None
    code = None
    if (
        fields.get("client_id") != client_id(ctx)
        or fields.get("client_secret") != sign_ins.client_secret
    ):
        error = "incorrect_client_credentials"
    else:
        code = sign_ins.take(fields.get("code", ""))
        if code is None or code.client_id != client_id(ctx):
            error = "bad_verification_code"
        elif fields.get("redirect_uri") and fields["redirect_uri"] != code.redirect_uri:
            error = "redirect_uri_mismatch"
    if error is not None or code is None:
        kind = error or "bad_verification_code"
        answer: dict[str, Any] = {
            "error": kind,
            "error_description": EXCHANGE_ERRORS[kind],
            "error_uri": f"{TROUBLESHOOTING}#{kind.replace('_', '-')}",
        }
    else:
        answer = {
            "access_token": sign_ins.token_for(code.login),
            "expires_in": 28800,
            "refresh_token": "ghr_" + sign_ins.token_for(code.login)[4:],
            "refresh_token_expires_in": 15897600,
            "scope": "",
            "token_type": "bearer",
        }
    if "json" in request.headers.get("accept", ""):
        return JSONResponse(answer)
    return Response(urlencode(answer), media_type="application/x-www-form-urlencoded")


def web_endpoint(ctx: Context, handler: WebHandler) -> Callable[[Request], Awaitable[Response]]:
    """Wrap a web-side handler: injected faults first, then the answer, logged."""

    async def run(request: Request) -> Response:
        with ctx.log.answering():
            return await logged(request)

    async def logged(request: Request) -> Response:
        fields = await _fields(request)
        fault = ctx.faults.match(request.method, request.url.path)
        response: Response
        if fault is not None and fault.status is not None:
            body = fault.body if isinstance(fault.body, str) else "<h1>Unicorn!</h1>"
            response = HTMLResponse(body, fault.status)
        else:
            response = await handler(ctx, request, fields)
        shown = {k: v for k, v in fields.items() if k != "client_secret"}
        ctx.log.record(
            LoggedRequest(
                method=request.method,
                path=request.url.path,
                query=dict(request.query_params),
                status=response.status_code,
                headers={k: request.headers[k] for k in RECORDED_HEADERS if k in request.headers},
                auth="none",
                body=shown,
                at=ctx.world.now(),
            )
        )
        return response

    return run


def pages(ctx: Context) -> list[BaseRoute]:
    return [
        Route("/login/oauth/authorize", web_endpoint(ctx, authorize), methods=["GET", "POST"]),
        Route("/login/oauth/access_token", web_endpoint(ctx, access_token), methods=["POST"]),
    ]


# --- the user token's REST calls ---------------------------------------------------------------


def _user_login(ctx: Context, call: Call) -> str:
    scheme, _, credential = call.request.headers.get("authorization", "").partition(" ")
    if scheme.lower() not in ("token", "bearer") or not credential:
        raise ApiError(401, "Requires authentication")
    if credential.startswith("ghs_"):
        raise ApiError(403, "Resource not accessible by integration")
    login = ctx.world.sign_ins.user_of(credential)
    if login is None:
        raise ApiError(401, "Bad credentials")
    return login


def _roles(ctx: Context, installation: Installation, login: str) -> dict[str, str]:
    """The installation's repositories the user has explicit access to, with their role."""
    found = {}
    for name in installation.repositories:
        role = ctx.world.explicit_permission(name, login)
        if role is not None and role != "none":
            found[name] = role
    return found


def get_user(ctx: Context, call: Call) -> Response:
    login = _user_login(ctx, call)
    with ctx.world.lock:
        user = ctx.world.account(login)
        return json_response({**ctx.shapes.user(user), "name": None, "user_view_type": "public"})


def user_installations(ctx: Context, call: Call) -> Response:
    login = _user_login(ctx, call)
    with ctx.world.lock:
        mine = [
            i
            for i in sorted(ctx.world.installations.values(), key=lambda i: i.id)
            if _roles(ctx, i, login) or i.account.login.lower() == login.lower()
        ]
        page, headers = paginate(call, mine)
        shaped = [ctx.shapes.installation(i) for i in page]
    return json_response({"total_count": len(mine), "installations": shaped}, headers=headers)


def user_installation_repositories(ctx: Context, call: Call) -> Response:
    login = _user_login(ctx, call)
    with ctx.world.lock:
        installation = ctx.world.installation(int(call.params["installation_id"]))
        roles = _roles(ctx, installation, login)
        if not roles and installation.account.login.lower() != login.lower():
            raise ApiError(404, "Not Found")
        names = sorted(roles, key=lambda n: ctx.world.repo(n).id)
        page, headers = paginate(call, names)
        shaped = [
            {
                **ctx.shapes.repo(ctx.world.repo(name)),
                "permissions": {k: k in ROLE_GRANTS[roles[name]] for k in ROLE_GRANTS["admin"]},
            }
            for name in page
        ]
    body = {
        "total_count": len(names),
        "repository_selection": installation.repository_selection,
        "repositories": shaped,
    }
    return json_response(body, headers=headers)
