"""The `hindsight.maint/1` contract: a maintenance seat decides the lessons the rules cannot settle."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from continual.maintenance import Action, AnchoredEntry, Ruling, admitted
from review.batching import batched
from review.contract import CallFailed, FailureReason
from review.seats import TextSeat, extract_json_text

SCHEMA = "hindsight.maint/1"
MAX_BATCH_BYTES = 48_000
MAX_EXCERPT_CHARS = 6_000
MAX_ASK_S = 120.0
ACTIONS = tuple(action.value for action in Action)

SYSTEM_PROMPT = (
    "You keep a code-review bot's lessons true to the code they are about. Follow the output "
    "contract in the user message and answer with exactly one JSON object."
)

PROMPT = """\
Each lesson below was learned from a maintainer's decision and names code in this repository.
A push to the default branch (commit {commit}) changed the code it names. For EACH lesson id,
decide from the current excerpts:
- "keep": the advice still fits the code as it is now;
- "adapt": the advice still holds but must be reworded to fit (give the new "text": one or two
  imperative sentences naming a file or identifier from the excerpts);
- "retire": the code it is about is gone or the advice no longer applies;
- "defer": the excerpts do not let you tell.
Decide every id exactly once; never answer for an id that is not listed.

{lessons}

Answer with exactly one JSON object and nothing else (schema {schema} answer):
{{"decisions": [{{"id": "<lesson id>", "action": "keep|adapt|retire|defer",
  "reason": "<why, one sentence>", "text": "<new lesson text, for adapt only>"}}]}}
"""

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Case:
    """One lesson put to the seat: the lesson at its frozen revision, what the rules would do, and
    the current excerpts of its files (path → text at the head)."""

    lesson: AnchoredEntry
    rule: Ruling
    excerpts: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class SeatRun:
    """The seat's verdicts, or (any batch failed) none and why: nothing of it publishes."""

    verdicts: tuple[Ruling, ...]
    failure: str | None = None
    batches: int = 0


def _clip(text: str) -> str:
    return text if len(text) <= MAX_EXCERPT_CHARS else text[:MAX_EXCERPT_CHARS] + "\n[…]"


def _item(case: Case) -> dict[str, Any]:
    lesson = case.lesson
    return {
        "id": lesson.entry_id,
        "revision": lesson.revision,
        "lens": lesson.lens,
        "title": lesson.title,
        "text": lesson.text,
        "anchors": json.loads(lesson.anchors.to_json()) if lesson.anchors else None,
        "rule": {"action": case.rule.action.value, "reason": case.rule.reason},
        "excerpts": [{"path": path, "text": _clip(text)} for path, text in case.excerpts],
    }


def build_request(cases: Sequence[Case], *, commit: str, seat: str) -> dict[str, Any]:
    """One batch's JSON-ready request; ``prompt`` carries the same for model seats."""
    items = [_item(case) for case in cases]
    rendered = "\n\n".join(
        f"Lesson {item['id']} (revision {item['revision']}, {item['lens']}): {item['title']}\n"
        f"{item['text']}\nRules say: {item['rule']['action']} ({item['rule']['reason']})\n"
        + "\n".join(f"--- {e['path']} at {commit}\n{e['text']}" for e in item["excerpts"])
        for item in items
    )
    return {
        "schema": SCHEMA,
        "seat": seat,
        "commit": commit,
        "lessons": items,
        "prompt": PROMPT.format(commit=commit, lessons=rendered, schema=SCHEMA),
    }


def batches(cases: Sequence[Case], *, max_bytes: int = MAX_BATCH_BYTES) -> list[list[Case]]:
    """Complete cases in order, each batch's serialised lessons within ``max_bytes`` (a case
    larger than that goes alone)."""
    return batched(cases, _item, max_bytes)


def _bad(what: str) -> CallFailed:
    return CallFailed(FailureReason.BAD_SHAPE, f"the maintenance answer {what}")


def _decision(item: Any) -> tuple[str, Action, str, str | None]:
    if not isinstance(item, dict):
        raise _bad("lists a decision that is not a JSON object")
    entry_id, action = item.get("id"), item.get("action")
    reason, text = item.get("reason", ""), item.get("text")
    if not isinstance(entry_id, str) or not entry_id:
        raise _bad('has a decision without a string "id"')
    if action not in ACTIONS:
        raise _bad(f'needs "action" of {entry_id} to be one of {", ".join(ACTIONS)}')
    if not isinstance(reason, str):
        raise _bad(f'needs "reason" of {entry_id} to be a string')
    if action == Action.ADAPT.value and (not isinstance(text, str) or not text.strip()):
        raise _bad(f'adapts {entry_id} without a new "text"')
    return entry_id, Action(action), reason, text if isinstance(text, str) else None


def parse_answer(text: str, supplied: Iterable[str]) -> dict[str, tuple[Action, str, str | None]]:
    """Exactly one decision per supplied id: a missing, repeated or foreign id fails the batch."""
    try:
        data = json.loads(extract_json_text(text))
    except json.JSONDecodeError as exc:
        raise CallFailed(
            FailureReason.INVALID_JSON, f"the answer is not valid JSON ({exc})"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("decisions"), list):
        raise _bad('must be a JSON object with a "decisions" list')
    expected = set(supplied)
    found: dict[str, tuple[Action, str, str | None]] = {}
    for item in data["decisions"]:
        entry_id, action, reason, new_text = _decision(item)
        if entry_id not in expected:
            raise _bad(f"decides {entry_id}, which it was not given")
        if entry_id in found:
            raise _bad(f"decides {entry_id} twice")
        found[entry_id] = (action, reason, new_text)
    missing = sorted(expected - set(found))
    if missing:
        raise _bad(f"leaves {len(missing)} lesson(s) undecided: {', '.join(missing[:5])}")
    return found


def _verdict(case: Case, action: Action, reason: str, text: str | None, seat: str) -> Ruling:
    lesson, rule = case.lesson, case.rule
    base = Ruling(
        lesson.entry_id,
        lesson.revision,
        action,
        reason or rule.reason,
        rule.commit,
        actor=f"seat:{seat}",
    )
    if action is not Action.ADAPT:
        return base
    anchors = rule.anchors or lesson.anchors
    if anchors is None:
        return replace(base, action=Action.DEFER, reason="no anchors to admit the text against")
    return admitted(replace(base, title=rule.title or lesson.title, text=text, anchors=anchors))


async def ask_seat(seat: TextSeat, cases: Sequence[Case], *, commit: str) -> SeatRun:
    """Every case in byte-bounded batches; all verdicts, or none if any batch failed."""
    name = seat.config.name
    verdicts: list[Ruling] = []
    parts = batches(cases)
    timeout_s = min(seat.config.timeout_s, MAX_ASK_S)
    for number, batch in enumerate(parts, start=1):
        request = build_request(batch, commit=commit, seat=name)
        try:
            answer = await seat.exchange(request, timeout_s=timeout_s, system=SYSTEM_PROMPT)
            decided = parse_answer(answer.text, (case.lesson.entry_id for case in batch))
        except CallFailed as exc:
            log.info("maintenance seat failed", extra={"seat": name, "batch": number})
            return SeatRun((), f"batch {number} of {len(parts)}: {exc.message}", number)
        for case in batch:
            action, reason, text = decided[case.lesson.entry_id]
            verdicts.append(_verdict(case, action, reason, text, name))
    return SeatRun(tuple(verdicts), None, len(parts))
