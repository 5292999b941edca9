"""Webhook handlers, and the one place they are registered: every route of the app, composed explicitly."""

from __future__ import annotations

from ghapp.fixes import commands as fixes
from ghapp.handlers import history, installations, pulls, push, repositories
from ghapp.router import Router


def build_router(*, coalesce_ms: int = pulls.COALESCE_MS) -> Router:
    """Every route; `coalesce_ms` is how long a reply's write-back waits for the rest of a burst."""
    return Router(
        installations.ROUTES,
        repositories.ROUTES,
        pulls.routes(coalesce_ms=coalesce_ms),
        push.ROUTES,
        fixes.ROUTES,
        history.ROUTES,
    )
