"""The ledger as web pages at `/ledger`, for people who sign in with their API token."""

from __future__ import annotations

import functools

from starlette.routing import BaseRoute, Route

from ghapp.web.history import history_action
from ghapp.web.pages import LedgerPages
from ghapp.web.render import github_web_url
from ghapp.web.session import Sessions


def routes(
    webhook_secret: bytes, github_api_url: str = "https://api.github.com"
) -> list[BaseRoute]:
    """The `/ledger` routes (and `/`, which points to it); the session cookie's key is derived
    from the webhook secret; evidence links to pull requests on GitHub's web side of
    ``github_api_url``."""
    pages = LedgerPages(Sessions(webhook_secret), github_web_url(github_api_url))
    return [
        Route("/", pages.home, methods=["GET"]),
        Route("/ledger", pages.ledger, methods=["GET"]),
        Route("/ledger/sign-in", pages.sign_in_page, methods=["GET"]),
        Route("/ledger/sign-in", pages.sign_in, methods=["POST"]),
        Route("/ledger/sign-out", pages.sign_out, methods=["POST"]),
        Route("/ledger/lessons/{entry_id}", pages.lesson, methods=["POST"]),
        Route("/ledger/suggestions/{suggestion_id}/fix", pages.fix, methods=["POST"]),
        Route(
            "/ledger/history/{kind}/{item_id}",
            functools.partial(history_action, pages),
            methods=["POST"],
        ),
    ]
