"""One analysis per write-back: the plan of the door's reads, the judge's questions and the
decision read the threads built once and each reply classified once."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from continual.judge import undecided_replies
from continual.replies import classify_reply
from continual.writeback.pull import analyse, decide_pull, plan_reads
from continual.writeback.signals import Merge, Reaction
from continual.writeback.threads import build_threads
from tests.continual.test_pull import CONTRIBUTOR, T0, comment, pull, reply
from tests.support.store import stored_suggestion

KNOWN = tuple(stored_suggestion(sid) for sid in ("s1", "s2", "s3"))
COMMENTS = (
    comment(100, "s1"),
    reply(101, "accept", 100),
    comment(200, "s2"),
    reply(201, "I went with the approach from the other module in the end.", 200),
    reply(202, "Fixed, thanks!", 200, author=CONTRIBUTOR),
    comment(300, "s3"),
    reply(301, "dismiss wont-fix", 300),
    reply(302, "undo", 300),
)


def counting(monkeypatch: pytest.MonkeyPatch, function: Callable[..., Any]) -> Counter[object]:
    """Count the calls of `function` by first argument, in every loaded module that holds it."""
    calls: Counter[object] = Counter()

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[args[0] if isinstance(args[0], str) else "threads"] += 1
        return function(*args, **kwargs)

    name = function.__name__
    for module in list(sys.modules.values()):
        if module is not None and vars(module).get(name) is function:
            monkeypatch.setattr(module, name, counted)
    return calls


def test_plans_questions_and_decision_share_one_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    built = counting(monkeypatch, build_threads)
    classified = counting(monkeypatch, classify_reply)
    state = pull(*COMMENTS, known=KNOWN, pr_author=CONTRIBUTOR)
    analysis = analyse(state)
    assert plan_reads(state, analysis).signals, "two threads have no reply decision"
    reactions = {200: (Reaction("quiet", False, "+1", T0),)}
    merged = replace(state, reactions=reactions, merge=Merge("octocat", False, T0))
    plan = plan_reads(merged, analysis)
    assert plan.unknown_actors == ("quiet",)
    questions = undecided_replies(merged, analysis)
    decided = decide_pull(merged, analysis=analysis)
    assert [q.reply.id for q in questions] == [302, 201]
    assert [(d.suggestion_id, d.decision.value) for d in decided.decisions] == [("s1", "accepted")]
    assert decided.undone == ("s3",)
    assert built == {"threads": 1}
    assert set(classified.values()) == {1}, classified
    assert {"accept", "Fixed, thanks!"} <= set(classified), "the replies a rule reads"
