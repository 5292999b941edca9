"""The `hindsight.judge/1` contract and one run's judging, against real command and HTTP seats."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from continual.judge import JudgeAnswer, undecided_replies
from continual.values import Decision
from continual.writeback.pull import PullState
from review.config import SeatConfig, SeatKind
from review.contract import CallFailed, FailureReason
from review.judge import SCHEMA, SYSTEM_PROMPT, build_judge_request, parse_judge_answer
from review.judging import judge_pull
from review.seats import TextSeat, make_seat
from tests.continual.test_pull import CONTRIBUTOR, comment, pull, reply
from tests.support.judge_seat import JudgeSeat, command_judge
from tests.support.seat_servers import API_KEY, MODEL, Provider, openai_app, serve
from tests.support.store import seed_tenant, stored_suggestion

KNOWN = (stored_suggestion("s1", title="Unchecked parse_config result", body="May be None."),)
FIRST = "I went with the approach from the other module in the end."
SECOND = "Let me look at the tracing output first."
THIRD = "The staging config covers this path with its own guard."


def state_with(*bodies: str) -> PullState:
    comments = [comment(100, "s1"), reply(1, "why?", 100, author=CONTRIBUTOR)]
    comments += [reply(10 + i, body, 100) for i, body in enumerate(bodies)]
    return pull(*comments, known=KNOWN)


def command_seat(tmp_path: Path, answers: dict[str, Any]) -> tuple[JudgeSeat, TextSeat]:
    judge = command_judge(tmp_path / "judge", timeout_s=5)
    judge.answer(answers)
    config = SeatConfig(
        name="judge",
        lab="judge-labs",
        kind=SeatKind.COMMAND,
        command=(sys.executable, str(tmp_path / "judge" / "judge.py")),
        write=(str(tmp_path / "judge"),),  # where it logs the requests it was sent
        timeout_s=5,
    )
    return judge, make_seat(config)


def test_the_request_carries_suggestion_thread_and_reply() -> None:
    [question] = undecided_replies(state_with(FIRST))
    seat = SeatConfig(name="judge", lab="judge-labs", kind=SeatKind.COMMAND, command=("x",))
    request = build_judge_request(question, seat=seat)
    assert request["schema"] == SCHEMA == "hindsight.judge/1"
    assert request["suggestion"] == {
        "id": "s1",
        "title": "Unchecked parse_config result",
        "body": "May be None.",
        "path": "src/app.py",
    }
    assert [(line["id"], line["author"], line["association"]) for line in request["thread"]] == [
        (100, "hindsight[bot]", "NONE"),
        (1, "drive-by", "CONTRIBUTOR"),
        (10, "octocat", "OWNER"),
    ]
    assert request["thread"][1]["body"] == "why?"
    assert request["reply"] == {"id": 10, "author": "octocat", "body": FIRST}
    assert "false-positive" in request["reasons"]
    assert FIRST in request["prompt"] and "why?" in request["prompt"]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('{"decision": "none", "reason": "", "quote": ""}', JudgeAnswer("none", "", "")),
        (
            'Sure:\n```json\n{"decision": "accepted", "quote": "went", "reply_id": 4}\n```',
            JudgeAnswer("accepted", "", "went", 4),
        ),
    ],
)
def test_answers_are_read_leniently_where_harmless(text: str, answer: JudgeAnswer) -> None:
    assert parse_judge_answer(text) == answer


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"decision": "accepted", "quote": ', FailureReason.INVALID_JSON),
        ("I think they liked it.", FailureReason.INVALID_JSON),
        ('["accepted"]', FailureReason.BAD_SHAPE),
        ('{"decision": "accept", "quote": "x"}', FailureReason.BAD_SHAPE),
        ('{"decision": "accepted", "quote": 3}', FailureReason.BAD_SHAPE),
        ('{"decision": "accepted", "quote": "x", "reason": null}', FailureReason.BAD_SHAPE),
        ('{"decision": "accepted", "quote": "x", "reply_id": true}', FailureReason.BAD_SHAPE),
        ('{"decision": "accepted", "quote": "x", "reply_id": "10"}', FailureReason.BAD_SHAPE),
    ],
)
def test_malformed_answers_fail(text: str, reason: FailureReason) -> None:
    with pytest.raises(CallFailed) as failed:
        parse_judge_answer(text)
    assert failed.value.reason is reason


def test_asks_are_bounded_per_run_and_answers_reused(engine: Engine, tmp_path: Path) -> None:
    seed_tenant(engine)
    answers = {
        body: {"decision": "accepted", "reason": "", "quote": body[:12]}
        for body in (FIRST, SECOND, THIRD)
    }
    judge, seat = command_seat(tmp_path, answers)
    state = state_with(FIRST, SECOND, THIRD)
    run = asyncio.run(judge_pull(engine, state, seat=seat, now=1, limit=2))
    assert sorted(call["body"] for call in judge.calls()) == sorted([THIRD, SECOND])  # newest
    assert (run.asked, run.kept, run.deferred, sorted(run.verdicts)) == (2, 0, 1, [11, 12])
    run = asyncio.run(judge_pull(engine, state, seat=seat, now=2, limit=2))
    assert judge.calls()[-1]["body"] == FIRST and len(judge.calls()) == 3
    assert (run.asked, run.kept, run.deferred, sorted(run.verdicts)) == (1, 2, 0, [10, 11, 12])
    assert run.verdicts[10].decision is Decision.ACCEPTED and run.verdicts[10].span == FIRST[:11]
    run = asyncio.run(judge_pull(engine, state, seat=seat, now=3))
    assert len(judge.calls()) == 3 and run.asked == 0 and run.kept == 3


def test_a_judge_that_cannot_run_decides_nothing_and_fails_nothing(
    engine: Engine, tmp_path: Path
) -> None:
    seed_tenant(engine)
    missing = SeatConfig(
        name="judge", lab="l", kind=SeatKind.COMMAND, command=(str(tmp_path / "no-such-judge"),)
    )
    run = asyncio.run(judge_pull(engine, state_with(FIRST), seat=make_seat(missing), now=1))
    assert (run.verdicts, run.asked, run.failed) == ({}, 1, 1)
    script = tmp_path / "crash.py"
    script.write_text("import sys\nsys.exit(3)\n")
    crashing = SeatConfig(
        name="other", lab="l", kind=SeatKind.COMMAND, command=(sys.executable, str(script))
    )
    run = asyncio.run(judge_pull(engine, state_with(FIRST), seat=make_seat(crashing), now=1))
    assert (run.verdicts, run.asked, run.failed) == ({}, 1, 1)


def http_judge_seat(url: str, timeout_s: float = 5) -> TextSeat:
    config = SeatConfig(
        name="judge",
        lab="judge-labs",
        kind=SeatKind.OPENAI,
        model=MODEL,
        base_url=f"{url}/v1",
        api_key_env="LOOPBACK_KEY",
        timeout_s=timeout_s,
    )
    return make_seat(config, environ={"LOOPBACK_KEY": API_KEY})


def test_an_http_judge_gets_the_judge_prompt_and_its_errors_decide_nothing(engine: Engine) -> None:
    seed_tenant(engine)

    async def scenario() -> None:
        answer = {
            "decision": "dismissed",
            "reason": "style",
            "quote": "the approach",
            "reply_id": 10,
        }
        provider = Provider(answer=answer)
        async with serve(openai_app(provider), provider) as url:
            seat = http_judge_seat(url)
            run = await judge_pull(engine, state_with(FIRST), seat=seat, now=1)
        [sent] = provider.requests
        system, user = sent["json"]["messages"]
        assert system["content"] == SYSTEM_PROMPT and FIRST in user["content"]
        assert run.verdicts[10].reason is not None and run.verdicts[10].span == "the approach"

        for mode in ("error", "hang", "garbage"):
            provider = Provider(mode=mode, answer=answer)
            async with serve(openai_app(provider), provider) as url:
                seat = http_judge_seat(url, timeout_s=0.5)
                body = f"{SECOND} ({mode})"
                run = await judge_pull(engine, state_with(body), seat=seat, now=1)
            assert (run.verdicts, run.failed) == ({}, 1), mode

    asyncio.run(scenario())
