"""Webhook handlers, and the one place they are registered: every route of the app, composed explicitly."""

from __future__ import annotations

from ghapp.handlers import installations, pulls
from ghapp.router import Router


def build_router() -> Router:
    return Router(installations.ROUTES, pulls.ROUTES)
