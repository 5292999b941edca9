"""Memory as it is handed: cited lines saying who vouches for each, ordered for a call's files,
packed within a budget."""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Iterable, Sequence

from continual.memory.items import ItemKind, MemoryItem
from continual.memory.provenance import Reporter, Source, speaks_for_maintainers
from continual.packing import Block, Budget, pack_lines

RECALLED_HEADER = "Recalled from earlier sessions:"
CITED_LINE = "- {claim}{text} ({vouched}; session {session}, commit {commit})"
CLAIM = "Unverified claim: "
CLAIM_FOR_MAINTAINERS = "Unverified claim, not a maintainer's decision: "
REPORTED_BY = "reported by {seats}"
CORROBORATED_BY = "reported by {seats}, of different labs"
OBSERVED_BY = "reported by {seats}; the app ran it in its sandbox and it passed"
FROM_HISTORY = "from the repository's review history"
VOUCHED = {
    Source.REPORTED: REPORTED_BY,
    Source.CORROBORATED: CORROBORATED_BY,
    Source.OBSERVED: OBSERVED_BY,
    Source.HISTORY: FROM_HISTORY,
}
SHORT_SHA = 7


def _seats(reporters: Sequence[Reporter], *, labs: bool) -> str:
    ordered = sorted(reporters, key=lambda r: (r.seat, r.lab))  # calls run in parallel
    names = [f"{r.seat} ({r.lab})" if labs and r.lab else r.seat for r in ordered]
    if len(names) == 1:
        return f"seat {names[0]}"
    return f"seats {', '.join(names[:-1])} and {names[-1]}"


def cited_line(
    text: str,
    *,
    session: str,
    commit: str,
    reporters: Sequence[Reporter],
    source: Source = Source.REPORTED,
) -> str:
    """``- text (reported by seat X; session S, commit abc1234)``, who vouches for it first. A
    seat's report alone is marked an unverified claim, and never passes for a maintainer's
    decision; observed or corroborated, it is memory, still naming who reported it."""
    flat = " ".join(text.split())
    claim = ""
    if not source.established:
        claim = CLAIM_FOR_MAINTAINERS if speaks_for_maintainers(flat) else CLAIM
    seats = _seats(reporters, labs=source is Source.CORROBORATED)
    return CITED_LINE.format(
        claim=claim,
        text=flat,
        vouched=VOUCHED[source].format(seats=seats),
        session=session,
        commit=commit[:SHORT_SHA],
    )


def handed_key(item: MemoryItem) -> str:
    """The id a session's injection record keeps for a memory line it was handed (revision 0), so
    a later brief of the same session hands only lines it has not handed yet."""
    digest = hashlib.sha256(f"{item.session}\0{item.subject}".encode()).hexdigest()[:24]
    return f"memory:{digest}"


def recalled_line(item: MemoryItem) -> str:
    """The cited line of a kept item: its source only when it is active (established)."""
    return cited_line(
        item.text,
        session=item.session,
        commit=item.commit,
        reporters=item.reported_by,
        source=item.source if item.established else Source.REPORTED,
    )


class Relevance:
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


def for_call(items: Sequence[MemoryItem], call_files: Sequence[str]) -> list[MemoryItem]:
    """``items`` in the order a call on ``call_files`` wants them: relevance to its files, then
    what is established before claims, then tool paths, then the newest; ties keep the given
    order."""
    wanted = Relevance(call_files)
    indexed = list(enumerate(items))
    indexed.sort(
        key=lambda pair: (
            -wanted.score(pair[1].files),
            not pair[1].established,
            pair[1].kind is not ItemKind.TOOL_PATH,
            -pair[1].recorded_at.timestamp(),
            pair[0],
        )
    )
    return [item for _, item in indexed]


def recalled_block(items: Sequence[MemoryItem], budget: Budget | None = None) -> Block:
    """``items``, in the order given, as ``Recalled from earlier sessions:`` lines within
    ``budget`` (no bound when None)."""
    return pack_lines(
        [recalled_line(item) for item in items],
        budgets=() if budget is None else (budget,),
        header=RECALLED_HEADER,
    )
