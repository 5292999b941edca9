"""The schema components of the `/v1` OpenAPI description: the JSON Schema of each answer and body."""

from __future__ import annotations

from typing import Any


def ref(name: str) -> dict[str, str]:
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


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


STRING = {"type": "string"}
INTEGER = {"type": "integer"}
TIME = _nullable("string", format="date-time")
SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
STATE = {"type": "string", "enum": ["active", "candidate", "demoted", "expired"]}
SCOPE = {"type": "string", "enum": ["repository", "account"]}
# An active lesson may also be one the repository's review history taught (docs/history.md).
ACTIVE_SCOPE = {"type": "string", "enum": ["repository", "account", "history"]}


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
            "proof": {"oneOf": [ref("Proof"), {"type": "null"}]},
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
            "sources": array(ref("Receipt")),
            "confirmations": INTEGER,
            "last_confirmed_at": TIME,
            "expires_at": TIME,
            "suppressed": {"oneOf": [{"type": "null"}, ref("Suppressed")]},
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
        {"lessons": array(ref("Lesson")), "retired": array(ref("LessonChange"))},
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
            "action": {"type": "string", "enum": ["retired", "adapted", "restored", "merged"]},
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
            "scope": ACTIVE_SCOPE,
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
            "lessons": array(ref("ActiveLesson")),
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
            "lessons": array(_object({"id": STRING, "key": STRING, "text": STRING})),
            "entries": array(_object({"id": STRING, "revision": INTEGER})),
            "set_sha256": SHA256,
            "omitted": INTEGER,
            "chars": INTEGER,
            "recorded": {"type": "boolean"},
            "lessons_handed": array(
                _object(
                    {
                        "id": STRING,
                        "lens": STRING,
                        "kind": STRING,
                        "seat": STRING,
                        "sessions": array(STRING),
                    }
                )
            ),
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
    "History": _object(
        {
            "repository": STRING,
            "state": {"type": "string", "enum": ["queued", "running", "paused", "done", "stopped"]},
            "generation": INTEGER,
            "days": INTEGER,
            "max_prs": INTEGER,
            "since": {"type": "string", "format": "date-time"},
            "prs_read": INTEGER,
            "comments_kept": INTEGER,
            "addressed": INTEGER,
            "facts": INTEGER,
            "requests": INTEGER,
            "pauses": INTEGER,
            "paused_until": TIME,
            "requested_at": {"type": "string", "format": "date-time"},
            "started_at": TIME,
            "updated_at": {"type": "string", "format": "date-time"},
            "finished_at": TIME,
            "last_error": _nullable("string"),
            "outcomes": {"type": "object", "additionalProperties": INTEGER},
            "receipts_total": INTEGER,
            "receipts": array(
                _object(
                    {
                        "source": {"type": "string", "enum": ["history"]},
                        "outcome": {"type": "string", "enum": ["addressed"]},
                        "actor": STRING,
                        "association": STRING,
                        "pr": INTEGER,
                        "comment": INTEGER,
                        "path": STRING,
                        "commit": STRING,
                        "merged_by": _nullable("string"),
                        "at": {"type": "string", "format": "date-time"},
                        "url": STRING,
                    }
                )
            ),
            "lessons": array(ref("HistoryLesson")),
            "suppression_candidates": array(ref("SuppressionCandidate")),
            "publications": array(ref("HistoryPublication")),
        }
    ),
    "HistoryLesson": _object(
        {
            "id": INTEGER,
            "state": {"type": "string", "enum": ["active", "candidate"]},
            "title": STRING,
            "text": STRING,
            "prs": array(INTEGER),
            "seat": STRING,
            "comments": array(
                _object(
                    {
                        "id": INTEGER,
                        "pr": INTEGER,
                        "author": STRING,
                        "association": STRING,
                        "path": STRING,
                        "commit": _nullable("string"),
                        "quote": STRING,
                        "url": STRING,
                    }
                )
            ),
        }
    ),
    "SuppressionCandidate": _object(
        {
            "id": INTEGER,
            "state": {"type": "string", "enum": ["candidate", "confirmed", "rejected"]},
            "bot": STRING,
            "pr": INTEGER,
            "path": STRING,
            "line": _nullable("integer"),
            "suggestion": STRING,
            "url": STRING,
            "maintainer": STRING,
            "association": STRING,
            "reason": STRING,
            "quote": STRING,
            "evidence": {"type": "string", "enum": ["at-once", "lines-kept"]},
            "reply_url": STRING,
            "decided_by": _nullable("string"),
            "decided_at": TIME,
            "suppression": _nullable("string"),
        }
    ),
    "HistoryPublication": _object(
        {
            "id": INTEGER,
            "generation": INTEGER,
            "facts": INTEGER,
            "lessons_active": INTEGER,
            "lessons_candidate": INTEGER,
            "suppression_candidates": INTEGER,
            "seat": _nullable("string"),
            "proposals": INTEGER,
            "rejected": {"type": "object", "additionalProperties": INTEGER},
            "seat_failure": _nullable("string"),
            "at": {"type": "string", "format": "date-time"},
        }
    ),
    "MemorySwitch": _object(
        {
            "repository": STRING,
            "enabled": {"type": "boolean"},
            "changed_at": _nullable("string"),
            "changed_by": _nullable("string"),
        }
    ),
    "MemorySwitchUpdate": _object({"enabled": {"type": "boolean"}}),
    "Memory": _object(
        {
            "repository": STRING,
            "enabled": {"type": "boolean"},
            "changed_at": _nullable("string"),
            "changed_by": _nullable("string"),
            "items": {"type": "object", "additionalProperties": INTEGER},
            "hits": INTEGER,
            "summary": {"oneOf": [ref("MemorySummary"), {"type": "null"}]},
        }
    ),
    "MemoryCleared": _object(
        {
            "repository": STRING,
            "deleted": _object(
                {
                    "memory_items": INTEGER,
                    "memory_hits": INTEGER,
                    "summaries": INTEGER,
                    "memory_files": INTEGER,
                }
            ),
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
            "entries": array(_object({"id": STRING, "revision": INTEGER})),
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
                    "failures": array(
                        _object({"seat": STRING, "reason": STRING, "count": INTEGER})
                    ),
                }
            ),
            "decisions_by_rule": array(
                _object({"rule": STRING, "decision": STRING, "source": STRING, "count": INTEGER})
            ),
            "decisions_by_signal": array(
                _object(
                    {
                        "signal": STRING,
                        "accepted": INTEGER,
                        "dismissed": INTEGER,
                        "bound": INTEGER,
                        "claimed": INTEGER,
                        "argued": INTEGER,
                        "deferred": INTEGER,
                        "dropped": INTEGER,
                    }
                )
            ),
            "bound_by_evidence": array(
                _object(
                    {
                        "suggestion": STRING,
                        "path": STRING,
                        "decision": STRING,
                        "signal": STRING,
                        "rule": STRING,
                        "evidence": {
                            "type": "string",
                            "enum": ["lines-changed", "replacement-landed", "lines-kept"],
                        },
                        "commit": _nullable("string"),
                        "at_ms": INTEGER,
                    }
                )
            ),
            "memory": {"type": "object", "additionalProperties": INTEGER},
            "proofs": {"type": "object", "additionalProperties": INTEGER},
            "suggestions": ref("Counts"),
            "by_seat_and_lens": array(ref("SeatLensCounts")),
            "acceptance": _object(
                {"with_lessons": ref("Counts"), "without_lessons": ref("Counts")}
            ),
            "entries": _object(
                {"active": INTEGER, "candidate": INTEGER, "demoted": INTEGER, "expired": INTEGER}
            ),
            "hits": INTEGER,
            "suppressed": INTEGER,
            "resolved": INTEGER,
            "lessons": array(ref("BrainLesson")),
            "handed": array(ref("ReviewHanded")),
        },
        optional=("lessons", "handed"),
    ),
    "Ledger": _object(
        {"repositories": array(ref("LedgerRepository")), "brain": {"type": "boolean"}}
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
