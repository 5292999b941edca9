"""The `hindsight.judge/1` contract: the request a judge seat reads and the answer it gives."""

from __future__ import annotations

import json
from typing import Any

from continual.judge import JudgeAnswer, Question
from continual.values import Reason
from continual.writeback.threads import ThreadComment
from review.config import SeatConfig
from review.contract import CallFailed, FailureReason
from review.seats import TextSeat, extract_json_text

SCHEMA = "hindsight.judge/1"
DECISIONS = ("accepted", "dismissed", "none")
MAX_BODY_CHARS = 4_000
MAX_THREAD_COMMENTS = 30

SYSTEM_PROMPT = (
    "You read a maintainer's reply to an automated code-review suggestion and say what it "
    "decided. Follow the output contract in the user message and answer with exactly one JSON "
    "object."
)

PROMPT = """\
A code-review bot posted the suggestion below on a pull request. A maintainer of the repository
replied in its thread. Decide what THAT reply (id {reply_id}) says about the suggestion:
- "accepted": the maintainer took the suggestion (fixed, changed or will change it as suggested);
- "dismissed": the maintainer refused it; give the reason, one of: {reasons};
- "none": anything else (a question, discussion, thanks, unclear, or about something else).
Quote the words of reply {reply_id} that show the decision, copied exactly (a verbatim part of
that reply, not of another comment). If the reply does not clearly decide, answer "none".

Suggestion on {path}: {title}
{body}

The thread, oldest first:
{thread}

The reply to judge (id {reply_id}, by {reply_author}):
{reply_body}

Answer with exactly one JSON object and nothing else (schema {schema} answer):
{{"reply_id": {reply_id}, "decision": "accepted|dismissed|none", "reason": "<reason or empty>",
 "quote": "<exact words of the reply>"}}
"""


def _clip(text: str) -> str:
    return text if len(text) <= MAX_BODY_CHARS else text[:MAX_BODY_CHARS] + " […]"


def _line(comment: ThreadComment) -> dict[str, Any]:
    return {
        "id": comment.id,
        "author": comment.author.login,
        "association": comment.author.association,
        "body": _clip(comment.body),
    }


def build_judge_request(question: Question, *, seat: SeatConfig) -> dict[str, Any]:
    """The JSON-ready request about one reply; `prompt` carries the same for model seats."""
    suggestion, reply = question.suggestion, question.reply
    thread = [_line(comment) for comment in question.thread[-MAX_THREAD_COMMENTS:]]
    request: dict[str, Any] = {
        "schema": SCHEMA,
        "seat": {"name": seat.name, "lab": seat.lab},
        "pull_request": suggestion.pr,
        "suggestion": {
            "id": suggestion.id,
            "title": suggestion.title,
            "body": suggestion.body,
            "path": suggestion.path,
        },
        "thread": thread,
        "reply": {"id": reply.id, "author": reply.author.login, "body": reply.body},
        "reasons": [reason.value for reason in Reason],
    }
    request["prompt"] = PROMPT.format(
        reply_id=reply.id,
        reasons=", ".join(request["reasons"]),
        path=suggestion.path,
        title=suggestion.title,
        body=_clip(suggestion.body),
        thread="\n".join(
            f"- #{line['id']} {line['author']} ({line['association']}): {line['body']}"
            for line in thread
        ),
        reply_author=reply.author.login,
        reply_body=reply.body,
        schema=SCHEMA,
    )
    return request


def _bad(what: str) -> CallFailed:
    return CallFailed(FailureReason.BAD_SHAPE, f"the judge's answer {what}")


def parse_judge_answer(text: str) -> JudgeAnswer:
    """Read an answer; invalid JSON or a wrong shape raises `CallFailed`."""
    try:
        data = json.loads(extract_json_text(text))
    except json.JSONDecodeError as exc:
        raise CallFailed(
            FailureReason.INVALID_JSON, f"the answer is not valid JSON ({exc})"
        ) from None
    if not isinstance(data, dict):
        raise _bad(f"must be a JSON object, got {type(data).__name__}")
    decision = data.get("decision")
    if decision not in DECISIONS:
        raise _bad(f'needs "decision" to be one of {", ".join(DECISIONS)}, got {decision!r}')
    texts = {key: data.get(key, "") for key in ("reason", "quote")}
    for key, value in texts.items():
        if not isinstance(value, str):
            raise _bad(f'needs "{key}" to be a string, got {type(value).__name__}')
    reply_id = data.get("reply_id")
    if reply_id is not None and (not isinstance(reply_id, int) or isinstance(reply_id, bool)):
        raise _bad(f'needs "reply_id" to be the reply\'s number, got {reply_id!r}')
    return JudgeAnswer(decision, texts["reason"], texts["quote"], reply_id)


async def ask_judge(seat: TextSeat, question: Question, *, timeout_s: float) -> JudgeAnswer:
    """Ask `seat` about one reply; any failure raises `CallFailed` naming the seat."""
    request = build_judge_request(question, seat=seat.config)
    answer = await seat.exchange(request, timeout_s=timeout_s, system=SYSTEM_PROMPT)
    try:
        return parse_judge_answer(answer.text)
    except CallFailed as exc:
        raise CallFailed(
            exc.reason, f"judge seat {seat.config.name!r}: {exc.message}{answer.note}"
        ) from None
