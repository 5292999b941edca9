"""`/ledger/history/…`: a person deletes a history lesson, or confirms or rejects a suppression
candidate seeded from another bot's refused suggestion; what reviews are handed follows."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from continual.history.lessons import Missing, decide_refusal, delete_lesson
from continual.injections import target_named
from ghapp.api.auth import ApiError, deps_of, not_found, run
from ghapp.web.pages import LEDGER, SIGN_IN, LedgerPages, _repo_field
from ghapp.web.session import FormError, read_form

KINDS = {"lessons": ("delete",), "refusals": ("confirm", "reject")}
MAX_ID = 2**63 - 1


async def history_action(pages: LedgerPages, request: Request) -> Response:
    found = await pages._caller(request)
    if found is None:
        return RedirectResponse(SIGN_IN, status_code=303)
    session, caller = found
    kind, raw = request.path_params["kind"], request.path_params["item_id"]
    repo: str | None = None
    try:
        fields = await read_form(request, session)
        repo = _repo_field(fields)
        action = fields.get("action", "")
        if kind not in KINDS or not raw.isdecimal() or not 0 < int(raw) <= MAX_ID:
            raise not_found(f"history {kind[:40]} {raw[:40]}")
        if action not in KINDS[kind]:
            allowed = ", ".join(KINDS[kind])
            raise FormError(422, f"action must be one of {allowed}, got {action[:40]!r}")
        if repo is None:
            raise FormError(422, "repo is required")
        deps = deps_of(request)
        item_id, now = int(raw), deps.clock()
        chosen = repo

        def work() -> None:
            with deps.engine.begin() as conn:
                target = target_named(conn, caller.account_id, chosen)
                if target is None:
                    raise not_found(f"repository {chosen}")
                where = {"account_id": caller.account_id, "repository_id": target.repository_id}
                try:
                    if kind == "lessons":
                        delete_lesson(
                            conn, **where, lesson_id=item_id, actor=caller.login, now_ms=now
                        )
                    else:
                        decide_refusal(
                            conn,
                            **where,
                            refusal_id=item_id,
                            confirm=action == "confirm",
                            actor=caller.login,
                            now_ms=now,
                        )
                except Missing as exc:
                    raise not_found(str(exc)) from None

        await run(work)
    except (FormError, ApiError) as error:
        view = await pages._view(request, caller, repo)
        return pages._render(session, caller, view, status=error.status, problem=error.message)
    query = urlencode({"repo": repo or "", "done": f"history-{action}", "lesson": raw})
    return RedirectResponse(f"{LEDGER}?{query}", status_code=303)
