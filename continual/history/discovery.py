"""Lessons discovered in a repository's history: its addressed maintainer comments grouped by
mechanism (the file they are on), what a discovery seat proposed of them, and the checks every
proposal passes before it is kept — each cited comment known and quoted verbatim, the lesson
admitted like every lesson, none resting on a comment whose lesson a person deleted. Recurrence
is the proof: a lesson resting on two or more pull requests is active, on one a candidate."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from continual.admission import admit
from continual.history.evidence import Receipt, identifiers
from continual.values import EntryState

MAX_MECHANISM_COMMENTS = 30  # the most recent addressed comments of one mechanism put to the seat
MIN_PULLS_ACTIVE = 2
_WORDY = re.compile(r"\w")


class Rejected(StrEnum):
    """Why a proposal was not kept."""

    UNKNOWN_COMMENT = "unknown-comment"  # cites a comment it was not given
    UNQUOTED = "unquoted"  # a cited comment without a verbatim quote of it
    DELETED = "deleted"  # rests on a comment whose lesson a person deleted
    DUPLICATE = "duplicate"  # the same comments as a lesson already kept
    ADMISSION = "admission"  # the lesson admission refused it


@dataclass(frozen=True, slots=True)
class Mechanism:
    """What is put to the seat at once: a key (the file) and its addressed comments."""

    key: str
    receipts: tuple[Receipt, ...]


@dataclass(frozen=True, slots=True)
class Proposal:
    """A lesson as the seat proposed it: its words, and per cited comment id the quote of it."""

    title: str
    text: str
    quotes: Mapping[int, str]


@dataclass(frozen=True, slots=True)
class Discovered:
    """A proposal that passed every check: ready to publish."""

    key: str
    title: str
    text: str
    comment_ids: tuple[int, ...]
    prs: tuple[int, ...]
    quotes: Mapping[int, str]
    state: EntryState


def mechanisms(receipts: Iterable[Receipt], *, fresh: Collection[int]) -> list[Mechanism]:
    """The mechanisms holding a comment in ``fresh`` (not yet put to a seat), each with its most
    recent addressed comments (new and old: a lesson may rest on both), by key."""
    by_path: dict[str, list[Receipt]] = {}
    for receipt in receipts:
        by_path.setdefault(receipt.path, []).append(receipt)
    found = []
    for path in sorted(by_path):
        group = sorted(by_path[path], key=lambda r: (r.created_at, r.comment_id), reverse=True)
        if any(receipt.comment_id in fresh for receipt in group):
            found.append(Mechanism(path, tuple(group[:MAX_MECHANISM_COMMENTS])))
    return found


def lesson_key(comment_ids: Iterable[int]) -> str:
    """One key per set of cited comments: the same comments never make a second lesson."""
    joined = ",".join(str(i) for i in sorted(set(comment_ids)))
    return "h:" + hashlib.sha256(joined.encode()).hexdigest()[:30]


def check(
    proposal: Proposal,
    given: Mapping[int, Receipt],
    *,
    held: Collection[int],
    known_keys: Collection[str],
) -> Discovered | Rejected:
    """A proposal kept, or why not. ``given`` is the comments put to the seat, ``held`` the
    comments whose lesson a person deleted, ``known_keys`` the lessons already kept."""
    if not proposal.quotes:
        return Rejected.UNQUOTED
    cited: list[Receipt] = []
    for comment_id, quote in proposal.quotes.items():
        receipt = given.get(comment_id)
        if receipt is None:
            return Rejected.UNKNOWN_COMMENT
        shown = quote.strip()
        if not _WORDY.search(shown) or shown not in receipt.body:
            return Rejected.UNQUOTED
        cited.append(receipt)
    ids = tuple(sorted(receipt.comment_id for receipt in cited))
    if set(ids) & set(held):
        return Rejected.DELETED
    key = lesson_key(ids)
    if key in known_keys:
        return Rejected.DUPLICATE
    verdict = admit(
        title=proposal.title,
        text=proposal.text,
        context_paths=sorted({receipt.path for receipt in cited}),
        context_identifiers=[name for receipt in cited for name in identifiers(receipt.body)],
    )
    if not verdict.admitted:
        return Rejected.ADMISSION
    prs = tuple(sorted({receipt.pr for receipt in cited}))
    state = EntryState.ACTIVE if len(prs) >= MIN_PULLS_ACTIVE else EntryState.CANDIDATE
    return Discovered(
        key,
        proposal.title.strip(),
        proposal.text.strip(),
        ids,
        prs,
        {i: proposal.quotes[i].strip() for i in ids},
        state,
    )


def checked(
    proposals: Sequence[Proposal],
    given: Mapping[int, Receipt],
    *,
    held: Collection[int],
    known_keys: Collection[str],
) -> tuple[list[Discovered], dict[str, int]]:
    """Every proposal checked in order (a later duplicate of an earlier one is a duplicate);
    the kept ones, and the others counted by why."""
    kept: list[Discovered] = []
    why: dict[str, int] = {}
    keys = set(known_keys)
    for proposal in proposals:
        found = check(proposal, given, held=held, known_keys=keys)
        if isinstance(found, Rejected):
            why[found.value] = why.get(found.value, 0) + 1
            continue
        keys.add(found.key)
        kept.append(found)
    return kept, why
