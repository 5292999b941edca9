"""The authenticated `/v1` API: recall, brief, context, ledger, preferences and store edits."""

from __future__ import annotations

from starlette.routing import BaseRoute


def routes() -> list[BaseRoute]:
    """The `/v1` routes; each endpoint reaches the engine through `request.app.state.hindsight`."""
    return []
