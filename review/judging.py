"""One write-back run's judging: ask the judge seat about the undecided replies it has not read."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import Engine

from continual.judge import (
    Judgement,
    Outcome,
    Question,
    Reading,
    Revision,
    ground,
    judgements,
    keep,
    undecided_replies,
)
from continual.writeback.pull import Analysis, PullState
from review.contract import CallFailed
from review.judge import ask_judge
from review.seats import TextSeat

MAX_QUESTIONS = 20  # new asks per run; the rest wait for the next run
PARALLEL_ASKS = 4
MAX_ASK_S = 60.0  # a judge slower than this (or than its seat's timeout_s) decides nothing

ABSTAINED = frozenset({Outcome.AGREED, Outcome.QUESTION, Outcome.OTHER})

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JudgeRun:
    """What one run's judging did, and the grounded verdicts and deferrals by reply id it hands
    the decision (each bound as a natural reply's is: docs/writeback.md, "The judge")."""

    verdicts: Mapping[int, Reading]
    asked: int = 0
    kept: int = 0  # answers read from earlier runs
    failed: int = 0
    abstained: int = 0  # new answers that decide nothing: agreement, a question, anything else
    waiting: int = 0  # undecided replies left for a later run by the per-run bound


async def _ask(seat: TextSeat, question: Question, gate: asyncio.Semaphore) -> Judgement:
    name = seat.config.name
    async with gate:
        try:
            timeout_s = min(seat.config.timeout_s, MAX_ASK_S)
            answer = await ask_judge(seat, question, timeout_s=timeout_s)
        except CallFailed as exc:
            log.warning(
                "judge failed",
                extra={"seat": name, "reply": question.reply.id, "reason": exc.reason.value},
            )
            return Judgement(Outcome.FAILED, None, f"{exc.reason.value}: {exc.message}")
    outcome, verdict = ground(answer, question.reply, seat=name)
    if outcome in (Outcome.OTHER_REPLY, Outcome.UNGROUNDED):
        log.info(
            "judge answer counts nothing",
            extra={"seat": name, "reply": question.reply.id, "outcome": outcome.value},
        )
    return Judgement(outcome, verdict)


async def judge_pull(
    engine: Engine,
    state: PullState,
    *,
    seat: TextSeat,
    now: int,
    limit: int = MAX_QUESTIONS,
    analysis: Analysis | None = None,
) -> JudgeRun:
    """Grounded verdicts and deferrals for the maintainer replies the rules leave undecided on
    one PR; a reply the judge abstains on (agreement, a question, anything else) has none.

    Each reply revision is asked about once per seat: every outcome is kept, a failure too (it
    decides nothing and fails nothing; an edit of the reply asks again). At most `limit` new asks
    per run, `PARALLEL_ASKS` at a time, newest replies first; kept answers are reused.
    """
    questions = undecided_replies(state, analysis)
    if not questions:
        return JudgeRun({})
    repository_id = questions[0].suggestion.repository_id
    account_id = questions[0].suggestion.account_id
    name = seat.config.name
    revisions = {question.reply.id: Revision.of(question.reply) for question in questions}

    def read() -> dict[Revision, Judgement]:
        with engine.connect() as conn:
            return judgements(conn, repository_id, name, list(revisions.values()))

    known = await asyncio.to_thread(read)
    verdicts: dict[int, Reading] = {}
    pending: list[Question] = []
    for question in questions:
        judgement = known.get(revisions[question.reply.id])
        if judgement is None:
            pending.append(question)
        elif judgement.verdict is not None:
            verdicts[question.reply.id] = judgement.verdict
    asking = pending[:limit]
    gate = asyncio.Semaphore(PARALLEL_ASKS)
    answers = await asyncio.gather(*(_ask(seat, question, gate) for question in asking))

    def write() -> None:
        with engine.begin() as conn:
            for question, judgement in zip(asking, answers, strict=True):
                keep(
                    conn,
                    account_id=account_id,
                    repository_id=repository_id,
                    seat=name,
                    revision=revisions[question.reply.id],
                    judgement=judgement,
                    now=now,
                )

    if asking:
        await asyncio.to_thread(write)
    for question, judgement in zip(asking, answers, strict=True):
        if judgement.verdict is not None:
            verdicts[question.reply.id] = judgement.verdict
    failed = sum(judgement.outcome is Outcome.FAILED for judgement in answers)
    abstained = sum(judgement.outcome in ABSTAINED for judgement in answers)
    return JudgeRun(
        verdicts,
        asked=len(asking),
        kept=len(questions) - len(pending),
        failed=failed,
        abstained=abstained,
        waiting=len(pending) - len(asking),
    )
