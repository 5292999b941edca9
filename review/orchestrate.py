"""One review run: every seat × lens × shard call, bounded in parallel, sharing session memory."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from continual.entry_keys import entry_key
from continual.tables import CallStatus
from review.config import ProofPolicy, ReviewSettings
from review.contract import (
    CallFailed,
    CallResult,
    Finding,
    build_request,
)
from review.lenses import Lens
from review.memory import SessionMemory, cross_session_block
from review.prompt import render_call_prompt, render_header
from review.proof import ProofOutcome, ProofReport, proof_limits, run_proof
from review.runs import (
    Agreeing,
    CallOutcome,
    PlannedCall,
    PostedFinding,
    ReviewJob,
    ReviewRun,
)
from review.sandbox import Isolation, Limits, Sandbox, detect_sandbox, for_policy
from review.seats import Seat
from review.shards import Shard, cut_shards

CALL_GRACE_S = 5.0
MAX_PROOFS = 8
PROOF_TIMEOUT_S = 120.0
NO_CHECKOUT_REASON = "proof not run: no local clone of the repository to copy the head from"
MESSAGE_CHARS = 500
ERROR_REASON = "error"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Reported:
    finding: Finding
    seat: str
    lab: str
    lens: str
    call_id: str
    order: int


def plan_calls(
    seats: Sequence[Seat], lenses: Sequence[Lens], shards: Sequence[Shard]
) -> list[PlannedCall]:
    """Shard by shard, then seat, then lens: what one shard teaches reaches the next shards."""
    planned: list[PlannedCall] = []
    for shard in shards:
        for seat in seats:
            for lens in lenses:
                planned.append(PlannedCall(len(planned), seat, lens, shard))
    return planned


def guidance_sha256(lessons_text: str, memory_text: str, cross_text: str) -> str:
    """The receipt of everything a call was handed besides its shard: lessons and memory."""
    handed = "\n".join((lessons_text, memory_text, cross_text))
    return hashlib.sha256(handed.encode("utf-8")).hexdigest()


class _Runner:
    """Runs planned calls under a semaphore, each built when it starts so it sees prior results."""

    def __init__(self, job: ReviewJob, settings: ReviewSettings, header: str) -> None:
        self.job = job
        self.settings = settings
        self.header = header
        self.memory = SessionMemory(job.review_id, job.pull.head_sha)
        self.gate = asyncio.Semaphore(settings.parallel_calls)
        self.reported: list[_Reported] = []

    async def run(self, call: PlannedCall) -> CallOutcome:
        async with self.gate:
            return await self._call(call)

    async def _call(self, call: PlannedCall) -> CallOutcome:
        config = call.seat.config
        call_id = call.call_id(self.job.review_id)
        paths = call.shard.paths
        block = self.memory.block_for(
            paths, max_chars=self.settings.memory_chars, seat=config.name, lens=call.lens.name
        )
        cross = cross_session_block(
            self.job.recalled, self.settings.cross_session_chars, call_files=paths
        )
        prompt = render_call_prompt(self.header, call.lens, call.shard, block.text, cross.text)
        request = build_request(
            review_id=self.job.review_id,
            call_id=call_id,
            repository=self.job.repository,
            pull=self.job.pull,
            seat_name=config.name,
            seat_lab=config.lab,
            lens=call.lens,
            shard=call.shard,
            header=self.header,
            prompt=prompt,
            lessons=self.job.lessons,
            memory=block.text,
            cross_session=cross.text,
        )
        base = CallOutcome(
            call_id=call_id,
            seat=config.name,
            lab=config.lab,
            lens=call.lens.name,
            shard=call.shard.index,
            status=CallStatus.OK,
            set_sha256=guidance_sha256(self.job.lessons_text, block.text, cross.text),
            memory_omitted=block.omitted,
            cross_omitted=cross.omitted,
            prompt_chars=len(prompt),
            header_chars=len(self.header),
        )
        fields = {"review": self.job.review_id, "call": call_id, "shard": call.shard.index}
        started = time.perf_counter()
        try:
            async with asyncio.timeout(config.timeout_s + CALL_GRACE_S):
                result = await call.seat.call(request, timeout_s=config.timeout_s)
        except CallFailed as exc:
            log.warning("review call failed", extra={**fields, "reason": exc.reason.value})
            return _failed(base, started, exc.reason.value, exc.message)
        except TimeoutError:
            log.warning("review call overran its timeout", extra=fields)
            return _failed(base, started, "timeout", f"no answer within {config.timeout_s:g} s")
        except Exception as exc:
            log.exception("review call raised", extra=fields)
            return _failed(base, started, ERROR_REASON, f"{type(exc).__name__}: {exc}")
        self._record(call, call_id, result)
        return replace(
            base,
            duration_ms=_ms_since(started),
            findings=len(result.findings),
            dropped=len(result.dropped),
        )

    def _record(self, call: PlannedCall, call_id: str, result: CallResult) -> None:
        config = call.seat.config
        self.memory.record(
            call_id, config.name, call.lens.name, call.shard.paths, result, lab=config.lab
        )
        for finding in result.findings:
            self.reported.append(
                _Reported(finding, config.name, config.lab, call.lens.name, call_id, call.index)
            )


def _ms_since(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


def _failed(base: CallOutcome, started: float, reason: str, message: str) -> CallOutcome:
    return replace(
        base,
        status=CallStatus.FAILED,
        duration_ms=_ms_since(started),
        reason=reason,
        message=message[:MESSAGE_CHARS],
    )


def skipped_outcome(call: PlannedCall, review_id: str) -> CallOutcome:
    config = call.seat.config
    return CallOutcome(
        call_id=call.call_id(review_id),
        seat=config.name,
        lab=config.lab,
        lens=call.lens.name,
        shard=call.shard.index,
        status=CallStatus.SKIPPED,
        reason="max-calls",
        message="over the review's max_calls budget",
    )


def dedupe(reported: Sequence[_Reported]) -> list[PostedFinding]:
    """One finding per (mechanism, path, line), the earliest planned call's; others agree."""
    groups: dict[tuple[str, str, int], list[_Reported]] = {}
    for item in sorted(reported, key=lambda r: r.order):
        key = entry_key(item.lens, item.finding.title)
        groups.setdefault((key, item.finding.path, item.finding.line), []).append(item)
    posted: list[PostedFinding] = []
    for (key, _path, _line), items in groups.items():
        first = items[0]
        agreeing: dict[str, Agreeing] = {}
        for other in items[1:]:
            if other.seat != first.seat:
                agreeing.setdefault(other.seat, Agreeing(other.seat, other.lab, other.lens))
        posted.append(
            PostedFinding(
                finding=first.finding,
                seat=first.seat,
                lab=first.lab,
                lens=first.lens,
                call_id=first.call_id,
                key=key,
                agreements=tuple(agreeing.values()),
            )
        )
    return posted


async def prove(
    findings: Sequence[PostedFinding],
    *,
    checkout: Path | None,
    head_sha: str,
    timeout_s: float,
    parallel: int,
    sandbox: Sandbox | None,
    policy: ProofPolicy,
    limits: Limits | None = None,
) -> list[PostedFinding]:
    """Run the proofs of findings that carry one (at most ``MAX_PROOFS``) on copies of the head,
    in ``sandbox`` or the machine's (detected once); each reports it skipped when there is none
    and ``policy`` does not allow running unsandboxed."""
    todo = [i for i, f in enumerate(findings) if f.finding.proof is not None][:MAX_PROOFS]
    if not todo:
        return list(findings)
    found = sandbox if sandbox is not None else await asyncio.to_thread(detect_sandbox)
    chosen = for_policy(found, policy)
    gate = asyncio.Semaphore(parallel)

    async def one(index: int) -> tuple[int, ProofReport]:
        proof = findings[index].finding.proof
        assert proof is not None
        if checkout is None:
            return index, ProofReport(ProofOutcome.NO_CHECKOUT, NO_CHECKOUT_REASON)
        async with gate:
            report = await run_proof(
                proof,
                repo=checkout,
                sha=head_sha,
                timeout_s=timeout_s,
                sandbox=chosen,
                limits=limits,
            )
            return index, report

    reports = dict(await asyncio.gather(*(one(i) for i in todo)))
    return [
        PostedFinding(
            finding=f.finding,
            seat=f.seat,
            lab=f.lab,
            lens=f.lens,
            call_id=f.call_id,
            key=f.key,
            agreements=f.agreements,
            proof=reports.get(i),
        )
        for i, f in enumerate(findings)
    ]


def observed_commands(findings: Sequence[PostedFinding]) -> list[str]:
    """The proof tests the app itself ran (sandboxed, or unsandboxed where the operator allows
    it) that passed, on the head or with the fix: what session memory may count as observed."""
    observed: list[str] = []
    for item in findings:
        report, proof = item.proof, item.finding.proof
        if report is None or proof is None or report.sandbox == Isolation.NONE.value:
            continue
        runs = (report.before, report.after)
        if any(ran is not None and ran.returncode == 0 and not ran.timed_out for ran in runs):
            observed.append(proof.test)
    return observed


async def run_review(
    job: ReviewJob,
    *,
    seats: Sequence[Seat],
    lenses: Sequence[Lens],
    settings: ReviewSettings,
    proof_timeout_s: float = PROOF_TIMEOUT_S,
) -> ReviewRun:
    """Run every call (up to ``max_calls``), dedupe the findings, run their proofs."""
    header = render_header(
        repository=job.repository,
        pull=job.pull,
        lessons=job.lessons,
        dismissed_text=job.dismissed_text,
        summary_text=job.summary_text,
    )
    shards = cut_shards(job.files, settings.shard_chars)
    planned = plan_calls(seats, lenses, shards)
    runnable, over = planned[: settings.max_calls], planned[settings.max_calls :]
    runner = _Runner(job, settings, header)
    fields = {"review": job.review_id, "repo": job.repository, "pr": job.pull.number}
    log.info(
        "review calls starting",
        extra={**fields, "shards": len(shards), "calls": len(runnable), "skipped": len(over)},
    )
    outcomes = await asyncio.gather(*(runner.run(call) for call in runnable))
    findings = await prove(
        dedupe(runner.reported),
        checkout=job.checkout,
        head_sha=job.pull.head_sha,
        timeout_s=proof_timeout_s,
        parallel=settings.parallel_calls,
        sandbox=job.sandbox,
        policy=settings.proofs,
        limits=proof_limits(settings),
    )
    runner.memory.observe(observed_commands(findings))
    hits = runner.memory.hits(job.recalled)
    calls = (*outcomes, *(skipped_outcome(call, job.review_id) for call in over))
    log.info(
        "review calls finished",
        extra={
            **fields,
            "ok": sum(1 for c in calls if c.status is CallStatus.OK),
            "failed": sum(1 for c in calls if c.status is CallStatus.FAILED),
            "findings": len(findings),
            "hits": len(hits),
        },
    )
    return ReviewRun(
        review_id=job.review_id,
        header=header,
        shards=len(shards),
        calls=tuple(calls),
        findings=tuple(findings),
        memory=runner.memory,
        hits=tuple(hits),
    )
