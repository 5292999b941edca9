"""The ledger page's HTML: Jinja2 templates (autoescaped) and the filters they use."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.responses import HTMLResponse

from ghapp.api.auth import iso

# Pages that hold a session's data are not cached, and are not framed by other sites.
HEADERS = {
    "cache-control": "no-store",
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'",
    "referrer-policy": "same-origin",
}


def github_web_url(api_url: str) -> str:
    """Where people read what the API at ``api_url`` serves: github.com for api.github.com,
    the server itself for GitHub Enterprise Server (``https://host/api/v3``)."""
    parts = urlsplit(api_url.rstrip("/"))
    if parts.hostname == "api.github.com":
        return "https://github.com"
    path = parts.path[: -len("/api/v3")] if parts.path.endswith("/api/v3") else parts.path
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _when(ms: int | None) -> str:
    moment = iso(ms)
    return "—" if moment is None else moment[:16].replace("T", " ") + " UTC"


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("ghapp.web", "templates"),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["rate"] = _rate
    env.filters["when"] = _when
    return env


ENVIRONMENT = _environment()


def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The rendered template as an HTML answer with the page headers."""
    html = ENVIRONMENT.get_template(template).render(**context)
    return HTMLResponse(html, status_code=status, headers=HEADERS)
