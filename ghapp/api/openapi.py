"""The published OpenAPI 3.1 description of `/v1`, served at `GET /v1/openapi.json`."""

from __future__ import annotations

import json
import sys
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

VERSION = "1.0.0"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _object(properties: dict[str, Any], *, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
        "additionalProperties": False,
    }


def _nullable(kind: str, **extra: Any) -> dict[str, Any]:
    return {"type": [kind, "null"], **extra}


def _array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


STRING = {"type": "string"}
INTEGER = {"type": "integer"}
TIME = _nullable("string", format="date-time")
SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
STATE = {"type": "string", "enum": ["active", "candidate", "demoted", "expired"]}
SCOPE = {"type": "string", "enum": ["repository", "account"]}


def _counts() -> dict[str, Any]:
    return _object(
        {
            "total": INTEGER,
            "accepted": INTEGER,
            "dismissed": INTEGER,
            "pending": INTEGER,
            "acceptance_rate": _nullable("number"),
        }
    )


SCHEMAS: dict[str, Any] = {
    "Error": _object(
        {
            "error": _object(
                {"code": STRING, "message": STRING, "field": STRING}, optional=("field",)
            )
        }
    ),
    "Receipt": _object(
        {
            "decision": {"type": "string", "enum": ["accepted", "dismissed"]},
            "reason": _nullable("string"),
            "source": STRING,
            "rule": _nullable("string"),
            "span": _nullable("string"),
            "seat": STRING,
            "lab": _nullable("string"),
            "pr": INTEGER,
            "suggestion": STRING,
            "review": _nullable("string"),
            "set_sha256": _nullable("string"),
            "actor": _nullable("string"),
            "at": {"type": "string", "format": "date-time"},
            "superseded": {"type": "boolean"},
            "proof": {"oneOf": [_ref("Proof"), {"type": "null"}]},
        }
    ),
    "Proof": _object(
        {
            "test": STRING,
            "outcome": {
                "type": "string",
                "enum": [
                    "proven",
                    "passed-before-fix",
                    "still-failing",
                    "patch-does-not-apply",
                    "timeout",
                    "no-fix",
                    "no-checkout",
                    "skipped-no-sandbox",
                    "unsafe-tree",
                    "copy-failed",
                    "error",
                ],
            },
            "reason": STRING,
            "head_sha": STRING,
            "sandbox": {"type": "string", "enum": ["bwrap", "unsandboxed", "none"]},
            "at": {"type": "string", "format": "date-time"},
        }
    ),
    "Lesson": _object(
        {
            "id": STRING,
            "key": STRING,
            "repository": STRING,
            "scope": SCOPE,
            "lens": STRING,
            "title": STRING,
            "text": STRING,
            "state": STATE,
            "revision": INTEGER,
            "sources": _array(_ref("Receipt")),
            "confirmations": INTEGER,
            "last_confirmed_at": TIME,
            "expires_at": TIME,
            "suppressed": {"oneOf": [{"type": "null"}, _ref("Suppressed")]},
        }
    ),
    "Suppressed": _object(
        {
            "reason": STRING,
            "by": _nullable("string"),
            "receipt_id": _nullable("integer"),
            "path": _nullable("string"),
            "until": TIME,
        }
    ),
    "Lessons": _object(
        {"lessons": _array(_ref("Lesson")), "retired": _array(_ref("LessonChange"))},
        optional=("retired",),
    ),
    "LessonChange": _object(
        {
            "id": STRING,
            "repository": STRING,
            "key": STRING,
            "lens": STRING,
            "title": STRING,
            "text": STRING,
            "action": {"type": "string", "enum": ["retired", "adapted", "restored"]},
            "reason": STRING,
            "commit": _nullable("string"),
            "revision": INTEGER,
            "before_text": STRING,
            "after_text": _nullable("string"),
            "actor": STRING,
            "at": TIME,
            "retired": {"type": "boolean"},
        }
    ),
    "Restore": _object({"expected_revision": INTEGER}),
    "Restored": _object(
        {"id": STRING, "revision": INTEGER, "state": {"type": "string", "enum": ["restored"]}}
    ),
    "ActiveLesson": _object(
        {
            "id": STRING,
            "key": STRING,
            "revision": INTEGER,
            "repository": STRING,
            "scope": SCOPE,
            "lens": STRING,
            "title": STRING,
            "text": STRING,
            "confirmations": INTEGER,
        }
    ),
    "Active": _object(
        {
            "repository": STRING,
            "session": _nullable("string"),
            "lessons": _array(_ref("ActiveLesson")),
            "text": STRING,
            "set_sha256": SHA256,
            "chars": INTEGER,
            "omitted": INTEGER,
            "recorded": {"type": "boolean"},
        }
    ),
    "Handed": _object(
        {
            "repository": STRING,
            "surface": {"type": "string", "enum": ["review", "recall", "brief", "context"]},
            "session": STRING,
            "text": STRING,
            "lessons": _array(_object({"id": STRING, "key": STRING, "text": STRING})),
            "entries": _array(_object({"id": STRING, "revision": INTEGER})),
            "set_sha256": SHA256,
            "omitted": INTEGER,
            "chars": INTEGER,
            "recorded": {"type": "boolean"},
        }
    ),
    "MemorySummary": _object(
        {
            "repository": STRING,
            "id": STRING,
            "revision": INTEGER,
            "text": STRING,
            "chars": INTEGER,
            "max_chars": INTEGER,
            "lessons": INTEGER,
            "memories": INTEGER,
            "omitted": INTEGER,
            "fingerprint": SHA256,
            "built_at": {"type": "string", "format": "date-time"},
            "cleared": {"type": "boolean"},
            "cleared_at": _nullable("string"),
            "cleared_by": _nullable("string"),
        }
    ),
    "Preference": _object(
        {
            "person": STRING,
            "recording": {"type": "string", "enum": ["full", "incognito", "off"]},
            "surfacing": {"type": "integer", "minimum": 0, "maximum": 3},
            "lesson_cap": {"type": "integer", "minimum": 1, "maximum": 20},
        }
    ),
    "PreferenceUpdate": _object(
        {
            "recording": {"type": "string", "enum": ["full", "incognito", "off"]},
            "surfacing": {"type": "integer", "minimum": 0, "maximum": 3},
            "lesson_cap": {"type": "integer", "minimum": 1, "maximum": 20},
        },
        optional=("recording", "surfacing", "lesson_cap"),
    ),
    "Edit": _object({"demote": {"type": "boolean"}, "expected_revision": INTEGER}),
    "Counts": _counts(),
    "SeatLensCounts": _object(
        {
            "seat": STRING,
            "lens": STRING,
            "total": INTEGER,
            "accepted": INTEGER,
            "dismissed": INTEGER,
            "pending": INTEGER,
            "acceptance_rate": _nullable("number"),
            "proven": INTEGER,
            "agreements": INTEGER,
        }
    ),
    "BrainLesson": _object(
        {
            "id": STRING,
            "key": STRING,
            "scope": SCOPE,
            "lens": STRING,
            "title": STRING,
            "text": STRING,
            "state": STATE,
            "revision": INTEGER,
            "confirmations": INTEGER,
        }
    ),
    "ReviewHanded": _object(
        {
            "review": STRING,
            "set_sha256": SHA256,
            "entries": _array(_object({"id": STRING, "revision": INTEGER})),
            "chars": INTEGER,
            "at_ms": INTEGER,
        }
    ),
    "LedgerRepository": _object(
        {
            "repository": STRING,
            "reviews": INTEGER,
            "posted": INTEGER,
            "calls": _object(
                {
                    "ok": INTEGER,
                    "failed": INTEGER,
                    "skipped": INTEGER,
                    "failures": _array(
                        _object({"seat": STRING, "reason": STRING, "count": INTEGER})
                    ),
                }
            ),
            "decisions_by_rule": _array(
                _object({"rule": STRING, "decision": STRING, "source": STRING, "count": INTEGER})
            ),
            "decisions_by_signal": _array(
                _object({"signal": STRING, "accepted": INTEGER, "dismissed": INTEGER})
            ),
            "memory": {"type": "object", "additionalProperties": INTEGER},
            "proofs": {"type": "object", "additionalProperties": INTEGER},
            "suggestions": _ref("Counts"),
            "by_seat_and_lens": _array(_ref("SeatLensCounts")),
            "acceptance": _object(
                {"with_lessons": _ref("Counts"), "without_lessons": _ref("Counts")}
            ),
            "entries": _object(
                {"active": INTEGER, "candidate": INTEGER, "demoted": INTEGER, "expired": INTEGER}
            ),
            "hits": INTEGER,
            "suppressed": INTEGER,
            "resolved": INTEGER,
            "lessons": _array(_ref("BrainLesson")),
            "handed": _array(_ref("ReviewHanded")),
        },
        optional=("lessons", "handed"),
    ),
    "Ledger": _object(
        {"repositories": _array(_ref("LedgerRepository")), "brain": {"type": "boolean"}}
    ),
    "SessionDeleted": _object(
        {
            "session": STRING,
            "deleted": _object(
                {
                    "injections": INTEGER,
                    "injection_lines": INTEGER,
                    "memory_items": INTEGER,
                    "memory_hits": INTEGER,
                    "memory_files": INTEGER,
                    "entries": INTEGER,
                }
            ),
            "kept_entries": INTEGER,
        }
    ),
}


def _param(name: str, description: str, *, required: bool = False, many: bool = False) -> Any:
    schema: dict[str, Any] = _array(STRING) if many else STRING
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
    return {"description": description, "content": {"application/json": {"schema": _ref(schema)}}}


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
            "content": {"application/json": {"schema": _ref(body)}},
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


def description() -> dict[str, Any]:
    """The whole OpenAPI document."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Hindsight API", "version": VERSION},
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": PATHS,
    }


async def document(request: Request) -> Response:
    return JSONResponse(description())


def main() -> None:
    """Print the description (docs/openapi.json is this output)."""
    json.dump(description(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
