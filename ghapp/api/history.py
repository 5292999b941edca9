"""`/v1/history`: a repository's history back-fill, its progress and receipts, the lessons and
suppression candidates it published and its publication receipts."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from continual.history.shown import HistoryView, history_view
from continual.persons import Caller
from ghapp.api.auth import authenticated, deps_of, not_found, run, target_param
from ghapp.api.shapes import history_json
from ghapp.db import reading


@authenticated
async def view(request: Request, caller: Caller) -> Response:
    """Where the repository's back-fill stands (404 when none was asked for)."""
    target = await target_param(request, caller)
    engine = deps_of(request).engine

    def read() -> HistoryView | None:
        with reading(engine) as conn:
            return history_view(
                conn,
                account_id=target.account_id,
                repository_id=target.repository_id,
                repository=target.repository,
            )

    found = await run(read)
    if found is None:
        raise not_found(f"a history back-fill of {target.repository}")
    return JSONResponse(history_json(found))
