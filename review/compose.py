"""Wording one GitHub review: comments with markers and suggestion blocks, and the review body."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from continual.entry_keys import normalise_title
from continual.fix_patches import shown_patch
from continual.markers import render_review_marker, with_suggestion_marker
from continual.patches import commentable_new_lines
from continual.tables import CallStatus
from review.contract import Finding
from review.runs import CallOutcome, PostedFinding
from review.safe_text import bounded_inline, bounded_text, code_span
from review.shards import PullFile

PROVEN_NOTE = "**Proven:** {test} fails on this commit and passes with the fix."
PATCH_NOTE = "The proven fix (`/fix` opens a pull request with exactly this patch):"
UNPOSTED_PATCH_NOTE = (
    "The proven fix's patch ({count} characters) is too long to post here; `/fix` still "
    "opens a pull request with exactly that patch."
)
UNPOSTED_SUGGESTION_NOTE = (
    "The suggested change ({count} characters) is too long to post here; "
    "`hindsight ledger` shows it."
)
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
# One comment's whole body, the app's words and marker included: well under GitHub's 65,536
# characters, and under its 262,144 bytes even if every character takes four.
MAX_COMMENT_CHARS = 16_000
# The review request's body and comments together; past it, the longest comments are cut to a
# fair share so every one of them is still posted inline.
MAX_REVIEW_CHARS = 1_000_000
TITLE_CHARS = 200
# What a comment keeps of its explanation before it leaves a suggestion too long to post out.
EXPLANATION_FLOOR = 1_000
TEST_CHARS = 200
MAX_COMMENTS = 200
BODY_EXCERPT_CHARS = 400

_FENCE = re.compile(r"`{3,}")


@dataclass(frozen=True)
class DraftItem:
    """One comment of the review: where it sits, its full body (marker included) and the one
    safe line that lists it in the review body if GitHub will not place it."""

    suggestion_id: str
    path: str
    line: int
    body: str
    summary: str = ""


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
    return {item.path: commentable_new_lines(item.patch) for item in files}


def proven_fix_patch(finding: Finding, *, proven: bool) -> str | None:
    """The proven fix's patch shown with a finding that has no replacement block, when a fix PR
    may apply it (continual.fix_patches); what is shown is what is stored and applied."""
    if not proven or finding.suggestion or finding.proof is None:
        return None
    return shown_patch(finding.path, finding.proof.fix)


def patch_block(patch: str) -> str:
    """A ```diff block whose fence is longer than any backtick run inside the patch."""
    longest = max((len(m.group(0)) for m in _FENCE.finditer(patch)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}diff\n{patch.rstrip(chr(10))}\n{fence}"


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


def comment_body(shared: SharedFinding, limit: int | None = None) -> str:
    """Title, explanation, the suggestion block, proof and agreement notes, then the marker, in
    at most ``limit`` (default ``MAX_COMMENT_CHARS``) characters; a finding raised under several lenses names each lens and seat
    once.

    The seat's words are made safe (``review.safe_text``: no mention, HTML, image or link, no
    fence left open) and its explanation is cut to what the limit leaves. The suggested code is
    kept exactly, as applying it must give that code, or left out whole if it does not fit; the
    marker after it is the one read.
    """
    limit = MAX_COMMENT_CHARS if limit is None else limit
    item = shared.first
    title = bounded_inline(item.finding.title, TITLE_CHARS)
    lenses = list(dict.fromkeys(other.lens for _sid, other in shared.items))
    heading = (
        f"**{title}** ({item.lens}, seat {item.seat})"
        if len(lenses) == 1
        else f"**{title}** ({', '.join(lenses)})"
    )
    after: list[str] = []
    replacement = next(
        (other.finding.suggestion for _sid, other in shared.items if other.finding.suggestion),
        None,
    )
    proven = next((other for _sid, other in shared.items if other.proven), None)
    if proven is not None and proven.finding.proof is not None:
        test = " ".join(proven.finding.proof.test.split())
        test = test if len(test) <= TEST_CHARS else test[: TEST_CHARS - 1] + "…"
        after += ["", PROVEN_NOTE.format(test=code_span(test))]
    if len(lenses) > 1:
        after += ["", RAISED_NOTE.format(count=len(lenses), raisers=", ".join(_raisers(shared)))]
    elif item.agreements:
        seats = ", ".join(f"{a.seat} ({a.lab})" for a in item.agreements)
        after += ["", AGREED_NOTE.format(seats=seats)]
    marker = with_suggestion_marker("", shared.suggestion_id, item.key)
    fixed = len(heading) + len("\n".join(after)) + len(marker) + 8
    if replacement is not None:
        block = suggestion_block(replacement)
        if fixed + len(block) + 2 > limit - EXPLANATION_FLOOR:
            block = UNPOSTED_SUGGESTION_NOTE.format(count=f"{len(replacement):,}")
        after = ["", block, *after]
        fixed += len(block) + 2
    patch = None if proven is None else proven_fix_patch(proven.finding, proven=True)
    if replacement is None and patch is not None:
        block = f"{PATCH_NOTE}\n\n{patch_block(patch)}"
        if fixed + len(block) + 2 > limit - EXPLANATION_FLOOR:
            block = UNPOSTED_PATCH_NOTE.format(count=f"{len(patch):,}")
        after = ["", block, *after]
        fixed += len(block) + 2
    text = bounded_text(item.finding.body.strip(), max(0, limit - fixed))
    parts = [heading, "", text, *after] if text else [heading, *after]
    return with_suggestion_marker("\n".join(parts), shared.suggestion_id, item.key)


def _summary(shared: SharedFinding) -> str:
    """The finding in one safe line: title, proven or not, an excerpt of the explanation."""
    item = shared.first
    finding = item.finding
    proven = " (proven)" if any(other.proven for _sid, other in shared.items) else ""
    title = bounded_inline(finding.title, TITLE_CHARS)
    return f"**{title}**{proven} — {bounded_inline(finding.body, BODY_EXCERPT_CHARS)}"


def _outside_line(shared: SharedFinding) -> str:
    finding = shared.first.finding
    raisers = ", ".join(f"{other.lens}, seat {other.seat}" for _sid, other in shared.items)
    summary = _summary(shared).replace(" — ", f" ({raisers}) — ", 1)
    return f"- {code_span(finding.path)} line {finding.line}: {summary}"


def _fair_share(lengths: Sequence[int], budget: int) -> int | None:
    """The longest a comment may be for ``lengths`` to fit ``budget`` with the shorter ones
    whole, or None if they already fit."""
    if sum(lengths) <= budget:
        return None
    remaining = budget
    ordered = sorted(lengths)
    for index, length in enumerate(ordered):
        share = remaining // (len(ordered) - index)
        if length > share:
            return share
        remaining -= length
    return None


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
    placed: list[SharedFinding] = []
    outside: list[str] = []
    groups = share_findings(findings)
    for shared in groups:
        finding = shared.first.finding
        if finding.line in lines.get(finding.path, frozenset()) and len(placed) < MAX_COMMENTS:
            placed.append(shared)
        else:
            outside.append(_outside_line(shared))
    bodies = [comment_body(shared) for shared in placed]
    share = _fair_share([len(body) for body in bodies], MAX_REVIEW_CHARS - MAX_BODY_CHARS)
    if share is not None:
        bodies = [
            body if len(body) <= share else comment_body(shared, share)
            for shared, body in zip(placed, bodies, strict=True)
        ]
    comments = [
        DraftItem(s.suggestion_id, s.first.finding.path, s.first.finding.line, body, _summary(s))
        for s, body in zip(placed, bodies, strict=True)
    ]
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
    tail = ["", render_review_marker(review_id)]
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
    marker = render_review_marker(draft.review_id)
    head = draft.body.replace(marker, "").rstrip().split("\n")
    folded = [
        f"- {code_span(item.path)} line {item.line}" + (f": {item.summary}" if item.summary else "")
        for item in draft.comments
    ]
    body = _bounded_body(head, folded, ["", marker], header=FOLDED_HEADER)
    return Draft(draft.review_id, draft.commit_id, body, ())
