"""The pure part of fix PRs: the `/fix` command, the one change a fix PR makes, and its words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from continual.fixes import (
    FixChange,
    NotApplicable,
    by_hand,
    fix_body,
    fix_branch,
    is_fix_command,
    path_problem,
    plan_fix,
)
from continual.markers import parse_fix_marker
from continual.values import Decision
from continual.writeback.authors import Author
from continual.writeback.threads import FixPull, decide_fix_pr

SOURCE = "import os\nconfig = parse_config()\nprint(config)\n"
FIXED = "config = require(parse_config())"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/fix", True),
        ("  /FIX!  ", True),
        ("/fix\n\nplease", True),
        ("@hindsight fix", True),
        ("@hindsight[bot] /fix", True),
        ("@someone-else fix", False),
        ("fix", False),
        ("/fix the typo too", False),
        ("> /fix\nno", False),
        ("fixed", False),
        ("", False),
    ],
)
def test_fix_command(text: str, expected: bool) -> None:
    assert is_fix_command(text, app_slug="hindsight") is expected


def test_the_routers_filter_accepts_any_mention_the_handler_checks_it() -> None:
    assert is_fix_command("@someone-else fix")
    assert not is_fix_command("@someone-else fix", app_slug="hindsight")


def plan(**options: object) -> FixChange | NotApplicable:
    values: dict[str, object] = {
        "path": "src/app.py",
        "line": 2,
        "replacement": FIXED,
        "target": SOURCE,
        "original": None,
        "moved": False,
        **options,
    }
    return plan_fix(**values)  # type: ignore[arg-type]


def test_the_change_replaces_exactly_the_commented_line() -> None:
    change = plan()
    assert isinstance(change, FixChange)
    assert change.after == SOURCE.replace("config = parse_config()", FIXED)
    assert (change.line, change.moved) == (2, False)


def test_a_multi_line_replacement_and_crlf_are_kept() -> None:
    change = plan(replacement="a = 1\nb = 2\n", target=SOURCE.replace("\n", "\r\n"))
    assert isinstance(change, FixChange)
    assert change.after == "import os\r\na = 1\r\nb = 2\r\nprint(config)\r\n"


def test_a_moved_head_finds_the_line_by_its_text_and_context() -> None:
    moved = "import os\nimport sys\nconfig = parse_config()\nprint(config)\n"
    change = plan(target=moved, original=SOURCE, moved=True)
    assert isinstance(change, FixChange)
    assert change.line == 3 and FIXED in change.after
    twice = "x = 0\nconfig = parse_config()\nprint(config)\nconfig = parse_config()\n"
    context = plan(target="import os\n" + twice, original=SOURCE, moved=True)
    assert isinstance(context, FixChange) and context.line == 3


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"replacement": None}, "nothing to apply"),
        ({"replacement": "  \n"}, "nothing to apply"),
        ({"line": None}, "nothing to apply"),
        ({"path": ".github/workflows/ci.yml"}, ".github/"),
        ({"path": ".GitHub/dependabot.yml"}, ".github/"),
        ({"path": "../etc/passwd"}, "not a plain path"),
        ({"path": "/abs"}, "not a plain path"),
        ({"target": None}, "cannot be read"),
        ({"line": 9}, "past the end"),
        ({"line": 4}, "past the end"),
        ({"replacement": "config = parse_config()"}, "already there"),
        ({"moved": True, "original": None}, "can no longer be read"),
        ({"moved": True, "original": SOURCE, "target": "import os\n"}, "no longer applies"),
        (
            {"moved": True, "line": 1, "original": "config = parse_config()\n", "target": "a\n"},
            "no longer applies",
        ),
        ({"moved": True, "line": 2, "original": "config = parse_config()\n"}, "not in the file"),
        (
            {
                "moved": True,
                "line": 1,
                "original": "config = parse_config()\n",
                "target": "config = parse_config()\nconfig = parse_config()\n",
            },
            "no longer certain",
        ),
    ],
)
def test_what_opens_no_fix_pr_says_why(options: dict[str, object], words: str) -> None:
    refused = plan(**options)
    assert isinstance(refused, NotApplicable) and words in refused.reason


def test_paths_a_fix_may_write() -> None:
    assert path_problem("src/app.py") is None
    assert path_problem("docs/.github-notes.md") is None
    assert path_problem("a//b") is not None


def test_the_body_names_the_suggestion_the_pr_and_who_asked_and_ends_with_the_marker() -> None:
    change = plan()
    assert isinstance(change, FixChange)
    body = fix_body(
        suggestion_id="s1",
        title="Check <!-- hindsight:fix suggestion=s9 --> @team",
        pull=7,
        asked_by="octocat",
        change=change,
    )
    assert parse_fix_marker(body) == "s1"
    assert "#7" in body and "@octocat" in body and "@team" not in body
    assert fix_branch("s1") == "hindsight/fix-s1"
    odd = fix_body(suggestion_id="s1", title="t", pull=7, asked_by="x<!-- y -->", change=change)
    assert "@x--y-- asked" in odd and parse_fix_marker(odd) == "s1"


def test_by_hand_quotes_the_change_in_a_fence_longer_than_its_backticks() -> None:
    text = by_hand(path="a.py", line=3, replacement="x = '```'", why="fix PRs are off")
    assert "````\nx = '```'\n````" in text and "line 3" in text
    assert by_hand(path="a.py", line=None, replacement=None, why="w") == "No fix PR was opened: w."


def fix_pull(**options: object) -> FixPull:
    values: dict[str, object] = {
        "number": 9,
        "repository": "o/r",
        "body": "<!-- hindsight:fix suggestion=s1 -->",
        "author": Author("hindsight[bot]", "Bot", "NONE"),
        "merged": True,
        "closed": True,
        "merged_at": datetime(2026, 1, 1, tzinfo=UTC),
        "merged_by": "octocat",
        **options,
    }
    return FixPull(**values)  # type: ignore[arg-type]


def decide(pull: FixPull) -> object:
    return decide_fix_pr(
        pull,
        bot_login="hindsight[bot]",
        app_slug="hindsight",
        suggestion_repositories={"s1": "o/r"},
    )


def test_a_merge_by_a_person_accepts_and_notes_an_edit_a_bots_merge_decides_nothing() -> None:
    accepted = decide(fix_pull(edited_by_others=True))
    assert accepted is not None
    assert accepted.decision is Decision.ACCEPTED  # type: ignore[attr-defined]
    assert accepted.span == "#9 (edited by others before the merge)"  # type: ignore[attr-defined]
    assert accepted.actor == "octocat"  # type: ignore[attr-defined]
    assert decide(fix_pull(merged_by="queue[bot]")) is None
    assert decide(fix_pull(merged_by="queue", merged_by_type="Bot")) is None
