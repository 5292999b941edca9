"""The judge's pure side: which replies it reads, what its answers may decide, what is kept."""

from __future__ import annotations

from continual.judge.cache import (
    Judgement,
    Revision,
    judgements,
    keep,
)
from continual.judge.grounding import RULE_PREFIX, JudgeAnswer, Outcome, ground, judge_rule
from continual.judge.questions import Question, undecided_replies

__all__ = [
    "RULE_PREFIX",
    "JudgeAnswer",
    "Judgement",
    "Outcome",
    "Question",
    "Revision",
    "ground",
    "judge_rule",
    "judgements",
    "keep",
    "undecided_replies",
]
