"""The `hindsight.maint/1` contract against a real command seat, hostile answers included."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from continual.maintenance import Action, AnchoredEntry, Anchors, Ruling
from review.contract import CallFailed
from review.maintaining import SCHEMA, Case, ask_seat, batches, build_request, parse_answer
from review.seats import make_seat
from tests.support.maint_seat import maintenance_seat

HEAD = "b" * 40
ANCHORS = Anchors(("src/app.py",), (("parse_config", "src/app.py"),))


def case(n: int, excerpt: str = "def parse_config(path):\n    return None\n") -> Case:
    lesson = AnchoredEntry(
        f"e{n}",
        n + 1,
        f"k{n}",
        "correctness",
        "Unchecked parse_config",
        "Check the result of `parse_config` in src/app.py first.",
        ANCHORS,
        "a" * 40,
    )
    rule = Ruling(lesson.entry_id, lesson.revision, Action.KEEP, "still there", HEAD, settled=False)
    return Case(lesson, rule, (("src/app.py", excerpt),))


def test_the_request_carries_frozen_revisions_rules_and_excerpts() -> None:
    request = build_request([case(1)], commit=HEAD, seat="keeper")
    assert request["schema"] == SCHEMA == "hindsight.maint/1"
    [item] = request["lessons"]
    assert (item["id"], item["revision"], item["rule"]["action"]) == ("e1", 2, "keep")
    assert item["excerpts"] == [{"path": "src/app.py", "text": case(1).excerpts[0][1]}]
    assert "e1 (revision 2" in request["prompt"] and HEAD in request["prompt"]


def test_batches_are_bounded_by_bytes_and_keep_cases_whole() -> None:
    cases = [case(n, "x = 1\n" * 200) for n in range(10)]
    parts = batches(cases, max_bytes=4_000)
    assert [c for part in parts for c in part] == cases
    assert len(parts) > 1
    for part in parts:
        size = sum(
            len(json.dumps(build_request([c], commit=HEAD, seat="s")["lessons"][0])) for c in part
        )
        assert size <= 4_000 or len(part) == 1


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"decisions": [{"id": "e1", "action": "keep"}]}, "undecided"),
        (
            {
                "decisions": [
                    {"id": "e1", "action": "keep"},
                    {"id": "e2", "action": "keep"},
                    {"id": "e1", "action": "retire"},
                ]
            },
            "twice",
        ),
        (
            {
                "decisions": [
                    {"id": "e1", "action": "keep"},
                    {"id": "e2", "action": "keep"},
                    {"id": "e9", "action": "retire"},
                ]
            },
            "not given",
        ),
        ({"decisions": [{"id": "e1", "action": "drop"}, {"id": "e2", "action": "keep"}]}, "one of"),
        ({"decisions": [{"id": "e1", "action": "adapt"}, {"id": "e2", "action": "keep"}]}, "text"),
        ({"verdicts": []}, "decisions"),
    ],
)
def test_hostile_answers_fail_the_batch(answer: object, message: str) -> None:
    with pytest.raises(CallFailed, match=message):
        parse_answer(json.dumps(answer), ["e1", "e2"])


def test_an_answer_that_is_not_json_fails() -> None:
    with pytest.raises(CallFailed, match="not valid JSON"):
        parse_answer("these look fine", ["e1"])


def run_seat(tmp_path: Path, mode: str, cases: list[Case], text: str = "") -> tuple[object, object]:
    seat = maintenance_seat(tmp_path / "seat", mode)
    seat.mode(mode, text)
    result = asyncio.run(ask_seat(make_seat(seat.config()), cases, commit=HEAD))
    return seat, result


def test_a_command_seat_decides_every_supplied_id(tmp_path: Path) -> None:
    seat, result = run_seat(tmp_path, "retire", [case(1), case(2)])
    assert result.failure is None  # type: ignore[attr-defined]
    verdicts = result.verdicts  # type: ignore[attr-defined]
    assert [(v.entry_id, v.revision, v.action, v.actor) for v in verdicts] == [
        ("e1", 2, Action.RETIRE, "seat:keeper"),
        ("e2", 3, Action.RETIRE, "seat:keeper"),
    ]
    assert [c["schema"] for c in seat.calls()] == [SCHEMA]  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", ["missing", "duplicate", "foreign", "bad-action", "not-json"])
def test_a_hostile_command_seat_publishes_nothing(tmp_path: Path, mode: str) -> None:
    _, result = run_seat(tmp_path, mode, [case(1), case(2)])
    assert result.verdicts == ()  # type: ignore[attr-defined]
    assert "batch 1 of 1" in result.failure  # type: ignore[attr-defined]


def test_an_adapted_text_is_admitted_like_new_text(tmp_path: Path) -> None:
    good = "Check what `parse_config` returns in src/app.py before use."
    _, result = run_seat(tmp_path, "adapt", [case(1)], good)
    [verdict] = result.verdicts  # type: ignore[attr-defined]
    assert (verdict.action, verdict.text) == (Action.ADAPT, good)
    _, result = run_seat(tmp_path, "adapt", [case(1)], "Check `totally_made_up_fn` before use.")
    [verdict] = result.verdicts  # type: ignore[attr-defined]
    assert verdict.action is Action.DEFER and "no-anchor" in verdict.reason
