"""The authenticated `/v1` API: recall, brief, context, memory summary, history back-fill,
ledger, preferences and store edits."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from ghapp.api import account, auth, history, openapi, recall, retired, summary

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def routes() -> list[BaseRoute]:
    """The `/v1` routes; each endpoint reaches the engine through `request.app.state.hindsight`."""
    return [
        Route("/v1/openapi.json", openapi.document, methods=["GET"]),
        Route("/v1/recall", recall.list_lessons, methods=["GET"]),
        Route("/v1/recall/active", recall.active, methods=["GET"]),
        Route("/v1/recall/{entry_id}", recall.edit, methods=["PATCH"]),
        Route("/v1/recall/{entry_id}", recall.remove, methods=["DELETE"]),
        Route("/v1/recall/{entry_id}/restore", retired.restore_lesson, methods=["POST"]),
        Route("/v1/brief", recall.brief, methods=["GET"]),
        Route("/v1/context", recall.context, methods=["GET"]),
        Route("/v1/memory", summary.memory_view, methods=["GET"]),
        Route("/v1/memory", summary.memory_switch_put, methods=["PUT"]),
        Route("/v1/memory", summary.memory_clear, methods=["DELETE"]),
        Route("/v1/memory/summary", summary.view, methods=["GET"]),
        Route("/v1/memory/summary", summary.clear, methods=["DELETE"]),
        Route("/v1/memory/summary/rebuild", summary.rebuild, methods=["POST"]),
        Route("/v1/history", history.view, methods=["GET"]),
        Route("/v1/review-ledger", account.ledger, methods=["GET"]),
        Route("/v1/persons/preference", account.get_preference, methods=["GET"]),
        Route("/v1/persons/preference", account.put_preference, methods=["PUT"]),
        Route("/v1/sessions/{session_id}", account.forget_session, methods=["DELETE"]),
        Route("/v1/{rest:path}", auth.unknown_route, methods=ALL_METHODS),
    ]
