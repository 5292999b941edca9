"""The paths of the `/v1` OpenAPI description: each operation with its parameters and answers."""

from __future__ import annotations

from typing import Any

from ghapp.api.openapi.schemas import STRING, array, ref


def _param(name: str, description: str, *, required: bool = False, many: bool = False) -> Any:
    schema: dict[str, Any] = array(STRING) if many else STRING
    return {
        "name": name,
        "in": "query",
        "required": required,
        "description": description,
        "schema": schema,
    }


def _path(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": STRING}


def _json(schema: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ref(schema)}}}


ERRORS = {
    "401": _json("Error", "no token, or an unknown or revoked one"),
    "404": _json("Error", "not in the caller's account (or no such thing)"),
    "422": _json("Error", "an invalid value; `error.field` names it"),
}
REPO = _param("repo", "the repository, owner/name", required=True)
SESSION = _param("session", "the agent's session id (dedupe and receipts)", required=True)


def _op(
    summary: str,
    answer: dict[str, Any],
    *params: Any,
    ok: str = "200",
    codes: dict[str, Any] | None = None,
    body: str | None = None,
) -> dict[str, Any]:
    responses = {ok: answer, **(codes or {}), **ERRORS}
    op: dict[str, Any] = {"summary": summary, "parameters": list(params), "responses": responses}
    if body is not None:
        responses["400"] = _json("Error", "the body is not a JSON object")
        responses["413"] = _json("Error", "the body is over 64 KiB")
        op["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": ref(body)}},
        }
    return op


PATHS: dict[str, Any] = {
    "/v1/recall": {
        "get": _op(
            "every lesson of the account, with receipts",
            _json("Lessons", "the lessons"),
            _param("include", "`retired`: also what maintenance retired or adapted, and why"),
        )
    },
    "/v1/recall/{entry_id}/restore": {
        "post": _op(
            "bring a retired lesson back under its expected revision",
            _json("Restored", "the lesson is live again"),
            _path("entry_id"),
            body="Restore",
            codes={"409": _json("Error", "the lesson changed, or its mechanism has a live lesson")},
        )
    },
    "/v1/recall/active": {
        "get": _op(
            "what the next session in a repository is handed (recorded when `session` is given)",
            _json("Active", "the lessons in recall order, with omitted"),
            REPO,
            _param("session", "hand and record them to this session"),
        )
    },
    "/v1/recall/{entry_id}": {
        "patch": _op(
            "demote or restore a lesson under its expected revision",
            _json("Lesson", "the lesson after the edit"),
            _path("entry_id"),
            body="Edit",
            codes={"409": _json("Error", "the lesson changed: read it again")},
        ),
        "delete": _op(
            "delete a lesson, leaving a tombstone",
            {"description": "deleted; a tombstone keeps id, key, revision and source ids"},
            _path("entry_id"),
            _param("expected_revision", "fail with 409 unless the lesson is at this revision"),
            ok="204",
            codes={"409": _json("Error", "the lesson changed: read it again")},
        ),
    },
    "/v1/brief": {
        "get": _op(
            "the brief for an agent's session start", _json("Handed", "the brief"), REPO, SESSION
        )
    },
    "/v1/context": {
        "get": _op(
            "a context push for one agent tool call",
            _json("Handed", "the push"),
            REPO,
            SESSION,
            _param("path", "a root-relative path the call touches", many=True),
            _param("identifier", "a whole identifier the call touches", many=True),
            _param("word", "a word of the call (keyword groups)", many=True),
        )
    },
    "/v1/memory": {
        "get": _op(
            "the repository's memory switch (off unless turned on), what it stores, and the "
            "summary handed (null while memory is off)",
            _json("Memory", "the switch and the stored memory"),
            REPO,
        ),
        "put": _op(
            "turn the repository's memory on or off (off keeps what is stored)",
            _json("MemorySwitch", "the switch"),
            REPO,
            body="MemorySwitchUpdate",
        ),
        "delete": _op(
            "delete all the repository's memory data: items, hits, summary, session files",
            _json("MemoryCleared", "what was deleted, counted"),
            REPO,
        ),
    },
    "/v1/memory/summary": {
        "get": _op(
            "the repository's memory summary, as reviews and briefs are handed it",
            _json("MemorySummary", "the summary (rebuilt first when its sources changed)"),
            REPO,
        ),
        "delete": _op(
            "withdraw the summary until the repository's lessons or memory change",
            _json("MemorySummary", "the cleared summary"),
            REPO,
        ),
    },
    "/v1/memory/summary/rebuild": {
        "post": _op(
            "build the summary again now",
            _json("MemorySummary", "the rebuilt summary"),
            REPO,
        )
    },
    "/v1/history": {
        "get": _op(
            "the repository's history back-fill: progress, outcomes and history receipts",
            _json("History", "the back-fill (404 when none was asked for)"),
            REPO,
        )
    },
    "/v1/review-ledger": {
        "get": _op(
            "per repository: reviews, calls, suggestions, decisions, acceptance, hits",
            _json("Ledger", "the ledger"),
            _param("brain", "true adds the lessons and what each review was handed"),
        )
    },
    "/v1/persons/preference": {
        "get": _op("the caller's preference card", _json("Preference", "the card")),
        "put": _op(
            "change the caller's card", _json("Preference", "the card"), body="PreferenceUpdate"
        ),
    },
    "/v1/sessions/{session_id}": {
        "delete": _op(
            "delete a session's injections, memory and the lessons only it made",
            _json("SessionDeleted", "what was deleted, counted"),
            _path("session_id"),
        )
    },
}
