"""The app's manifest from `app.yml`, and where on GitHub (or GitHub Enterprise) it is posted."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import yaml

# The manifest installed with the package: `hindsight setup` needs no clone to run in.
MANIFEST = Path(__file__).with_name("app.yml")
GITHUB_URL = "https://github.com"
GITHUB_API_URL = "https://api.github.com"
# app.yml ships with this placeholder; a real registration needs the server's address.
PLACEHOLDER_HOST = "hindsight.example.com"
# app.yml's homepage; a registration under another name or on another GitHub names its own.
SHIPPED_URL = "https://github.com/apps/hindsight"
# Where GitHub sends a person back after "Sign in with GitHub" on `/ledger` (ghapp.web.github).
SIGN_IN_CALLBACK = "/ledger/github/callback"
# The manifest fields GitHub reads (docs: "GitHub App Manifest parameters").
FIELDS = (
    "name",
    "url",
    "hook_attributes",
    "redirect_url",
    "callback_urls",
    "setup_url",
    "description",
    "public",
    "default_events",
    "default_permissions",
    "request_oauth_on_install",
    "setup_on_update",
)


class RegistrationError(Exception):
    """Registration cannot go on; the message says what is wrong and what to do."""


@dataclass(frozen=True, slots=True)
class GitHubSite:
    """Where the app is registered: the web host, its REST API, and maybe an organization."""

    web_url: str = GITHUB_URL
    api_url: str = GITHUB_API_URL
    org: str | None = None

    @classmethod
    def of(cls, web_url: str | None, api_url: str | None, org: str | None) -> GitHubSite:
        """github.com by default; for GitHub Enterprise `https://HOST` and its `/api/v3`."""
        web = (web_url or GITHUB_URL).rstrip("/")
        parts = urlsplit(web)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise RegistrationError(f"--github-url must be an http(s) URL, got {web_url!r}")
        if api_url is None:
            api_url = GITHUB_API_URL if web == GITHUB_URL else f"{web}/api/v3"
        return cls(web, api_url.rstrip("/"), org or None)

    def new_app_url(self, state: str) -> str:
        """The form's target: the person's (or the organization's) new-app page, with `state`."""
        owner = f"/organizations/{quote(self.org, safe='')}" if self.org else ""
        return f"{self.web_url}{owner}/settings/apps/new?{urlencode({'state': state})}"

    def install_url(self, slug: str) -> str:
        return f"{self.web_url}/apps/{quote(slug, safe='')}/installations/new"


def app_slug(name: str) -> str:
    """The slug GitHub makes of an app's name: lower case, other characters as `-`."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def load_manifest(
    path: Path,
    *,
    webhook_url: str | None,
    redirect_url: str,
    name: str | None,
    fixes: bool = False,
    web_url: str = GITHUB_URL,
    local_url: str | None = None,
) -> dict[str, Any]:
    """The manifest GitHub is sent: `path`'s fields, the webhook URL and the redirect back;
    with `fixes`, `contents: write` (fix PRs write a branch, a commit and a pull request).
    Its homepage, when app.yml's, is the app's page on ``web_url`` under its own name; its
    OAuth callback is the server's `/ledger` sign-in with GitHub (the webhook URL's origin)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RegistrationError(
            f"no manifest at {path}: pass --manifest with the path of an app.yml"
        ) from None
    except yaml.YAMLError as exc:
        raise RegistrationError(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise RegistrationError(f"{path} must be a mapping of manifest fields")
    unknown = sorted(str(k) for k in data if k not in FIELDS)
    if unknown:
        raise RegistrationError(f"{path}: not manifest fields: {', '.join(unknown)}")
    manifest: dict[str, Any] = dict(data)
    if name:
        manifest["name"] = name
    for required in ("name", "url"):
        if not isinstance(manifest.get(required), str) or not manifest[required]:
            raise RegistrationError(f"{path}: {required} is required")
    if not isinstance(manifest.get("default_permissions"), dict):
        raise RegistrationError(f"{path}: default_permissions must be a mapping")
    if fixes:
        manifest["default_permissions"] = {**manifest["default_permissions"], "contents": "write"}
    hook = dict(manifest.get("hook_attributes") or {})
    active = local_url is None or webhook_url is not None
    if local_url is not None and not active:
        # No public URL: GitHub never posts the app's events; a repository webhook forwarded by
        # `gh webhook forward` brings them to the local server (docs/operations.md).
        webhook_url = f"{local_url.rstrip('/')}/webhooks"
    hook_url = webhook_url or hook.get("url")
    if not isinstance(hook_url, str) or PLACEHOLDER_HOST in hook_url:
        raise RegistrationError(
            "--webhook-url is required: your server's public address and /webhooks, "
            "for example https://hindsight.your-domain.example/webhooks (or --local without one)"
        )
    if urlsplit(hook_url).scheme not in ("http", "https"):
        raise RegistrationError(f"--webhook-url must be an http(s) URL, got {hook_url!r}")
    manifest["hook_attributes"] = {**hook, "url": hook_url, "active": active}
    manifest["redirect_url"] = redirect_url
    if manifest["url"] == SHIPPED_URL:
        manifest["url"] = f"{web_url.rstrip('/')}/apps/{app_slug(manifest['name'])}"
    parts = urlsplit(hook_url)
    manifest.setdefault("callback_urls", [f"{parts.scheme}://{parts.netloc}{SIGN_IN_CALLBACK}"])
    return manifest
