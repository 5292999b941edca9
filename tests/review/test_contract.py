"""The hindsight.call/1 contract: the request built, the result parsed leniently or refused."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from review.contract import (
    SCHEMA,
    CallFailed,
    FailureReason,
    HypothesisStatus,
    LessonRef,
    Proof,
    PullRequestInfo,
    ToolStatus,
    build_request,
    parse_result,
)
from review.lenses import Lens
from review.shards import PullFile, cut_shards

GOOD: dict[str, Any] = {
    "findings": [
        {
            "path": "src/app.py",
            "line": 12,
            "title": "Unchecked parse_config result",
            "body": "It can be None.",
            "suggestion": "cfg = parse_config(raw) or DEFAULTS",
            "lesson": "Check the result of `parse_config` in src/app.py before using it.",
            "proof": {"test": "pytest -q tests/test_app.py", "fix": "--- a\n+++ b\n"},
            "confidence": 0.9,
        }
    ],
    "tool_receipts": [
        {"id": "t1", "command": "pytest", "status": "failed"},
        {"id": "t2", "command": "PYTHONPATH=src pytest", "status": "passed", "corrects": "t1"},
    ],
    "hypotheses": [
        {
            "id": "h1",
            "text": "src is not on sys.path",
            "status": "confirmed",
            "evidence": ["t1", "t2"],
        }
    ],
    "facts": [{"kind": "decision", "text": "The config loader stays synchronous."}],
    "verdict": "request changes",
}


def test_build_request_has_the_documented_shape() -> None:
    shard = cut_shards([PullFile("src/app.py", "modified", "@@ -1 +1 @@\n+x\n")], 100)[0]
    request = build_request(
        review_id="r1",
        call_id="r1/alpha/correctness/0",
        repository="octo/repo",
        pull=PullRequestInfo(7, "T", "B", "h" * 40, "b" * 40),
        seat_name="alpha",
        seat_lab="acme",
        lens=Lens("correctness", "Find bugs."),
        shard=shard,
        header="HEADER",
        prompt="HEADER + rest",
        lessons=[LessonRef("e1", "lesson/x-0123456789", "Check it.")],
        memory="M",
        cross_session="C",
    )
    assert request["schema"] == SCHEMA == "hindsight.call/1"
    assert request["pull_request"] == {
        "number": 7,
        "title": "T",
        "body": "B",
        "head_sha": "h" * 40,
        "base_sha": "b" * 40,
    }
    assert request["seat"] == {"name": "alpha", "lab": "acme"}
    assert request["lens"] == {"name": "correctness", "instructions": "Find bugs."}
    assert request["shard"]["index"] == 0 and request["shard"]["count"] == 1
    assert request["shard"]["files"][0]["path"] == "src/app.py"
    assert request["lessons"] == [{"id": "e1", "key": "lesson/x-0123456789", "text": "Check it."}]
    assert (request["header"], request["prompt"], request["memory"], request["cross_session"]) == (
        "HEADER",
        "HEADER + rest",
        "M",
        "C",
    )
    assert json.loads(json.dumps(request)) == request


def test_good_result_parses_and_unknown_fields_are_ignored() -> None:
    result = parse_result(json.dumps(GOOD))
    (finding,) = result.findings
    assert finding.line == 12
    assert finding.proof == Proof(test="pytest -q tests/test_app.py", fix="--- a\n+++ b\n")
    assert [r.status for r in result.tool_receipts] == [ToolStatus.FAILED, ToolStatus.PASSED]
    assert result.tool_receipts[1].corrects == "t1"
    assert result.hypotheses[0].status is HypothesisStatus.CONFIRMED
    assert result.hypotheses[0].evidence == ("t1", "t2")
    assert result.facts[0].kind == "decision"
    assert result.dropped == ()


def test_finding_missing_a_required_field_is_dropped_with_a_logged_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    findings: list[object] = []
    for missing in ("path", "line", "title", "body"):
        finding = dict(GOOD["findings"][0])
        del finding[missing]
        findings.append(finding)
    findings.append(GOOD["findings"][0])
    findings.append({"path": "a.py", "line": 0, "title": "t", "body": "b"})
    findings.append("not an object")
    with caplog.at_level(logging.WARNING, logger="review.contract"):
        result = parse_result(json.dumps({"findings": findings}))
    assert len(result.findings) == 1
    reasons = [(d.section, d.index, d.reason) for d in result.dropped]
    assert reasons == [
        ("findings", 0, "missing 'path'"),
        ("findings", 1, "missing 'line'"),
        ("findings", 2, "missing 'title'"),
        ("findings", 3, "missing 'body'"),
        ("findings", 5, "'line' must be a positive integer"),
        ("findings", 6, "must be an object, got str"),
    ]
    logged = [r for r in caplog.records if r.getMessage() == "result item dropped"]
    assert [getattr(r, "reason", None) for r in logged] == [reason for _, _, reason in reasons]


def test_bad_receipts_and_hypotheses_are_dropped_not_fatal() -> None:
    result = parse_result(
        json.dumps(
            {
                "tool_receipts": [
                    {"id": "t1", "command": "make", "status": "exploded"},
                    {"id": "t2", "command": "make", "status": "TIMEOUT"},
                ],
                "hypotheses": [{"id": "h1", "text": "x", "status": "maybe"}],
                "facts": [{"text": "no kind"}],
            }
        )
    )
    assert [r.status for r in result.tool_receipts] == [ToolStatus.TIMEOUT]
    assert result.hypotheses == () and result.facts == ()
    assert [d.section for d in result.dropped] == ["tool_receipts", "hypotheses", "facts"]


def test_empty_object_is_an_empty_result() -> None:
    result = parse_result("{}")
    assert result.findings == () and result.tool_receipts == () and result.dropped == ()


@pytest.mark.parametrize(
    ("text", "reason", "words"),
    [
        ("not json at all", FailureReason.INVALID_JSON, "not valid JSON"),
        ('{"findings": [', FailureReason.INVALID_JSON, "not valid JSON"),
        ("[1, 2]", FailureReason.BAD_SHAPE, "must be a JSON object, got list"),
        ('{"findings": {"path": "a"}}', FailureReason.BAD_SHAPE, "'findings' must be a list"),
        ('{"facts": "none"}', FailureReason.BAD_SHAPE, "'facts' must be a list"),
    ],
)
def test_garbage_fails_the_call(text: str, reason: FailureReason, words: str) -> None:
    with pytest.raises(CallFailed) as info:
        parse_result(text)
    assert info.value.reason is reason
    assert words in str(info.value)
