"""The review run on its own: bounded calls, failures recorded, findings deduped, review worded."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from continual.entry_keys import entry_key
from continual.markers import parse_review_marker, parse_suggestion_marker
from continual.tables import CallStatus
from review import orchestrate
from review.compose import (
    MAX_BODY_CHARS,
    OUTSIDE_HEADER,
    Draft,
    commentable_lines,
    compose,
    fold_comments,
    suggestion_block,
)
from review.config import ReviewSettings, SeatConfig, SeatKind
from review.contract import CallFailed, CallResult, FailureReason, Finding, PullRequestInfo
from review.lenses import Lens
from review.orchestrate import run_review
from review.runs import PostedFinding, ReviewJob
from review.shards import PullFile

PULL = PullRequestInfo(7, "Change", "", "a" * 40, "b" * 40)
CORRECTNESS = Lens("correctness", "Find bugs.")
SECURITY = Lens("security", "Find holes.")


@dataclass
class FakeSeat:
    """An in-process seat: answers ``result`` (or raises / sleeps) and records what it saw."""

    config: SeatConfig
    result: CallResult = field(default_factory=CallResult)
    fail: CallFailed | Exception | None = None
    sleep_s: float = 0.0
    seen: list[dict[str, Any]] = field(default_factory=list)
    running: int = 0
    peak: int = 0

    async def call(self, request: dict[str, Any], *, timeout_s: float) -> CallResult:
        self.seen.append(request)
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(self.sleep_s)
            if self.fail is not None:
                raise self.fail
            return self.result
        finally:
            self.running -= 1


def seat(name: str, **kwargs: Any) -> FakeSeat:
    timeout = kwargs.pop("timeout_s", 10.0)
    config = SeatConfig(name, f"{name}-lab", SeatKind.COMMAND, ("true",), timeout_s=timeout)
    return FakeSeat(config, **kwargs)


def files(count: int) -> tuple[PullFile, ...]:
    patch = "@@ -0,0 +1,3 @@\n+a = 1\n+b = 2\n+c = 3"
    return tuple(PullFile(f"src/f{i}.py", "added", patch) for i in range(count))


def job(count: int = 1) -> ReviewJob:
    return ReviewJob("r_test", "octo/app", PULL, files(count))


def finding(path: str = "src/f0.py", line: int = 2, title: str = "Bad thing") -> Finding:
    return Finding(path=path, line=line, title=title, body="Explained.")


def run(review_job: ReviewJob, seats: list[FakeSeat], lenses: list[Lens], **settings: int) -> Any:
    return asyncio.run(
        run_review(review_job, seats=seats, lenses=lenses, settings=ReviewSettings(**settings))
    )


def test_every_call_runs_and_shares_one_header_prefix() -> None:
    alpha, beta = seat("alpha", sleep_s=0.02), seat("beta", sleep_s=0.02)
    result = run(job(6), [alpha, beta], [CORRECTNESS, SECURITY], shard_chars=40, parallel_calls=3)
    assert result.shards == 6 and len(result.calls) == 24
    prompts = [r["prompt"] for r in alpha.seen + beta.seen]
    assert all(p.startswith(result.header) for p in prompts)
    assert {r["header"] for r in alpha.seen + beta.seen} == {result.header}


def test_peak_concurrency_never_exceeds_the_gate() -> None:
    only = seat("alpha", sleep_s=0.02)
    run(job(8), [only], [CORRECTNESS], shard_chars=40, parallel_calls=3)
    assert only.peak == 3


def test_failures_are_recorded_and_the_others_go_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(orchestrate, "CALL_GRACE_S", 0.05)
    good = seat("good", result=CallResult(findings=(finding(),)))
    broken = seat("broken", fail=CallFailed(FailureReason.EXIT, "exit 3"))
    raising = seat("raising", fail=RuntimeError("surprise"))
    deaf = seat("deaf", sleep_s=30, timeout_s=0.05)  # ignores its own timeout
    result = run(job(), [good, broken, raising, deaf], [CORRECTNESS])
    reasons = {c.seat: (c.status, c.reason) for c in result.calls}
    assert reasons == {
        "good": (CallStatus.OK, None),
        "broken": (CallStatus.FAILED, "exit"),
        "raising": (CallStatus.FAILED, "error"),
        "deaf": (CallStatus.FAILED, "timeout"),
    }
    assert [f.seat for f in result.findings] == ["good"]


def test_max_calls_skips_the_rest_and_counts_them() -> None:
    only = seat("alpha")
    result = run(job(3), [only], [CORRECTNESS, SECURITY], shard_chars=40, max_calls=4)
    assert len(only.seen) == 4
    assert [c.status for c in result.calls].count(CallStatus.SKIPPED) == 2


def test_findings_on_one_mechanism_and_line_are_posted_once_with_agreement() -> None:
    same = CallResult(findings=(finding(), finding(line=3), finding(title="Other")))
    alpha, beta = seat("alpha", result=same), seat("beta", result=same)
    result = run(job(), [alpha, beta], [CORRECTNESS, SECURITY])
    keyed = {(f.key, f.finding.line): f for f in result.findings}
    # 3 findings × 2 lenses (the lens is part of the mechanism), each agreed by beta.
    assert len(keyed) == 6
    assert all(f.seat == "alpha" for f in result.findings)
    assert all([a.seat for a in f.agreements] == ["beta"] for f in result.findings)
    assert (entry_key("security", "Bad thing"), 2) in keyed


def test_a_seat_repeating_itself_is_not_agreement() -> None:
    twice = CallResult(findings=(finding(), finding()))
    result = run(job(), [seat("alpha", result=twice)], [CORRECTNESS])
    (only,) = result.findings
    assert only.agreements == ()


def posted(line: int, suggestion: str | None = None) -> PostedFinding:
    item = Finding("src/f0.py", line, "Bad thing", "Explained.", suggestion=suggestion)
    return PostedFinding(
        item, "alpha", "acme", "correctness", "c", entry_key("correctness", "Bad thing")
    )


def test_compose_puts_off_diff_findings_in_the_body_and_code_in_suggestion_blocks() -> None:
    draft = compose(
        review_id="r_1",
        commit_id="a" * 40,
        findings=[("s_in", posted(2, "b = 20")), ("s_out", posted(40))],
        files=files(1),
        calls=[],
        seats=["alpha"],
        lenses=["correctness"],
    )
    (comment,) = draft.comments
    assert (comment.path, comment.line, comment.suggestion_id) == ("src/f0.py", 2, "s_in")
    assert "```suggestion\nb = 20\n```" in comment.body
    marker = parse_suggestion_marker(comment.body)
    assert marker is not None and marker.suggestion_id == "s_in"
    assert OUTSIDE_HEADER in draft.body and "`src/f0.py` line 40" in draft.body
    assert parse_review_marker(draft.body) == "r_1"
    assert Draft.from_json(draft.to_json()) == draft
    folded = fold_comments(draft)
    assert folded.comments == () and "`src/f0.py` line 2" in folded.body
    assert parse_review_marker(folded.body) == "r_1"


def test_the_body_stays_within_githubs_limit() -> None:
    many = [(f"s_{i}", posted(1000 + i)) for i in range(2000)]
    draft = compose(
        review_id="r_1",
        commit_id="a" * 40,
        findings=many,
        files=files(1),
        calls=[],
        seats=["alpha"],
        lenses=["correctness"],
    )
    assert len(draft.body) <= MAX_BODY_CHARS
    assert "more findings omitted" in draft.body and parse_review_marker(draft.body) == "r_1"


def test_suggestion_fence_outgrows_backticks_in_the_code() -> None:
    block = suggestion_block("text = '```'")
    assert block.startswith("````suggestion\n") and block.endswith("\n````")


def test_commentable_lines_are_added_and_context_lines_of_the_new_file() -> None:
    patch = "@@ -1,3 +1,3 @@\n keep\n-old\n+new\n keep2"
    assert commentable_lines([PullFile("a.py", "modified", patch)]) == {
        "a.py": frozenset({1, 2, 3})
    }


def test_the_body_counts_findings_withheld_because_they_were_dismissed_here() -> None:
    arguments: dict[str, Any] = {
        "review_id": "r_1",
        "commit_id": "a" * 40,
        "findings": [("s_in", posted(2, "b = 20"))],
        "files": files(1),
        "calls": [],
        "seats": ["alpha"],
        "lenses": ["correctness"],
    }
    assert "not posted" not in compose(**arguments).body
    body = compose(**arguments, withheld=2).body
    assert "2 more findings not posted: maintainers dismissed their mechanism here before" in body
    assert parse_review_marker(body) == "r_1"
