"""The manifest flow on loopback: a page that posts the manifest to GitHub, the redirect back
with `code` and `state`, the code's exchange for the app's credentials, and the files written."""

from __future__ import annotations

import html
import json
import logging
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from githubkit import GitHub, UnauthAuthStrategy
from githubkit.exception import RequestError, RequestFailed, RequestTimeout
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ghapp.github.client import DEFAULT_TIMEOUT_S, REQUEST_HEADERS, USER_AGENT, GitHubClient
from ghapp.registration.files import Credentials, write_credentials
from ghapp.registration.manifest import GitHubSite, RegistrationError, load_manifest

log = logging.getLogger(__name__)

CALLBACK_PATH = "/callback"
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body {{ font: 15px/1.5 system-ui, sans-serif; max-width: 720px; margin: 40px auto;
padding: 0 16px; }} pre {{ background: #f6f8fa; padding: 12px; overflow: auto; }}
.problem {{ color: #cf222e; }}</style></head>
<body><h1>{title}</h1>{body}</body></html>
"""
START_BODY = """<p>Register Hindsight as a GitHub App on <b>{owner}</b>. GitHub shows you this manifest,
you choose Create, and GitHub sends you back here; the app's id, webhook secret and private key are
then written to <code>{env_file}</code> and <code>{key_file}</code>.</p>
<form method="post" action="{action}">
<input type="hidden" name="manifest" value="{manifest}">
<button type="submit" id="register">Register on {site}</button>
</form>
<pre>{shown}</pre>
"""
DONE_BODY = """<p id="done">The GitHub App <b>{name}</b> (id {app_id}) is registered.</p>
<p>Written: <code>{env_file}</code> and <code>{key_file}</code> (mode 0600).
Next: <a href="{install_url}">install it on your repositories</a>, then
<code>hindsight init</code> and <code>hindsight serve</code>. You can close this page.</p>
"""
PROBLEM_BODY = """<p class="problem" id="problem">{problem}</p>
<p><a href="/">Start again</a></p>
"""


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    headers = {"cache-control": "no-store", "referrer-policy": "no-referrer"}
    return HTMLResponse(PAGE.format(title=title, body=body), status_code=status, headers=headers)


@dataclass
class Registration:
    """One run of `hindsight setup`: the state it checks, and what came of it."""

    site: GitHubSite
    manifest_file: Path
    webhook_url: str | None
    name: str | None
    env_file: Path
    key_file: Path
    force: bool
    fixes: bool = False  # ask for `contents: write`, which fix PRs need (docs/permissions.md)
    local_url: str | None = None  # no public URL: the local server, its app webhook inactive
    state: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    finished: threading.Event = field(default_factory=threading.Event)
    credentials: Credentials | None = None
    base_url: str = ""

    def manifest(self) -> dict[str, Any]:
        """The manifest this run posts; it redirects back to this server's callback."""
        return load_manifest(
            self.manifest_file,
            webhook_url=self.webhook_url,
            redirect_url=self.base_url + CALLBACK_PATH,
            name=self.name,
            fixes=self.fixes,
            web_url=self.site.web_url,
            local_url=self.local_url,
        )

    async def start(self, request: Request) -> Response:
        if self.credentials is not None:
            return self._done()
        try:
            manifest = self.manifest()
        except RegistrationError as exc:
            return _page("Cannot register", PROBLEM_BODY.format(problem=html.escape(str(exc))), 500)
        body = START_BODY.format(
            owner=html.escape(self.site.org or "your account"),
            env_file=html.escape(str(self.env_file)),
            key_file=html.escape(str(self.key_file)),
            action=html.escape(self.site.new_app_url(self.state)),
            manifest=html.escape(json.dumps(manifest)),
            site=html.escape(self.site.web_url),
            shown=html.escape(json.dumps(manifest, indent=2)),
        )
        return _page("Register Hindsight", body)

    async def callback(self, request: Request) -> Response:
        if self.credentials is not None:
            return self._done()
        code = request.query_params.get("code", "")
        state = request.query_params.get("state", "")
        if not secrets.compare_digest(state.encode(), self.state.encode()):
            return self._problem(
                400,
                "This redirect does not carry the state this page sent: it did not come "
                "from the registration started here. Start again.",
            )
        if not code or len(code) > 200:
            return self._problem(400, "GitHub sent no code back. Start again.")
        try:
            credentials = await self._exchange(code)
            write_credentials(
                credentials, env_file=self.env_file, key_file=self.key_file, force=self.force
            )
        except RegistrationError as exc:
            return self._problem(502, str(exc))
        except OSError as exc:
            return self._problem(500, f"could not write the files: {exc}")
        self.credentials = credentials
        self.finished.set()
        return self._done()

    async def _exchange(self, code: str) -> Credentials:
        """`POST /app-manifests/{code}/conversions` (no authentication: the code is the proof)."""
        config = GitHubClient.build_config(
            self.site.api_url, DEFAULT_TIMEOUT_S, USER_AGENT, trust_env=True
        )
        github = GitHub(UnauthAuthStrategy(), config=config)
        url = f"/app-manifests/{quote(code, safe='')}/conversions"
        try:
            response = await github.arequest("POST", url, headers=REQUEST_HEADERS)
        except RequestFailed as exc:
            status = exc.response.status_code
            raise RegistrationError(
                f"GitHub refused the code ({status}): it is single-use and lasts an hour. "
                "Start again."
            ) from None
        except (RequestTimeout, RequestError) as exc:
            raise RegistrationError(
                f"could not reach {self.site.api_url} to exchange the code: {type(exc).__name__}"
            ) from None
        credentials = _credentials(response.raw_response, self.site.api_url)
        log.info(
            "github app registered", extra={"app_id": credentials.app_id, "slug": credentials.slug}
        )
        return credentials

    def _problem(self, status: int, problem: str) -> HTMLResponse:
        return _page(
            "Registration failed", PROBLEM_BODY.format(problem=html.escape(problem)), status
        )

    def _done(self) -> HTMLResponse:
        credentials = self.credentials
        assert credentials is not None
        body = DONE_BODY.format(
            name=html.escape(credentials.name),
            app_id=credentials.app_id,
            env_file=html.escape(str(self.env_file)),
            key_file=html.escape(str(self.key_file)),
            install_url=html.escape(self.site.install_url(credentials.slug)),
        )
        return _page("Registered", body)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/", self.start, methods=["GET"]),
                Route(CALLBACK_PATH, self.callback, methods=["GET"]),
            ]
        )


def _credentials(response: httpx.Response, api_url: str) -> Credentials:
    """The app's credentials from the conversion's answer (only the fields Hindsight keeps)."""
    try:
        data = response.json()
    except ValueError:
        data = None
    fields = ("id", "slug", "name", "html_url", "webhook_secret", "pem")
    if not isinstance(data, dict) or not all(data.get(name) for name in fields):
        raise RegistrationError(
            "GitHub's answer to the code lacks the app's id, slug, webhook secret or key"
        )
    return Credentials(
        app_id=int(data["id"]),
        slug=str(data["slug"]),
        name=str(data["name"]),
        html_url=str(data["html_url"]),
        api_url=api_url,
        webhook_secret=str(data["webhook_secret"]),
        pem=str(data["pem"]),
        client_id=str(data.get("client_id") or ""),
        client_secret=str(data.get("client_secret") or ""),
    )
