"""The judge's pure side: which replies it reads, what its answers may decide, what is kept."""

from __future__ import annotations

from continual.judge.cache import (
    Judgement,
    Revision,
    judgements,
    keep,
)
from continual.judge.grounding import (
    CONTRACT,
    RULE_PREFIX,
    Category,
    JudgeAnswer,
    Outcome,
    Reading,
    ground,
    judge_rule,
)
from continual.judge.questions import Question, undecided_replies

__all__ = [
    "CONTRACT",
    "RULE_PREFIX",
    "Category",
    "JudgeAnswer",
    "Judgement",
    "Outcome",
    "Question",
    "Reading",
    "Revision",
    "ground",
    "judge_rule",
    "judgements",
    "keep",
    "undecided_replies",
]
