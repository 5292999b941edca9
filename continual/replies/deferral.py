"""Replies that put a suggestion off to later work: recorded as deferred, never a decision."""

from __future__ import annotations

import re

from continual.replies.verdict import Deferral, fold

RULE = "natural.deferred"

_DEFERRAL = re.compile(
    r"\b(?:in|for|as) an? (?:follow[- ]?up|separate|future|later|another|next|new|different)"
    r"(?: (?:pr|pull request|issue|change|commit|patch|ticket|iteration|release|version))?\b"
    r"|\bfollow[- ]?up (?:pr|pull request|issue|ticket|work|change)\b"
    r"|\b(?:not|out of scope) (?:in|for) this (?:pr|pull request|change)\b"
    r"|\b(?:will|i'll|we'll|can|could|let's|lets) (?:\w+ ){0,3}(?:later|eventually|another time)\b"
    r"|\bleave (?:it|this|that) for (?:later|now|another)\b"
    r"|\bopened (?:an? )?(?:issue|ticket)\b|\b(?:todo|fixme)\b"
)


def read_deferral(text: str) -> Deferral | None:
    """The deferral a reply states ("let's do that in a follow-up"), or None."""
    match = _DEFERRAL.search(fold(text))
    if match is None:
        return None
    return Deferral(RULE, text[match.start() : match.end()])
