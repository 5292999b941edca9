"""The ledger page's HTML: Jinja2 templates (autoescaped) and the filters they use."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

import cmarkgfm
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup
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


def markdown(text: str) -> Markup:
    """A lesson's Markdown (untrusted) as HTML: cmark-gfm's safe mode leaves raw HTML out and
    drops ``javascript:``, ``vbscript:``, ``file:`` and non-image ``data:`` links."""
    return Markup(cmarkgfm.github_flavored_markdown_to_html(text))


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
    env.filters["markdown"] = markdown
    return env


ENVIRONMENT = _environment()


def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The rendered template as an HTML answer with the page headers."""
    html = ENVIRONMENT.get_template(template).render(**context)
    return HTMLResponse(html, status_code=status, headers=HEADERS)
