"""The verdict a reply carries, and the folding every reader of replies applies first."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from continual.values import Decision, Reason

_APOSTROPHE = re.compile("[\u2019\u2018\u02bc\uff07]")


class Binding(StrEnum):
    """When a verdict read from text may decide (docs/writeback.md, "Verdicts bound to evidence").

    `at-once`: a typed command, or a maintainer's unambiguous refusal, decides when it is read.
    `evidence`: a natural acceptance decides when the code agrees (the commented lines changed
    after the suggestion, or its replacement landed); until then it is only claimed.
    `at-merge`: an argued dismissal (a reason, no refusal word) decides when the pull request
    merges or closes with the commented lines as they were.
    """

    AT_ONCE = "at-once"
    EVIDENCE = "evidence"
    AT_MERGE = "at-merge"


@dataclass(frozen=True)
class Verdict:
    """A decision read from one reply, with the rule that read it, the text it matched, and when
    that decision may bind."""

    decision: Decision
    reason: Reason | None
    rule: str
    span: str
    binding: Binding = Binding.AT_ONCE


@dataclass(frozen=True)
class Deferral:
    """A reply that puts the suggestion off to later work ("in a follow-up"): it decides nothing
    and never suppresses; the suggestion stays a candidate for a later review."""

    rule: str
    span: str


def fold(text: str) -> str:
    """Lower case with typographic apostrophes made plain; the length is kept where it can be."""
    return _APOSTROPHE.sub("'", text.lower())
