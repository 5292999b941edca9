"""The review's own memory: what its calls learned, handed to later calls and to later reviews."""

from __future__ import annotations

import logging
import posixpath
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from continual.values import EntryState
from review.contract import CallResult, HypothesisStatus, ToolReceipt, ToolStatus
from review.subjects import (
    fact_subject,
    finding_subject,
    hypothesis_subject,
    program_of,
    tool_subject,
)

SESSION_HEADER = "Session memory (recorded by earlier calls of this review):"
RECALLED_HEADER = "Recalled from earlier sessions:"
OMITTED_LINE = "({count} more omitted)"
CITATION = "(session {session}, seat {seat}, commit {commit})"
SHORT_SHA = 7
ITEM_TEXT_CHARS = 480
BODY_EXCERPT_CHARS = 200
TOOL_PATH_TTL = timedelta(days=90)
CANDIDATE_TTL = timedelta(days=30)
STATUS_WORDS = {
    ToolStatus.FAILED: "failed",
    ToolStatus.ERROR: "errored",
    ToolStatus.TIMEOUT: "timed out",
    ToolStatus.PASSED: "passed",
}

_WHITESPACE = re.compile(r"\s+")

log = logging.getLogger(__name__)


class ItemKind(StrEnum):
    """What a memory item records."""

    TOOL_PATH = "tool_path"
    HYPOTHESIS = "hypothesis"
    FINDING = "finding"
    FACT = "fact"


@dataclass(frozen=True)
class CallRecord:
    """One call's result as the session memory received it."""

    call_id: str
    seat: str
    lens: str
    shard_files: tuple[str, ...]
    result: CallResult


@dataclass(frozen=True)
class SessionItem:
    """One thing a call of this review learned; ``seq`` orders by recency."""

    kind: ItemKind
    subject: str
    text: str
    seat: str
    lens: str
    call_id: str
    files: tuple[str, ...]
    seq: int


@dataclass(frozen=True)
class _Learned:
    """An item extracted from a result, with the key that makes it a duplicate."""

    kind: ItemKind
    subject: str
    text: str
    files: tuple[str, ...]
    key: tuple[str, ...]


@dataclass(frozen=True)
class MemoryItem:
    """A session item as it outlives the review: active (tool paths) or candidate, with expiry."""

    kind: ItemKind
    subject: str
    text: str
    seat: str
    session: str
    commit: str
    state: EntryState
    expires_at: datetime
    recorded_at: datetime
    lens: str = ""
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemoryBlock:
    """Text handed to a call, how many items it holds and how many did not fit."""

    text: str
    included: int
    omitted: int


@dataclass(frozen=True)
class MemoryHit:
    """A recalled subject that came up again in a new review."""

    subject: str
    kind: ItemKind
    recalled_session: str
    recalled_seat: str
    call_id: str
    seat: str


def _one_line(text: str, limit: int = ITEM_TEXT_CHARS) -> str:
    line = _WHITESPACE.sub(" ", text).strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def citation(session: str, seat: str, commit: str) -> str:
    """``(session S, seat X, commit abc1234)``."""
    return CITATION.format(session=session, seat=seat, commit=commit[:SHORT_SHA])


def subjects_of(record: CallRecord) -> set[str]:
    """Every subject a call's result touches: commands run, mechanisms, hypotheses, facts."""
    result = record.result
    subjects = {tool_subject(receipt.command) for receipt in result.tool_receipts}
    subjects.update(finding_subject(record.lens, f.title, f.path) for f in result.findings)
    subjects.update(hypothesis_subject(h.text) for h in result.hypotheses)
    subjects.update(fact_subject(fact.kind, fact.text) for fact in result.facts)
    return subjects


class SessionMemory:
    """What one review's calls have learned so far; safe to share between threads and tasks."""

    def __init__(self, review_id: str, head_sha: str) -> None:
        self.review_id = review_id
        self.head_sha = head_sha
        self._lock = threading.Lock()
        self._items: list[SessionItem] = []
        self._keys: set[tuple[str, ...]] = set()
        self._records: list[CallRecord] = []
        self._failures: dict[str, ToolReceipt] = {}
        self._seq = 0

    def record(
        self,
        call_id: str,
        seat: str,
        lens: str,
        shard_files: Sequence[str],
        result: CallResult,
    ) -> tuple[SessionItem, ...]:
        """Record one call's result (no model involved); returns the items it newly taught."""
        files = tuple(shard_files)
        with self._lock:
            self._records.append(CallRecord(call_id, seat, lens, files, result))
            learned: list[SessionItem] = []
            for new in self._extract(seat, lens, files, result):
                if new.key in self._keys:
                    continue
                self._keys.add(new.key)
                self._seq += 1
                item = SessionItem(
                    new.kind, new.subject, new.text, seat, lens, call_id, new.files, self._seq
                )
                self._items.append(item)
                learned.append(item)
        log.info(
            "session memory recorded",
            extra={"review": self.review_id, "call": call_id, "learned": len(learned)},
        )
        return tuple(learned)

    def _extract(
        self, seat: str, lens: str, files: tuple[str, ...], result: CallResult
    ) -> list[_Learned]:
        out: list[_Learned] = []
        for passed, failed in self._tool_paths(result.tool_receipts):
            subject = tool_subject(passed.command)
            text = (
                f"Tool path: `{_one_line(passed.command)}` passed where "
                f"`{_one_line(failed.command)}` {STATUS_WORDS[failed.status]}."
            )
            out.append(_Learned(ItemKind.TOOL_PATH, subject, text, files, (subject,)))
        for hypothesis in result.hypotheses:
            if hypothesis.status is HypothesisStatus.OPEN:
                continue
            subject = hypothesis_subject(hypothesis.text)
            evidence = ", ".join(hypothesis.evidence) if hypothesis.evidence else "none given"
            text = (
                f"Hypothesis {hypothesis.status.value}: {_one_line(hypothesis.text)} "
                f"(evidence: {evidence})."
            )
            out.append(_Learned(ItemKind.HYPOTHESIS, subject, text, files, (subject, text)))
        for finding in result.findings:
            subject = finding_subject(lens, finding.title, finding.path)
            body = _one_line(finding.body, BODY_EXCERPT_CHARS)
            text = f"Finding ({lens}) at {finding.path}:{finding.line}: {finding.title} — {body}"
            key = (subject, seat, lens, str(finding.line), text)
            out.append(_Learned(ItemKind.FINDING, subject, _one_line(text), (finding.path,), key))
        for fact in result.facts:
            subject = fact_subject(fact.kind, fact.text)
            text = f"Fact ({_one_line(fact.kind, 40)}): {_one_line(fact.text)}"
            out.append(_Learned(ItemKind.FACT, subject, text, files, (subject,)))
        return out

    def _tool_paths(self, receipts: Sequence[ToolReceipt]) -> list[tuple[ToolReceipt, ToolReceipt]]:
        """Pairs (passing receipt, the related failure it got past).

        Failures nothing has corrected yet are remembered, so a later call's passing run of the
        same program completes the path.
        """
        by_id = {receipt.id: receipt for receipt in receipts}
        failed_here: dict[str, ToolReceipt] = {}
        pairs: list[tuple[ToolReceipt, ToolReceipt]] = []
        for receipt in receipts:
            program = program_of(receipt.command)
            if receipt.status is not ToolStatus.PASSED:
                failed_here[program] = receipt
                continue
            related = by_id.get(receipt.corrects) if receipt.corrects else None
            if related is None or related.status is ToolStatus.PASSED:
                related = failed_here.get(program) or self._failures.get(program)
            if related is None or tool_subject(related.command) == tool_subject(receipt.command):
                continue
            pairs.append((receipt, related))
            failed_program = program_of(related.command)
            if failed_here.get(failed_program) is related:
                del failed_here[failed_program]
            elif self._failures.get(failed_program) is related:
                del self._failures[failed_program]
        self._failures.update(failed_here)
        return pairs

    def items(self) -> tuple[SessionItem, ...]:
        """Everything learned so far, in the order it was learned."""
        with self._lock:
            return tuple(self._items)

    def records(self) -> tuple[CallRecord, ...]:
        with self._lock:
            return tuple(self._records)

    def block_for(
        self,
        call_files: Sequence[str],
        *,
        max_chars: int = 12_000,
        seat: str | None = None,
        lens: str | None = None,
    ) -> MemoryBlock:
        """The session-memory block for a call on ``call_files``.

        Ordered by relevance to those files, then tool paths, then recency; findings of the same
        seat and lens as the call are left out (it has them already).
        """
        with self._lock:
            items = [
                item
                for item in self._items
                if not (item.kind is ItemKind.FINDING and item.seat == seat and item.lens == lens)
            ]
        wanted = _Relevance(call_files)
        items.sort(
            key=lambda item: (
                -wanted.score(item.files),
                item.kind is not ItemKind.TOOL_PATH,
                -item.seq,
            )
        )
        lines = [
            f"- {item.text} {citation(self.review_id, item.seat, self.head_sha)}" for item in items
        ]
        return bounded_block(SESSION_HEADER, lines, max_chars)

    def persistables(self, now: datetime) -> list[MemoryItem]:
        """What outlives the review: tool paths active for 90 days, the rest candidates for 30."""
        out: list[MemoryItem] = []
        seen: set[tuple[str, str]] = set()
        for item in self.items():
            if (item.subject, item.text) in seen:
                continue
            seen.add((item.subject, item.text))
            is_tool_path = item.kind is ItemKind.TOOL_PATH
            out.append(
                MemoryItem(
                    kind=item.kind,
                    subject=item.subject,
                    text=item.text,
                    seat=item.seat,
                    session=self.review_id,
                    commit=self.head_sha,
                    state=EntryState.ACTIVE if is_tool_path else EntryState.CANDIDATE,
                    expires_at=now + (TOOL_PATH_TTL if is_tool_path else CANDIDATE_TTL),
                    recorded_at=now,
                    lens=item.lens,
                    files=item.files,
                )
            )
        return out

    def hits(self, recalled_items: Sequence[MemoryItem]) -> list[MemoryHit]:
        """Recalled subjects that came up again in this review's calls."""
        return hits(recalled_items, self.records())


class _Relevance:
    """Scores an item's files against a call's files: same file 2, same folder 1, else 0."""

    def __init__(self, call_files: Iterable[str]) -> None:
        self.files = set(call_files)
        self.folders = {posixpath.dirname(path) for path in self.files}

    def score(self, files: Iterable[str]) -> int:
        best = 0
        for path in files:
            if path in self.files:
                return 2
            if posixpath.dirname(path) in self.folders:
                best = 1
        return best


def bounded_block(header: str, lines: Sequence[str], max_chars: int) -> MemoryBlock:
    """``header`` and whole ``lines`` in order while they fit in ``max_chars``, omitted counted.

    The count line is included in the budget; a block that cannot hold even the header and the
    count line is empty.
    """
    total = len(lines)
    if total == 0 or max_chars <= 0:
        return MemoryBlock(text="", included=0, omitted=total)

    def size(parts: Sequence[str]) -> int:
        return sum(len(part) + 1 for part in parts)

    if size([header, *lines]) <= max_chars:
        return MemoryBlock(text="\n".join([header, *lines]) + "\n", included=total, omitted=0)
    budget = max_chars - size([header, OMITTED_LINE.format(count=total)])
    chosen: list[str] = []
    for line in lines:
        cost = len(line) + 1
        if cost <= budget:
            chosen.append(line)
            budget -= cost
    omitted = total - len(chosen)
    parts = [header, *chosen, OMITTED_LINE.format(count=omitted)]
    if size(parts) > max_chars:
        return MemoryBlock(text="", included=0, omitted=total)
    return MemoryBlock(text="\n".join(parts) + "\n", included=len(chosen), omitted=omitted)


def _recalled_line(item: MemoryItem) -> str:
    return f"- {item.text} {citation(item.session, item.seat, item.commit)}"


def render_recalled(items: Sequence[MemoryItem]) -> str:
    """All ``items`` as ``Recalled from earlier sessions:`` lines, in the given order."""
    if not items:
        return ""
    return "\n".join([RECALLED_HEADER, *(_recalled_line(item) for item in items)]) + "\n"


def cross_session_block(
    items: Sequence[MemoryItem],
    max_chars: int = 24_000,
    *,
    call_files: Sequence[str] = (),
) -> MemoryBlock:
    """The recalled items for one call, bounded like the session block and ordered the same way."""
    wanted = _Relevance(call_files)
    indexed = list(enumerate(items))
    indexed.sort(
        key=lambda pair: (
            -wanted.score(pair[1].files),
            pair[1].kind is not ItemKind.TOOL_PATH,
            -pair[1].recorded_at.timestamp(),
            pair[0],
        )
    )
    lines = [_recalled_line(item) for _, item in indexed]
    return bounded_block(RECALLED_HEADER, lines, max_chars)


def hits(
    recalled_items: Sequence[MemoryItem], new_results: Iterable[CallRecord]
) -> list[MemoryHit]:
    """One hit per recalled subject that a new call's result touched again."""
    first_seen: dict[str, CallRecord] = {}
    for record in new_results:
        for subject in sorted(subjects_of(record)):
            first_seen.setdefault(subject, record)
    out: list[MemoryHit] = []
    counted: set[str] = set()
    for item in recalled_items:
        seen = first_seen.get(item.subject)
        if seen is None or item.subject in counted:
            continue
        counted.add(item.subject)
        out.append(
            MemoryHit(
                subject=item.subject,
                kind=item.kind,
                recalled_session=item.session,
                recalled_seat=item.seat,
                call_id=seen.call_id,
                seat=seen.seat,
            )
        )
    return out
