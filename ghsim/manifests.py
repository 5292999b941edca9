"""GitHub's app-manifest flow: the new-app page for a posted manifest, its Create button (which
redirects back with a one-time code), and the code's conversion into the registered app."""

from __future__ import annotations

import html
import json
import re
import secrets
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ghsim.app_key import generate_app_key
from ghsim.endpoint import Call, Context, json_response
from ghsim.model import ApiError
from ghsim.pending import Posted

MAX_FORM_BYTES = 64 * 1024
NEW_APP_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Register new GitHub App</title></head>
<body>
<h1>Create GitHub App {name}</h1>
<p>Owner: <b id="owner">{owner}</b></p>
<pre id="manifest">{manifest}</pre>
<form method="post" action="/settings/apps/new/create">
<input type="hidden" name="token" value="{token}">
<button type="submit" id="create">Create GitHub App for {owner}</button>
</form>
</body></html>
"""
PROBLEM_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Invalid manifest</title></head>
<body><h1>Invalid GitHub App manifest</h1><p id="problem">{problem}</p></body></html>
"""


def _problem(message: str) -> HTMLResponse:
    return HTMLResponse(PROBLEM_PAGE.format(problem=html.escape(message)), status_code=422)


def _manifest(raw: str | None) -> dict[str, Any]:
    """The posted manifest, with the checks GitHub makes before it shows the page."""
    if not raw:
        raise ValueError("the form has no manifest parameter")
    try:
        manifest = json.loads(raw)
    except ValueError:
        raise ValueError("the manifest parameter is not JSON") from None
    if not isinstance(manifest, dict):
        raise ValueError("the manifest must be a JSON object")
    if not isinstance(manifest.get("url"), str):
        raise ValueError("url is required: the app's homepage")
    hook = manifest.get("hook_attributes")
    if hook is not None and not (isinstance(hook, dict) and isinstance(hook.get("url"), str)):
        raise ValueError("hook_attributes must be an object with a url")
    if not isinstance(manifest.get("redirect_url"), str):
        raise ValueError("redirect_url is required for the manifest flow")
    return manifest


async def _form(request: Request) -> dict[str, str]:
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise ValueError("the form is too large")
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {name: values[-1] for name, values in parsed.items()}


def pages(ctx: Context) -> list[BaseRoute]:
    """The HTML side of the flow, at the paths github.com serves it."""

    async def new_app(request: Request) -> Response:
        try:
            manifest = _manifest((await _form(request)).get("manifest"))
        except ValueError as exc:
            return _problem(str(exc))
        org = request.path_params.get("org")
        owner, owner_type = (org, "Organization") if org else ("octocat", "User")
        token = ctx.world.manifests.post(
            Posted(manifest, request.query_params.get("state"), owner, owner_type)
        )
        text = NEW_APP_PAGE.format(
            name=html.escape(str(manifest.get("name", ""))),
            owner=html.escape(owner),
            manifest=html.escape(json.dumps(manifest, indent=2, sort_keys=True)),
            token=token,
        )
        return HTMLResponse(text)

    async def create(request: Request) -> Response:
        created = ctx.world.manifests.create((await _form(request)).get("token", ""))
        if created is None:
            return _problem("this form was already used or never shown: post the manifest again")
        code, posted = created
        query = {"code": code, **({"state": posted.state} if posted.state is not None else {})}
        target = str(posted.manifest["redirect_url"])
        separator = "&" if "?" in target else "?"
        return RedirectResponse(f"{target}{separator}{urlencode(query)}", status_code=302)

    return [
        Route("/settings/apps/new", new_app, methods=["POST"]),
        Route("/organizations/{org}/settings/apps/new", new_app, methods=["POST"]),
        Route("/settings/apps/new/create", create, methods=["POST"]),
    ]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "app"


def conversion(ctx: Context, call: Call) -> Response:
    """`POST /app-manifests/{code}/conversions`: register the app, answer its id, key and
    secrets. The simulator then serves that app: its JWTs must be signed with the new key."""
    posted = ctx.world.manifests.take(str(call.params["code"]))
    if posted is None:
        raise ApiError(404, "Not Found")
    manifest = posted.manifest
    key = generate_app_key()
    world = ctx.world
    with world.lock:
        name = str(manifest.get("name") or "GitHub App")
        world.register_app(
            app_id=world.next_id(),
            slug=_slug(name),
            name=name,
            owner=world.account(posted.owner, posted.owner_type),
            permissions=dict(manifest.get("default_permissions") or {}),
            events=list(manifest.get("default_events") or []),
        )
        ctx.public_key_pem = key.public_pem
        shape = ctx.shapes.app()
    shape["description"] = str(manifest.get("description") or "")
    # The app's page is on this GitHub's web side (the simulator serves both sides).
    shape["html_url"] = f"{str(call.request.base_url).rstrip('/')}/apps/{shape['slug']}"
    shape["external_url"] = str(manifest["url"])
    webhook_secret = secrets.token_hex(20)
    callbacks = manifest.get("callback_urls")
    world.sign_ins.callback_urls = [str(x) for x in callbacks or () if isinstance(x, str)]
    world.sign_ins.client_secret = secrets.token_hex(20)
    hook = manifest.get("hook_attributes")
    if isinstance(hook, dict) and hook.get("active", True) and ctx.hooks.configure is not None:
        # As on GitHub, the new app's events go to the manifest's webhook URL from now on.
        ctx.hooks.configure(str(hook["url"]), webhook_secret)
    return json_response(
        {
            **shape,
            "client_secret": world.sign_ins.client_secret,
            "webhook_secret": webhook_secret,
            "pem": key.private_pem,
        },
        status=201,
    )
