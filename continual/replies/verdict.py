"""The verdict a reply carries, and the folding every reader of replies applies first."""

from __future__ import annotations

import re
from dataclasses import dataclass

from continual.values import Decision, Reason

_APOSTROPHE = re.compile("[\u2019\u2018\u02bc\uff07]")


@dataclass(frozen=True)
class Verdict:
    """A decision read from one reply, with the rule that read it and the text it matched."""

    decision: Decision
    reason: Reason | None
    rule: str
    span: str


def fold(text: str) -> str:
    """Lower case with typographic apostrophes made plain; the length is kept where it can be."""
    return _APOSTROPHE.sub("'", text.lower())
