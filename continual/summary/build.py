"""Building a repository's memory summary from plain values: its framing, lines and budget."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from continual.memory import MemoryItem, Source
from continual.memory.items import ItemKind
from continual.memory.render import recalled_line
from continual.recall import Card

SUMMARY_MAX_CHARS = 2_000
SUMMARY_ID = "summary_{repository_id}"  # how an injection's entries name the summary it handed
GUIDANCE = (
    "Memory summary for {repo}. Memory is a heuristic: check it against the code. Pair what it "
    "suggests with evidence from the current repository, and prefer the repository and the "
    "instruction you were given when they disagree (treat conflicting memory as stale)."
)
# Lessons are the only imperative lines handed, within their own caps: the summary names them.
LESSONS_HEADER = "What maintainers confirmed here (lessons, by title):"
# Only what the app observed or seats of two labs reported becomes a statement; claims never do.
MEMORY_HEADER = "What earlier reviews established (observed by the app, or reported by two labs):"
LESSON_LINE = "- {title} ({lens}; lesson {id} r{revision})"
OMITTED_LINE = "({count} more omitted; the store keeps them all)"
EMPTY_SUMMARY = ""
# Tool paths first (they were executed), then the rest; recall's order (newest first) within.
KIND_ORDER = (ItemKind.TOOL_PATH, ItemKind.FACT, ItemKind.HYPOTHESIS, ItemKind.FINDING)


@dataclass(frozen=True, slots=True)
class Summary:
    """A built summary: its text (framing included, at most ``SUMMARY_MAX_CHARS``) and counts."""

    text: str
    lessons: int
    memories: int
    omitted: int


def is_summary_id(entry_id: str) -> bool:
    """True for the id an injection records a memory summary under (not a lesson entry)."""
    return entry_id.startswith(SUMMARY_ID.partition("{")[0])


def fingerprint(cards: Sequence[Card], items: Sequence[MemoryItem]) -> str:
    """What the summary is built from, as one digest: each lesson's id and revision, and each
    established memory item's session, kind, subject, state and source (claims are not built
    from, so a new claim changes nothing). Equal digests, equal summaries."""
    digest = hashlib.sha256()
    for card in sorted(cards, key=lambda c: c.id):
        digest.update(f"L\t{card.id}\t{card.revision}\n".encode())
    for item in sorted(established(items), key=lambda i: (i.session, i.kind.value, i.subject)):
        digest.update(
            f"M\t{item.session}\t{item.kind.value}\t{item.subject}\t{item.state}"
            f"\t{item.source}\n".encode()
        )
    return digest.hexdigest()


def established(items: Sequence[MemoryItem]) -> list[MemoryItem]:
    """The items the summary may state: observed by the app or corroborated by two labs."""
    # The review history's facts are handed as recalled memory beside the summary, not in it.
    return [item for item in items if item.established and item.source is not Source.HISTORY]


def _memory_order(items: Sequence[MemoryItem]) -> list[MemoryItem]:
    rank = {kind: index for index, kind in enumerate(KIND_ORDER)}
    return sorted(items, key=lambda i: rank[i.kind])  # stable: recall's newest-first order


def build_summary(
    repository: str,
    cards: Sequence[Card],
    items: Sequence[MemoryItem],
    *,
    max_chars: int = SUMMARY_MAX_CHARS,
) -> Summary:
    """The summary of ``repository``: the framing, its lessons named by title in the order
    given, then its established memory as cited lines (tool paths first, a fact a lesson already
    states left out; a seat's claim is never a statement of the summary), whole lines only,
    within ``max_chars`` with the omitted count; empty when there is nothing to summarise."""
    lesson_lines = [
        LESSON_LINE.format(
            title=" ".join(c.title.split()), lens=c.lens, id=c.id, revision=c.revision
        )
        for c in cards
    ]
    stated = {" ".join(c.text.split()).lower() for c in cards}
    memory_lines = [
        recalled_line(i)
        for i in _memory_order(established(items))
        if " ".join(i.text.split()).lower() not in stated
    ]
    if not lesson_lines and not memory_lines:
        return Summary(EMPTY_SUMMARY, 0, 0, 0)
    total = len(lesson_lines) + len(memory_lines)
    reserve = len("\n" + OMITTED_LINE.format(count=total))
    lines = [GUIDANCE.format(repo=repository)]
    used = len(lines[0])
    kept = {"lessons": 0, "memories": 0}
    for header, part, count in (
        (LESSONS_HEADER, lesson_lines, "lessons"),
        (MEMORY_HEADER, memory_lines, "memories"),
    ):
        fitting: list[str] = []
        cost = len("\n" + header)
        for line in part:
            if used + cost + len("\n" + line) + reserve > max_chars:
                break
            fitting.append(line)
            cost += len("\n" + line)
        if fitting:
            lines += [header, *fitting]
            used += cost
            kept[count] = len(fitting)
    omitted = total - kept["lessons"] - kept["memories"]
    if omitted:
        lines.append(OMITTED_LINE.format(count=omitted))
    return Summary("\n".join(lines), kept["lessons"], kept["memories"], omitted)
