"""Where a memory item comes from: a seat's report is a claim until the app observes it or seats of
two different labs report the same."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

# Stems that make a text speak for the maintainers, looked for with every non-letter removed
# (``M-a-i-n-t-a-i-n-e-r-s`` reads ``maintainers``); a maintainer's decision reaches memory only
# as a lesson, through the maintainer rule, never through a seat.
MAINTAINER_STEMS = (
    "maintain",
    "decide",
    "decision",
    "approv",
    "owner",
    "policy",
    "agreed",
    "agreement",
    "mandat",
    "signoff",
    "lgtm",
    "authori",
    "permission",
    "allowed",
)
MIN_LABS = 2


class Source(StrEnum):
    """Who vouches for a memory item."""

    REPORTED = "reported"  # seats of one lab said so: a claim
    CORROBORATED = "corroborated"  # seats of two different labs reported the same
    OBSERVED = "observed"  # the app ran the command in its proof sandbox and it passed
    HISTORY = "history"  # a maintainer's review comment the pull request addressed before its merge

    @property
    def established(self) -> bool:
        return self is not Source.REPORTED


@dataclass(frozen=True, slots=True)
class Reporter:
    """A seat that reported an item, and its lab (empty: not known, as for items kept before
    labs were recorded; an unknown lab never corroborates)."""

    seat: str
    lab: str


def labs_of(reporters: Iterable[Reporter]) -> set[str]:
    return {reporter.lab for reporter in reporters if reporter.lab}


def joined(reporters: Iterable[Reporter], more: Iterable[Reporter]) -> tuple[Reporter, ...]:
    """``reporters`` then those of ``more`` not among them, in order."""
    return tuple(dict.fromkeys((*reporters, *more)))


def reported_source(reporters: Iterable[Reporter], *, promotable: bool) -> Source:
    """Corroborated when seats of two different labs reported a promotable item, else reported."""
    if promotable and len(labs_of(reporters)) >= MIN_LABS:
        return Source.CORROBORATED
    return Source.REPORTED


def speaks_for_maintainers(text: str) -> bool:
    """Whether ``text`` claims to state what maintainers decided, approved or allow (or might: a
    text that is not plain ASCII counts, as a look-alike letter could hide a stem)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if not folded.isascii():
        return True
    letters = "".join(ch for ch in folded if "a" <= ch <= "z")
    return any(stem in letters for stem in MAINTAINER_STEMS)
