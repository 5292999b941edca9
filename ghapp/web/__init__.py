"""The ledger as web pages at `/ledger`, for people who sign in with their API token."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from ghapp.web.pages import LedgerPages
from ghapp.web.session import Sessions


def routes(webhook_secret: bytes) -> list[BaseRoute]:
    """The `/ledger` routes; the session cookie's key is derived from the webhook secret."""
    pages = LedgerPages(Sessions(webhook_secret))
    return [
        Route("/ledger", pages.ledger, methods=["GET"]),
        Route("/ledger/sign-in", pages.sign_in_page, methods=["GET"]),
        Route("/ledger/sign-in", pages.sign_in, methods=["POST"]),
        Route("/ledger/sign-out", pages.sign_out, methods=["POST"]),
        Route("/ledger/lessons/{entry_id}", pages.lesson, methods=["POST"]),
    ]
