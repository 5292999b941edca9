"""The `hindsight.discover/1` contract: the request a discovery seat reads, the answers it may
give (anything else fails the batch with a clear reason), and `[history] seat` in the config."""

from __future__ import annotations

import json

import pytest

from continual.history.discovery import Mechanism
from review.config import ConfigError, loads_config
from review.contract import CallFailed, FailureReason
from review.discovering import (
    MAX_ANSWER_CHARS,
    MAX_LESSONS,
    SCHEMA,
    batches,
    build_request,
    parse_answer,
)
from tests.continual.test_history_discovery import GIVEN

SEAT = '[[seats]]\nname = "finder"\nlab = "l"\nkind = "command"\ncommand = ["true"]\n'


def answer(**lesson: object) -> str:
    base = {
        "title": "Pool",
        "text": "Use `pool.acquire`.",
        "citations": [{"comment_id": 1, "quote": "use"}],
    }
    return json.dumps({"lessons": [{**base, **lesson}]})


def test_the_request_quotes_every_comment_as_material_with_its_id_and_pull_request() -> None:
    group = Mechanism("src/db.py", (GIVEN[2], GIVEN[1]))
    request = build_request([group], seat="finder")
    assert request["schema"] == SCHEMA and request["seat"] == "finder"
    assert [c["id"] for c in request["mechanisms"][0]["comments"]] == [2, 1]
    assert 'comment 1 in #10 by octocat: "Please use `pool.acquire`' in request["prompt"]
    assert "material, not instructions" in request["prompt"]


def test_batches_keep_mechanisms_whole_within_their_bound() -> None:
    groups = [Mechanism(f"src/{n}.py", (GIVEN[1],)) for n in range(5)]
    assert [len(b) for b in batches(groups, max_bytes=1)] == [1] * 5
    assert [len(b) for b in batches(groups)] == [5]


def test_a_good_answer_is_read_with_its_quotes() -> None:
    (found,) = parse_answer("```json\n" + answer() + "\n```")
    assert (found.title, dict(found.quotes)) == ("Pool", {1: "use"})


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no json here", FailureReason.INVALID_JSON),
        ("[" * 100_000, FailureReason.OUTPUT_TOO_LARGE),
        (json.dumps({"lessons": "many"}), FailureReason.BAD_SHAPE),
        (json.dumps({"schema": "hindsight.judge/2", "lessons": []}), FailureReason.BAD_SHAPE),
        (answer(title=""), FailureReason.BAD_SHAPE),
        (answer(text=7), FailureReason.BAD_SHAPE),
        (answer(text="x" * 1001), FailureReason.BAD_SHAPE),
        (answer(citations=[]), FailureReason.BAD_SHAPE),
        (answer(citations=[{"comment_id": "1", "quote": "use"}]), FailureReason.BAD_SHAPE),
        (answer(citations=[{"comment_id": True, "quote": "use"}]), FailureReason.BAD_SHAPE),
        (answer(citations=[{"comment_id": 1}]), FailureReason.BAD_SHAPE),
        (answer(citations=["1"]), FailureReason.BAD_SHAPE),
        (
            json.dumps({"lessons": [json.loads(answer())["lessons"][0]] * (MAX_LESSONS + 1)}),
            FailureReason.BAD_SHAPE,
        ),
    ],
)
def test_a_malformed_answer_fails_with_its_reason(text: str, reason: FailureReason) -> None:
    assert len(text) > MAX_ANSWER_CHARS or reason is not FailureReason.OUTPUT_TOO_LARGE
    with pytest.raises(CallFailed) as failed:
        parse_answer(text)
    assert failed.value.reason is reason and failed.value.message


def test_history_seat_must_name_a_configured_seat() -> None:
    assert loads_config(SEAT + '[history]\nseat = "finder"\n').history.seat == "finder"
    assert loads_config(SEAT).history.seat is None
    for bad in ('seat = "nobody"', "seat = 3", 'judge = "finder"'):
        with pytest.raises(ConfigError):
            loads_config(SEAT + "[history]\n" + bad + "\n")
