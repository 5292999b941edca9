"""Hostile reply text: each shape that once took seconds runs in a child process with a deadline,
so a regression fails the test instead of hanging the suite (timings: bench/untrusted_text.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_SECONDS = 10
PRELUDE = """
from continual.judge.questions import undecided_replies
from continual.replies import classify_reply, classify_typed, is_undo
"""


def run(code: str) -> str:
    """Run `code` after PRELUDE in a fresh interpreter; its stdout, or a failure at the deadline."""
    try:
        result = subprocess.run(
            [sys.executable, "-c", PRELUDE + code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=DEADLINE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading the reply took more than {DEADLINE_SECONDS} s")
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


# A mention, a long run the command word never follows: every split of the run was tried between
# two quantifiers of the typed address (16,000 spaces took 23 s).
@pytest.mark.parametrize(
    "body",
    [
        '"@a" + " " * 16_000 + "x"',
        '"@a[bot]" + "\\t " * 8_000 + "/ x"',
    ],
    ids=["spaces", "bot-tabs"],
)
def test_a_long_run_after_the_typed_address_is_read_at_once(body: str) -> None:
    out = run(
        f"body = {body}\n"
        "print(classify_reply(body, app_slug='hindsight'), is_undo(body, app_slug='hindsight'),"
        " classify_typed(body, app_slug='hindsight'))"
    )
    assert out == "None False None"


def test_the_address_still_reads_commands_after_a_long_run() -> None:
    out = run(
        "body = '@hindsight' + ' ' * 16_000 + 'dismiss false-positive'\n"
        "verdict = classify_reply(body, app_slug='hindsight')\n"
        "print(verdict.decision, verdict.reason, is_undo('@hindsight' + ' ' * 16_000 + 'undo',"
        " app_slug='hindsight'))"
    )
    assert out == "dismissed false-positive True"


# A finding's lesson is searched for a `name.py#L12` pointer: from every character of a long name
# the scan ran to its end (32,768 characters of `a-` took 12 s).
def test_a_long_name_in_a_lesson_is_searched_for_a_line_pointer_at_once() -> None:
    out = run(
        "from continual.admission import find_line_pointer\n"
        "print(find_line_pointer('a-' * 32_768), find_line_pointer('a-' * 32_768 + '.py#L12'))"
    )
    assert out == "None (0, 65543)"
