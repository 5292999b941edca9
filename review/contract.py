"""The ``hindsight.call/1`` contract: the request a seat is handed and the result it answers."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from continual.secrets import find_secret, redact, redact_optional
from review.lenses import Lens
from review.shards import Shard

SCHEMA = "hindsight.call/1"
RESULT_SECTIONS = ("findings", "tool_receipts", "hypotheses", "facts")

log = logging.getLogger(__name__)

T = TypeVar("T")


class FailureReason(StrEnum):
    """Why a call produced no result."""

    EXIT = "exit"
    TIMEOUT = "timeout"
    INVALID_JSON = "invalid-json"
    BAD_SHAPE = "bad-shape"
    HTTP_STATUS = "http-status"
    TRANSPORT = "transport"
    CONFIGURATION = "configuration"
    START = "start"
    OUTPUT_TOO_LARGE = "output-too-large"  # a command seat wrote more than its max_output_bytes


class CallFailed(Exception):
    """A call failed as a whole: the review records it and goes on."""

    def __init__(self, reason: FailureReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class ToolStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"


class HypothesisStatus(StrEnum):
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    OPEN = "open"


@dataclass(frozen=True)
class PullRequestInfo:
    """The pull request a review runs over."""

    number: int
    title: str
    body: str
    head_sha: str
    base_sha: str


@dataclass(frozen=True)
class LessonRef:
    """A lesson handed to the review: its entry id, key and imperative text."""

    id: str
    key: str
    text: str


@dataclass(frozen=True)
class Proof:
    """A test command that fails before the fix and passes after it."""

    test: str
    fix: str | None = None


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    title: str
    body: str
    suggestion: str | None = None
    lesson: str | None = None
    proof: Proof | None = None


@dataclass(frozen=True)
class ToolReceipt:
    id: str
    command: str
    status: ToolStatus
    corrects: str | None = None


@dataclass(frozen=True)
class Hypothesis:
    id: str
    text: str
    status: HypothesisStatus
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fact:
    kind: str
    text: str


@dataclass(frozen=True)
class Dropped:
    """An item of a result that was left out, and why."""

    section: str
    index: int
    reason: str


@dataclass(frozen=True)
class SeatAnswer:
    """A seat's answer before any contract reads it: the text, and a note for error messages
    (for example that the provider cut the answer at its length limit)."""

    text: str
    note: str = ""


@dataclass(frozen=True)
class CallResult:
    findings: tuple[Finding, ...] = ()
    tool_receipts: tuple[ToolReceipt, ...] = ()
    hypotheses: tuple[Hypothesis, ...] = ()
    facts: tuple[Fact, ...] = ()
    dropped: tuple[Dropped, ...] = ()


def build_request(
    *,
    review_id: str,
    call_id: str,
    repository: str,
    pull: PullRequestInfo,
    seat_name: str,
    seat_lab: str,
    lens: Lens,
    shard: Shard,
    header: str,
    prompt: str,
    lessons: Sequence[LessonRef],
    memory: str,
    cross_session: str,
) -> dict[str, Any]:
    """The JSON-ready request object of one call."""
    return {
        "schema": SCHEMA,
        "review": review_id,
        "call": call_id,
        "repository": repository,
        "pull_request": {
            "number": pull.number,
            "title": pull.title,
            "body": pull.body,
            "head_sha": pull.head_sha,
            "base_sha": pull.base_sha,
        },
        "seat": {"name": seat_name, "lab": seat_lab},
        "lens": {"name": lens.name, "instructions": lens.instructions},
        "shard": {
            "index": shard.index,
            "count": shard.count,
            "files": [
                {
                    "path": item.path,
                    "status": item.status,
                    "patch": item.patch,
                    "part": item.part,
                    "parts": item.parts,
                }
                for item in shard.files
            ],
        },
        "header": header,
        "prompt": prompt,
        "lessons": [{"id": item.id, "key": item.key, "text": item.text} for item in lessons],
        "memory": memory,
        "cross_session": cross_session,
    }


def parse_result(text: str | bytes) -> CallResult:
    """Parse a seat's answer; invalid JSON or a wrong overall shape raises ``CallFailed``."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CallFailed(
            FailureReason.INVALID_JSON, f"the result is not valid JSON ({exc})"
        ) from None
    return parse_result_object(data)


def parse_result_object(data: Any) -> CallResult:
    """Validate a decoded result leniently: unknown fields are ignored, bad items dropped."""
    if not isinstance(data, Mapping):
        raise CallFailed(
            FailureReason.BAD_SHAPE,
            f"the result must be a JSON object, got {type(data).__name__}",
        )
    sections: dict[str, list[Any]] = {}
    for name in RESULT_SECTIONS:
        value = data.get(name, [])
        if value is None:
            value = []
        if not isinstance(value, list):
            raise CallFailed(
                FailureReason.BAD_SHAPE,
                f"the result's {name!r} must be a list, got {type(value).__name__}",
            )
        sections[name] = value

    dropped: list[Dropped] = []
    findings = _collect("findings", sections["findings"], _finding, dropped)
    receipts = _collect("tool_receipts", sections["tool_receipts"], _receipt, dropped)
    hypotheses = _collect("hypotheses", sections["hypotheses"], _hypothesis, dropped)
    facts = _collect("facts", sections["facts"], _fact, dropped)
    for item in dropped:
        log.warning(
            "result item dropped",
            extra={"section": item.section, "index": item.index, "reason": item.reason},
        )
    return CallResult(
        findings=tuple(findings),
        tool_receipts=tuple(receipts),
        hypotheses=tuple(hypotheses),
        facts=tuple(facts),
        dropped=tuple(dropped),
    )


class _Invalid(Exception):
    """One item of a result section is unusable; the message says why."""


def _collect(
    section: str,
    items: list[Any],
    parse: Callable[[Mapping[str, Any]], T],
    dropped: list[Dropped],
) -> list[T]:
    out: list[T] = []
    for index, item in enumerate(items):
        try:
            if not isinstance(item, Mapping):
                raise _Invalid(f"must be an object, got {type(item).__name__}")
            out.append(parse(item))
        except _Invalid as exc:
            dropped.append(Dropped(section=section, index=index, reason=str(exc)))
    return out


def _required_text(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    if value is None:
        raise _Invalid(f"missing {key!r}")
    if not isinstance(value, str) or not value.strip():
        raise _Invalid(f"{key!r} must be a non-empty string")
    return value


def _optional_text(item: Mapping[str, Any], key: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Invalid(f"{key!r} must be a string")
    return value if value.strip() else None


def _finding(item: Mapping[str, Any]) -> Finding:
    path = _required_text(item, "path")
    line = item.get("line")
    if line is None:
        raise _Invalid("missing 'line'")
    if isinstance(line, str) and line.strip().isdigit():
        line = int(line)
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        raise _Invalid("'line' must be a positive integer")
    title = _required_text(item, "title")
    body = _required_text(item, "body")
    proof = None
    raw_proof = item.get("proof")
    if raw_proof is not None:
        if not isinstance(raw_proof, Mapping):
            raise _Invalid("'proof' must be an object")
        proof = Proof(test=_required_text(raw_proof, "test"), fix=_optional_text(raw_proof, "fix"))
    return redacted_finding(
        Finding(
            path=path.strip(),
            line=line,
            title=title.strip(),
            body=body,
            suggestion=_optional_text(item, "suggestion"),
            lesson=_optional_text(item, "lesson"),
            proof=proof,
        )
    )


def redacted_finding(finding: Finding) -> Finding:
    """The finding with every secret in its words replaced by a typed placeholder, before its
    key is made, it is posted or stored: what is posted, stored and keyed is the same text.
    Suggested code holding a secret is dropped (a placeholder applied would break the code,
    and the posted block, the stored replacement and the applied-suggestion check must agree)."""
    suggestion = finding.suggestion
    if suggestion is not None and find_secret(suggestion) is not None:
        suggestion = None
    proof = finding.proof
    if proof is not None:
        # The patch is run as it is; it is shown and stored only when it holds no secret.
        proof = Proof(test=redact(proof.test), fix=proof.fix)
    return Finding(
        path=redact(finding.path),
        line=finding.line,
        title=redact(finding.title),
        body=redact(finding.body),
        suggestion=suggestion,
        lesson=redact_optional(finding.lesson),
        proof=proof,
    )


def _receipt(item: Mapping[str, Any]) -> ToolReceipt:
    receipt_id = _required_text(item, "id")
    command = _required_text(item, "command")
    status_text = _required_text(item, "status")
    try:
        status = ToolStatus(status_text.strip().lower())
    except ValueError:
        raise _Invalid(
            f"'status' must be passed, failed, error or timeout, not {status_text!r}"
        ) from None
    return ToolReceipt(
        id=receipt_id, command=command, status=status, corrects=_optional_text(item, "corrects")
    )


def _hypothesis(item: Mapping[str, Any]) -> Hypothesis:
    hypothesis_id = _required_text(item, "id")
    text = _required_text(item, "text")
    status_text = _required_text(item, "status")
    try:
        status = HypothesisStatus(status_text.strip().lower())
    except ValueError:
        raise _Invalid(
            f"'status' must be confirmed, refuted or open, not {status_text!r}"
        ) from None
    evidence = item.get("evidence", [])
    if evidence is None:
        evidence = []
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise _Invalid("'evidence' must be a list of ids")
    return Hypothesis(id=hypothesis_id, text=text, status=status, evidence=tuple(evidence))


def _fact(item: Mapping[str, Any]) -> Fact:
    return Fact(kind=_required_text(item, "kind").strip(), text=_required_text(item, "text"))
