"""Wording one GitHub review: comments with markers and suggestion blocks, and the review body."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from continual.entry_keys import normalise_title
from continual.markers import (
    last_match,
    neutralise,
    with_suggestion_marker,
    without_suggestion_marker,
)
from continual.tables import CallStatus
from review.orchestrate import CallOutcome, PostedFinding
from review.shards import PullFile

REVIEW_MARKER = "<!-- hindsight:review id={review} -->"
REVIEW_MARKER_PATTERN = re.compile(r"<!-- hindsight:review id=([A-Za-z0-9_-]{1,64}) -->")
PROVEN_NOTE = "**Proven:** `{test}` fails on this commit and passes with the fix."
AGREED_NOTE = "Also reported by: {seats}."
RAISED_NOTE = "Raised under {count} lenses: {raisers}."
OUTSIDE_HEADER = "Findings on lines outside the diff:"
FOLDED_HEADER = "Findings GitHub would not place on the diff:"
FAILED_NOTE = "{failed} of {total} calls failed; `hindsight ledger` lists them."
OMITTED_NOTE = "({count} more findings omitted)"
WITHHELD_NOTE = (
    "{count} more findings not posted: maintainers dismissed their mechanism here before "
    "(`hindsight ledger` counts them; `hindsight entry restore` lifts a dismissal)."
)
MAX_BODY_CHARS = 60_000
MAX_COMMENTS = 200
BODY_EXCERPT_CHARS = 400

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_FENCE = re.compile(r"`{3,}")


@dataclass(frozen=True)
class DraftItem:
    """One comment of the review: where it sits and its full body (marker included)."""

    suggestion_id: str
    path: str
    line: int
    body: str


@dataclass(frozen=True)
class Draft:
    """The review exactly as it is posted; stored before posting so a retry posts the same."""

    review_id: str
    commit_id: str
    body: str
    comments: tuple[DraftItem, ...]

    def to_json(self) -> str:
        return json.dumps(
            {
                "review_id": self.review_id,
                "commit_id": self.commit_id,
                "body": self.body,
                "comments": [item.__dict__ for item in self.comments],
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> Draft:
        data: Mapping[str, Any] = json.loads(text)
        return cls(
            review_id=str(data["review_id"]),
            commit_id=str(data["commit_id"]),
            body=str(data["body"]),
            comments=tuple(DraftItem(**item) for item in data["comments"]),
        )


def commentable_lines(files: Iterable[PullFile]) -> dict[str, frozenset[int]]:
    """New-file line numbers a review comment may sit on (added and context lines) per path."""
    found: dict[str, frozenset[int]] = {}
    for item in files:
        lines: set[int] = set()
        number = 0
        in_hunk = False
        for raw in (item.patch or "").split("\n"):
            header = _HUNK.match(raw)
            if header:
                number, in_hunk = int(header.group(1)), True
                continue
            if not in_hunk or raw.startswith(("-", "\\")):
                continue
            lines.add(number)
            number += 1
        found[item.path] = frozenset(lines)
    return found


def review_marker(review_id: str) -> str:
    return REVIEW_MARKER.format(review=review_id)


def marked_review_id(body: str | None) -> str | None:
    """The review id the last review marker in a posted review's body names, if any."""
    match = last_match(REVIEW_MARKER_PATTERN, body)
    return match.group(1) if match else None


def suggestion_block(code: str) -> str:
    """A ```suggestion block whose fence is longer than any backtick run inside the code."""
    longest = max((len(m.group(0)) for m in _FENCE.finditer(code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}suggestion\n{code.rstrip(chr(10))}\n{fence}"


@dataclass(frozen=True)
class SharedFinding:
    """One finding as maintainers see it: the same path, line and title under one or more
    lenses. Each lens keeps its own suggestion (its mechanism); the first one's comment carries
    them all, and a reply to it decides for every one of them."""

    items: tuple[tuple[str, PostedFinding], ...]

    @property
    def suggestion_id(self) -> str:
        return self.items[0][0]

    @property
    def first(self) -> PostedFinding:
        return self.items[0][1]


def share_findings(findings: Sequence[tuple[str, PostedFinding]]) -> list[SharedFinding]:
    """Group the findings by (path, line, normalised title), in the order they came."""
    groups: dict[tuple[str, int, str], list[tuple[str, PostedFinding]]] = {}
    for suggestion_id, item in findings:
        finding = item.finding
        key = (finding.path, finding.line, normalise_title(finding.title))
        groups.setdefault(key, []).append((suggestion_id, item))
    return [SharedFinding(tuple(items)) for items in groups.values()]


def comment_owners(findings: Sequence[tuple[str, PostedFinding]]) -> dict[str, str]:
    """Each suggestion whose finding another suggestion's comment carries, with that suggestion."""
    return {
        suggestion_id: shared.suggestion_id
        for shared in share_findings(findings)
        for suggestion_id, _item in shared.items[1:]
    }


def _raisers(shared: SharedFinding) -> list[str]:
    """Every seat that raised the finding, with its lens, in order, each once."""
    named: dict[str, None] = {}
    for _sid, item in shared.items:
        named.setdefault(f"{item.seat} ({item.lens})")
        for agreeing in item.agreements:
            named.setdefault(f"{agreeing.seat} ({agreeing.lens})")
    return list(named)


def comment_body(shared: SharedFinding) -> str:
    """Title, explanation, the suggestion block, proof and agreement notes, then the marker; a
    finding raised under several lenses names each lens and seat once.

    The seat's words are neutralised (they cannot open or close a marker); the suggested code is
    kept exactly, as applying it must give that code, and the marker after it is the one read.
    """
    item = shared.first
    finding = item.finding
    title, text = neutralise(finding.title), neutralise(finding.body.strip())
    lenses = list(dict.fromkeys(other.lens for _sid, other in shared.items))
    heading = (
        f"**{title}** ({item.lens}, seat {item.seat})"
        if len(lenses) == 1
        else f"**{title}** ({', '.join(lenses)})"
    )
    parts = [heading, "", text]
    replacement = next(
        (other.finding.suggestion for _sid, other in shared.items if other.finding.suggestion),
        None,
    )
    if replacement is not None:
        parts += ["", suggestion_block(replacement)]
    proven = next((other for _sid, other in shared.items if other.proven), None)
    if proven is not None and proven.finding.proof is not None:
        test = neutralise(proven.finding.proof.test.replace("`", "'"))
        parts += ["", PROVEN_NOTE.format(test=test)]
    if len(lenses) > 1:
        parts += ["", RAISED_NOTE.format(count=len(lenses), raisers=", ".join(_raisers(shared)))]
    elif item.agreements:
        seats = ", ".join(f"{a.seat} ({a.lab})" for a in item.agreements)
        parts += ["", AGREED_NOTE.format(seats=seats)]
    return with_suggestion_marker("\n".join(parts), shared.suggestion_id, item.key)


def _excerpt(text: str) -> str:
    line = " ".join(neutralise(text).split())
    return line if len(line) <= BODY_EXCERPT_CHARS else line[: BODY_EXCERPT_CHARS - 1] + "…"


def _outside_line(shared: SharedFinding) -> str:
    item = shared.first
    finding = item.finding
    proven = " (proven)" if any(other.proven for _sid, other in shared.items) else ""
    raisers = ", ".join(f"{other.lens}, seat {other.seat}" for _sid, other in shared.items)
    return (
        f"- `{neutralise(finding.path)}` line {finding.line}: **{neutralise(finding.title)}**"
        f"{proven} ({raisers}) — {_excerpt(finding.body)}"
    )


def compose(
    *,
    review_id: str,
    commit_id: str,
    findings: Sequence[tuple[str, PostedFinding]],
    files: Sequence[PullFile],
    calls: Sequence[CallOutcome],
    seats: Sequence[str],
    lenses: Sequence[str],
    withheld: int = 0,
) -> Draft:
    """The review to post: findings on diff lines as comments, the rest listed in the body;
    ``withheld`` findings were not posted (their mechanism was dismissed here) and only counted."""
    lines = commentable_lines(files)
    comments: list[DraftItem] = []
    outside: list[str] = []
    groups = share_findings(findings)
    for shared in groups:
        finding = shared.first.finding
        if finding.line in lines.get(finding.path, frozenset()) and len(comments) < MAX_COMMENTS:
            body = comment_body(shared)
            comments.append(DraftItem(shared.suggestion_id, finding.path, finding.line, body))
        else:
            outside.append(_outside_line(shared))
    failed = sum(1 for call in calls if call.status is CallStatus.FAILED)
    summary = (
        f"Hindsight reviewed {len(files)} files of {commit_id[:7]} with "
        f"{', '.join(seats)} × {', '.join(lenses)}: {len(groups)} findings."
    )
    head = [summary]
    if withheld:
        head += ["", WITHHELD_NOTE.format(count=withheld)]
    if failed:
        head += ["", FAILED_NOTE.format(failed=failed, total=len(calls))]
    tail = ["", review_marker(review_id)]
    body = _bounded_body(head, outside, tail)
    return Draft(review_id, commit_id, body, tuple(comments))


def _bounded_body(
    head: list[str], outside: list[str], tail: list[str], *, header: str = OUTSIDE_HEADER
) -> str:
    if not outside:
        return "\n".join([*head, *tail])
    budget = MAX_BODY_CHARS - len("\n".join([*head, "", header, *tail])) - 40
    kept: list[str] = []
    for line in outside:
        if len(line) + 1 > budget:
            break
        kept.append(line)
        budget -= len(line) + 1
    extra = (
        [OMITTED_NOTE.format(count=len(outside) - len(kept))] if len(kept) < len(outside) else []
    )
    return "\n".join([*head, "", header, *kept, *extra, *tail])


def fold_comments(draft: Draft) -> Draft:
    """The draft with its comments listed in the body instead (GitHub refused to place them)."""
    marker = review_marker(draft.review_id)
    head = draft.body.replace(marker, "").rstrip().split("\n")
    folded = [
        f"- `{item.path}` line {item.line}: {_excerpt(without_suggestion_marker(item.body))}"
        for item in draft.comments
    ]
    body = _bounded_body(head, folded, ["", marker], header=FOLDED_HEADER)
    return Draft(draft.review_id, draft.commit_id, body, ())
