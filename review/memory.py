"""The review's own memory: what its calls learned, handed to later calls of the same review."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from continual.memory import (
    ItemKind,
    MemoryHit,
    MemoryItem,
    Relevance,
    Reporter,
    Source,
    cited_line,
    for_call,
    kept_as,
    promotable,
    recalled_block,
    refusal,
    reported_source,
    text_refusal,
)
from continual.packing import Block, Budget, pack_lines
from continual.secrets import first_secret
from review.contract import CallResult, HypothesisStatus, ToolReceipt, ToolStatus
from review.subjects import (
    fact_subject,
    finding_subject,
    hypothesis_subject,
    program_of,
    tool_subject,
)

SESSION_HEADER = "Session memory (recorded by earlier calls of this review):"
ITEM_TEXT_CHARS = 480
BODY_EXCERPT_CHARS = 200
STATUS_WORDS = {
    ToolStatus.FAILED: "failed",
    ToolStatus.ERROR: "errored",
    ToolStatus.TIMEOUT: "timed out",
    ToolStatus.PASSED: "passed",
}

_WHITESPACE = re.compile(r"\s+")

log = logging.getLogger(__name__)


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
    """One thing a call of this review learned; ``seq`` orders by recency. ``seat`` reported it
    first, ``reporters`` are every seat (and lab) that reported the same, ``source`` who vouches
    for it: the seats alone, two labs, or the app's own run."""

    kind: ItemKind
    subject: str
    text: str
    seat: str
    lens: str
    call_id: str
    files: tuple[str, ...]
    seq: int
    reporters: tuple[Reporter, ...] = ()
    source: Source = Source.REPORTED


@dataclass(frozen=True)
class _Learned:
    """An item extracted from a result, with the key that makes it a duplicate."""

    kind: ItemKind
    subject: str
    text: str
    files: tuple[str, ...]
    key: tuple[str, ...]


def _one_line(text: str, limit: int = ITEM_TEXT_CHARS) -> str:
    line = _WHITESPACE.sub(" ", text).strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


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
        self._keys: dict[tuple[str, ...], int] = {}  # an item's key: its index in ``_items``
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
        *,
        lab: str = "",
    ) -> tuple[SessionItem, ...]:
        """Record one call's result (no model involved); returns the items it newly taught. What
        the seat reports is its claim: an item another seat already reported gains this seat as
        a reporter, and is corroborated once seats of two different labs (``lab``; empty: not
        known, which never corroborates) reported it. A command that fetches and runs code or touches the network is never recorded."""
        files = tuple(shard_files)
        reporter = Reporter(seat, lab)
        with self._lock:
            self._records.append(CallRecord(call_id, seat, lens, files, result))
            learned: list[SessionItem] = []
            withheld: list[str] = []
            refused: list[str] = []
            for new in self._extract(seat, lens, files, result, refused):
                secret = first_secret(new.subject, new.text)
                if secret is not None:  # never handed on, stored or written: only counted
                    withheld.append(secret.rule)
                    continue
                if new.key in self._keys:
                    self._second(self._keys[new.key], reporter)
                    continue
                self._keys[new.key] = len(self._items)
                self._seq += 1
                item = SessionItem(
                    new.kind,
                    new.subject,
                    new.text,
                    seat,
                    lens,
                    call_id,
                    new.files,
                    self._seq,
                    (reporter,),
                )
                self._items.append(item)
                learned.append(item)
        log.info(
            "session memory recorded",
            extra={"review": self.review_id, "call": call_id, "learned": len(learned)},
        )
        if refused:
            log.warning(
                "session memory refused reported commands",
                extra={"review": self.review_id, "call": call_id, "reasons": sorted(set(refused))},
            )
        if withheld:
            log.warning(
                "session memory withheld items holding a secret",
                extra={"review": self.review_id, "call": call_id, "rules": sorted(set(withheld))},
            )
        return tuple(learned)

    def _second(self, index: int, reporter: Reporter) -> None:
        """Another seat reported the item at ``index``: counted once, corroborating it when the
        two seats' labs differ (and the item may be established at all)."""
        item = self._items[index]
        if reporter in item.reporters or item.kind is ItemKind.FINDING:
            return
        reporters = (*item.reporters, reporter)
        source = item.source
        if not source.established:
            source = reported_source(reporters, promotable=promotable(item.kind, item.text))
        self._items[index] = replace(item, reporters=reporters, source=source)

    def _extract(
        self,
        seat: str,
        lens: str,
        files: tuple[str, ...],
        result: CallResult,
        refused: list[str],
    ) -> list[_Learned]:
        out: list[_Learned] = []
        receipts = []
        for receipt in result.tool_receipts:
            reason = refusal(receipt.command)
            if reason is None:
                receipts.append(receipt)
            else:  # never kept, not even as a claim: the seat's later calls are not handed it
                refused.append(reason)
        for passed, failed in self._tool_paths(receipts):
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
            reason = text_refusal(text)
            if reason is not None:
                refused.append(reason)
                continue
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
            reason = text_refusal(text)
            if reason is not None:
                refused.append(reason)
                continue
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

    def observe(self, commands: Iterable[str]) -> int:
        """The app ran each of ``commands`` in its proof sandbox and it passed: a tool path whose
        passing command is one of them is observed. Answers how many items that established."""
        subjects = {tool_subject(command) for command in commands}
        count = 0
        with self._lock:
            for index, item in enumerate(self._items):
                if item.kind is not ItemKind.TOOL_PATH or item.subject not in subjects:
                    continue
                if item.source is not Source.OBSERVED:
                    self._items[index] = replace(item, source=Source.OBSERVED)
                    count += 1
        if count:
            log.info("session memory observed", extra={"review": self.review_id, "items": count})
        return count

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
    ) -> Block:
        """The session-memory block for a call on ``call_files``, each line saying who reported
        it (a seat's report alone marked an unverified claim).

        Ordered by relevance to those files, then what is established before claims, then tool
        paths, then recency; findings of the same seat and lens as the call are left out (it has
        them already).
        """
        with self._lock:
            items = [
                item
                for item in self._items
                if not (item.kind is ItemKind.FINDING and item.seat == seat and item.lens == lens)
            ]
        wanted = Relevance(call_files)
        items.sort(
            key=lambda item: (
                -wanted.score(item.files),
                not item.source.established,
                item.kind is not ItemKind.TOOL_PATH,
                -item.seq,
            )
        )
        lines = [
            cited_line(
                item.text,
                session=self.review_id,
                commit=self.head_sha,
                reporters=item.reporters or (Reporter(item.seat, ""),),
                source=item.source,
            )
            for item in items
        ]
        return pack_lines(lines, budgets=(Budget.chars(max_chars),), header=SESSION_HEADER)

    def persistables(self, now: datetime) -> list[MemoryItem]:
        """What outlives the review, as the core keeps it (``continual.memory.kept_as``): active
        when observed or corroborated, else a candidate with its seat as its source."""
        out: list[MemoryItem] = []
        seen: set[tuple[str, str]] = set()
        for item in self.items():
            if (item.subject, item.text) in seen:
                continue
            seen.add((item.subject, item.text))
            state, expires_at = kept_as(item.source, now)
            out.append(
                MemoryItem(
                    kind=item.kind,
                    subject=item.subject,
                    text=item.text,
                    seat=item.seat,
                    session=self.review_id,
                    commit=self.head_sha,
                    state=state,
                    expires_at=expires_at,
                    recorded_at=now,
                    lens=item.lens,
                    files=item.files,
                    source=item.source,
                    reporters=item.reporters or (Reporter(item.seat, ""),),
                )
            )
        return out

    def hits(self, recalled_items: Sequence[MemoryItem]) -> list[MemoryHit]:
        """Recalled subjects that came up again in this review's calls."""
        return hits(recalled_items, self.records())


def cross_session_block(
    items: Sequence[MemoryItem], max_chars: int = 24_000, *, call_files: Sequence[str] = ()
) -> Block:
    """What earlier reviews left, for one call: ordered for its files, at most ``max_chars``."""
    return recalled_block(for_call(items, call_files), Budget.chars(max_chars))


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
