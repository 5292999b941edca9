"""Memory as it is handed: cited fact lines, ordered for a call's files, packed within a budget."""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Iterable, Sequence

from continual.memory.items import ItemKind, MemoryItem
from continual.packing import Block, Budget, pack_lines

RECALLED_HEADER = "Recalled from earlier sessions:"
CITED_LINE = "- {text} (session {session}, seat {seat}, commit {commit})"
SHORT_SHA = 7


def cited_line(text: str, *, session: str, seat: str, commit: str) -> str:
    """``- text (session S, seat X, commit abc1234)``: memory is only ever handed as a fact."""
    return CITED_LINE.format(
        text=" ".join(text.split()), session=session, seat=seat, commit=commit[:SHORT_SHA]
    )


def handed_key(item: MemoryItem) -> str:
    """The id a session's injection record keeps for a memory line it was handed (revision 0), so
    a later brief of the same session hands only lines it has not handed yet."""
    digest = hashlib.sha256(f"{item.session}\0{item.subject}".encode()).hexdigest()[:24]
    return f"memory:{digest}"


def recalled_line(item: MemoryItem) -> str:
    return cited_line(item.text, session=item.session, seat=item.seat, commit=item.commit)


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
    tool paths, then the newest; ties keep the given order."""
    wanted = Relevance(call_files)
    indexed = list(enumerate(items))
    indexed.sort(
        key=lambda pair: (
            -wanted.score(pair[1].files),
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
