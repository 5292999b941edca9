"""The JSON shapes of the `/v1` answers, built from the domain's plain values; the command line's
`--json` prints the same shapes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from continual.history.shown import HistoryView, ShownLesson
from continual.injections import HandedLesson, LessonHanded
from continual.ledger import BRAIN, INLINE, RepositoryLedger
from continual.maintenance import LessonChange
from continual.persons import Caller, Preference
from continual.proofs import ProofEvidence
from continual.recall import Lesson, SourceReceipt
from continual.summary import SUMMARY_MAX_CHARS
from continual.summary.store import StoredSummary
from continual.suppression import Suppression
from continual.surfaces import Handed, Target
from continual.surfaces.history import HISTORY_KIND
from ghapp.api.auth import iso


def receipt_json(receipt: SourceReceipt) -> dict[str, Any]:
    return {
        "decision": receipt.decision,
        "reason": receipt.reason,
        "source": receipt.source,
        "rule": receipt.rule,
        "span": receipt.span,
        "seat": receipt.seat,
        "lab": receipt.lab,
        "pr": receipt.pr,
        "suggestion": receipt.suggestion,
        "review": receipt.review,
        "set_sha256": receipt.set_sha256,
        "actor": receipt.actor,
        "at": iso(receipt.at_ms),
        "superseded": receipt.superseded,
        "proof": None if receipt.proof is None else proof_json(receipt.proof),
    }


def proof_json(proof: ProofEvidence) -> dict[str, Any]:
    return {
        "test": proof.test,
        "outcome": proof.outcome,
        "reason": proof.reason,
        "head_sha": proof.head_sha,
        "sandbox": proof.sandbox,
        "at": iso(proof.at_ms),
    }


def suppression_json(found: Suppression | None) -> dict[str, Any] | None:
    """Why a listed lesson is refused here: the dismissal that suppresses its mechanism."""
    if found is None:
        return None
    return {
        "reason": found.reason,
        "by": found.actor,
        "receipt_id": found.receipt_id,
        "path": None if found.repository_wide else found.path,
        "until": iso(found.until_ms) if found.until_ms is not None else None,
    }


def lesson_json(lesson: Lesson, suppressed: Suppression | None = None) -> dict[str, Any]:
    """One lesson, as `GET /v1/recall` and `hindsight recall --json` show it."""
    return {
        "id": lesson.id,
        "key": lesson.key,
        "repository": lesson.repository,
        "scope": lesson.scope.value,
        "lens": lesson.lens,
        "title": lesson.title,
        "text": lesson.text,
        "state": lesson.state.value,
        "revision": lesson.revision,
        "sources": [receipt_json(r) for r in lesson.sources],
        "confirmations": lesson.confirmations,
        "last_confirmed_at": iso(lesson.last_confirmed_ms),
        "expires_at": iso(lesson.expires_ms),
        "suppressed": suppression_json(suppressed),
    }


def change_json(change: LessonChange) -> dict[str, Any]:
    """What maintenance retired or adapted, or a person restored, as
    `GET /v1/recall?include=retired` and `hindsight recall --retired --json` show it."""
    return {
        "id": change.entry_id,
        "repository": change.repository,
        "key": change.key,
        "lens": change.lens,
        "title": change.title,
        "text": change.text,
        "action": change.action,
        "reason": change.reason,
        "commit": change.commit,
        "revision": change.revision,
        "before_text": change.before_text,
        "after_text": change.after_text,
        "actor": change.actor,
        "at": iso(change.at_ms),
        "retired": change.retired,
    }


# What `brain=true` shows of each lesson in the ledger (the API's BrainLesson).
BRAIN_LESSON_FIELDS = (
    "id",
    "key",
    "scope",
    "lens",
    "title",
    "text",
    "state",
    "revision",
    "confirmations",
)


def brain_lesson_json(lesson: Lesson) -> dict[str, Any]:
    whole = lesson_json(lesson)
    return {name: whole[name] for name in BRAIN_LESSON_FIELDS}


def _plain(value: Any) -> Any:
    """A ledger value as JSON: dataclass fields by name and in order, tuples as lists."""
    if isinstance(value, Lesson):
        return brain_lesson_json(value)
    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in fields(value):
            inner = getattr(value, f.name)
            if f.metadata.get(BRAIN) and inner is None:
                continue
            if f.metadata.get(INLINE):
                out.update(_plain(inner))
            else:
                out[f.name] = _plain(inner)
        return out
    if isinstance(value, tuple):
        return [_plain(x) for x in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def ledger_json(ledger: RepositoryLedger) -> dict[str, Any]:
    """One repository of the ledger, as `GET /v1/review-ledger` and `hindsight ledger --json` show it."""
    shaped: dict[str, Any] = _plain(ledger)
    return shaped


def handed_json(target: Target, handed: Handed) -> dict[str, Any]:
    return {"repository": target.repository, **handed.as_json()}


def active_json(target: Target, handed: Handed, lessons: dict[str, Lesson]) -> dict[str, Any]:
    """What the next session is handed: the lessons in recall order, with the text's receipt."""
    cards = []
    taught = {p.id: p for p in handed.provenance if p.kind == HISTORY_KIND}
    texts = {lesson.id: lesson for lesson in handed.lessons}
    for entry_id, revision in handed.entries:
        lesson = lessons.get(entry_id)
        if lesson is None:
            if entry_id in taught:
                cards.append(_history_card(target, texts[entry_id], revision, taught[entry_id]))
            continue
        cards.append(
            {
                "id": lesson.id,
                "key": lesson.key,
                "revision": revision,
                "repository": lesson.repository,
                "scope": lesson.scope.value,
                "lens": lesson.lens,
                "title": lesson.title,
                "text": lesson.text,
                "confirmations": lesson.confirmations,
            }
        )
    return {
        "repository": target.repository,
        "session": handed.session_id or None,
        "lessons": cards,
        "text": handed.text,
        "set_sha256": handed.set_sha256,
        "chars": handed.chars,
        "omitted": handed.omitted,
        "recorded": handed.recorded,
    }


def _history_card(
    target: Target, lesson: HandedLesson, revision: int, where: LessonHanded
) -> dict[str, Any]:
    """A history lesson among the active ones: its scope says where it was learned."""
    return {
        "id": lesson.id,
        "key": lesson.key,
        "revision": revision,
        "repository": target.repository,
        "scope": HISTORY_KIND,
        "lens": "",
        "title": "",
        "text": lesson.text,
        "confirmations": len(where.sessions),
    }


def preference_json(caller: Caller, card: Preference) -> dict[str, Any]:
    return {"person": caller.login, **card.as_json()}


def summary_json(summary: StoredSummary) -> dict[str, Any]:
    """A repository's memory summary: exactly the text handed, and what it was built from."""
    return {
        "repository": summary.repository,
        "id": summary.id,
        "revision": summary.revision,
        "text": summary.text,
        "chars": summary.chars,
        "max_chars": SUMMARY_MAX_CHARS,
        "lessons": summary.lessons,
        "memories": summary.memories,
        "omitted": summary.omitted,
        "fingerprint": summary.fingerprint,
        "built_at": iso(summary.built_ms),
        "cleared": summary.cleared_ms is not None,
        "cleared_at": iso(summary.cleared_ms),
        "cleared_by": summary.cleared_by,
    }


def history_json(view: HistoryView) -> dict[str, Any]:
    """A repository's history: where its back-fill stands, where each receipt came from, the
    lessons it published with the comments they rest on, the suppression candidates it seeded
    from other bots' refused suggestions, and its publication receipts."""
    found = view.progress
    run = found.run
    return {
        "repository": found.repository,
        "state": run.state.value,
        "generation": run.generation,
        "days": run.days,
        "max_prs": run.max_prs,
        "since": iso(run.since_ms),
        "prs_read": run.prs_read,
        "comments_kept": run.comments_kept,
        "addressed": run.addressed,
        "facts": run.facts,
        "requests": run.requests,
        "pauses": run.pauses,
        "paused_until": iso(run.paused_until_ms),
        "requested_at": iso(run.requested_ms),
        "started_at": iso(run.started_ms),
        "updated_at": iso(run.updated_ms),
        "finished_at": iso(run.finished_ms),
        "last_error": run.last_error,
        "outcomes": dict(sorted(found.outcomes.items())),
        "receipts_total": found.receipts_total,
        "receipts": [
            {
                "source": "history",
                "outcome": "addressed",
                "actor": receipt.author,
                "association": view.associations.get(receipt.comment_id, ""),
                "pr": receipt.pr,
                "comment": receipt.comment_id,
                "path": receipt.path,
                "commit": receipt.addressed_sha,
                "merged_by": receipt.merged_by,
                "at": receipt.created_at.isoformat(),
                "url": receipt.url,
            }
            for receipt in found.receipts
        ],
        "lessons": [_history_lesson_json(lesson) for lesson in view.lessons],
        "suppression_candidates": [
            _refusal_json(row, view.suppressing.get(row.id)) for row in view.refusals
        ],
        "publications": [_publication_json(row) for row in view.publications],
    }


def _history_lesson_json(lesson: ShownLesson) -> dict[str, Any]:
    return {
        "id": lesson.id,
        "state": lesson.state,
        "title": lesson.title,
        "text": lesson.text,
        "prs": list(lesson.prs),
        "seat": lesson.seat,
        "comments": [
            {
                "id": comment.id,
                "pr": comment.pr,
                "author": comment.author,
                "association": comment.association,
                "path": comment.path,
                "commit": comment.addressed_sha,
                "quote": lesson.quotes.get(str(comment.id), ""),
                "url": comment.url,
            }
            for comment in lesson.cited
        ],
    }


def _refusal_json(row: Any, entry: str | None) -> dict[str, Any]:
    return {
        "id": row.id,
        "state": row.state,
        "bot": row.bot,
        "pr": row.pr,
        "path": row.path,
        "line": row.line,
        "suggestion": row.body,
        "url": row.url,
        "maintainer": row.maintainer,
        "association": row.association,
        "reason": row.reason,
        "quote": row.quote,
        "evidence": row.evidence,
        "reply_url": row.reply_url,
        "decided_by": row.decided_by,
        "decided_at": iso(row.decided_ms),
        "suppression": entry,
    }


def _publication_json(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "generation": row.generation,
        "facts": row.facts,
        "lessons_active": row.lessons_active,
        "lessons_candidate": row.lessons_candidate,
        "suppression_candidates": row.refusals,
        "seat": row.seat,
        "proposals": row.proposals,
        "rejected": json.loads(row.rejected or "{}"),
        "seat_failure": row.seat_failure,
        "at": iso(row.at_ms),
    }
