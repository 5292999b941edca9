"""Lesson admission: the table of what is admitted and at which stage the rest is rejected."""

from __future__ import annotations

import logging

import pytest

from continual.admission import MAX_TEXT_BYTES, MAX_TITLE_BYTES, admit, sentences

PATHS = ("src/app.py", "src/config/loader.py")
IDENTIFIERS = ("parse_config", "LoaderError", "retry")
TITLE = "Unchecked parse_config result"

GH_TOKEN = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
AWS_ID = "AKIA" + "IOSFODNN7EXAMPL" + "Q"
JWT = (
    "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = "-----BEGIN EC " + "PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5\n"

CASES: list[tuple[str, str | None]] = [
    # admitted
    ("Check the result of `parse_config` in src/app.py before using it.", None),
    ("Validate the keys `parse_config` returns. An empty file yields None.", None),
    ("Never call parse_config twice in one request.", None),
    ("Don't swallow LoaderError in loader.py; re-raise it with the path.", None),
    ("Do not retry `parse_config` on a LoaderError.", None),
    ("Always close the handle opened in src/config/loader.py.", None),
    ("When loading settings in app.py, validate every key before use.", None),
    ("Prefer `parse_config` over reading the TOML by hand, e.g. in tests.", None),
    ("Guard parse_config() against a missing file!", None),
    ("Escape user input before loader.py formats it into SQL.", None),
    ("Use src/app.py's settings object instead of os.environ.", None),
    ("Handle LoaderError in app.py.", None),
    # empty
    ("", "empty"),
    ("   ", "empty"),
    # too long (bytes, not characters: 'é' is two bytes)
    ("Check parse_config " + "é" * 320 + ".", "too-long"),
    ("Check parse_config in app.py. " + "x" * MAX_TEXT_BYTES, "too-long"),
    # sentences
    ("Check parse_config in app.py. It can fail. Then log it.", "sentences"),
    ("Check parse_config. Validate it. Close it. Log it.", "sentences"),
    # not imperative
    ("This function should validate parse_config input.", "not-imperative"),
    ("We should check parse_config in app.py.", "not-imperative"),
    ("The code in app.py ignores the parse_config result.", "not-imperative"),
    ("parse_config returns None on an empty file.", "not-imperative"),
    ("Should we validate parse_config in app.py?", "not-imperative"),
    ("Check parse_config in app.py, maybe?", "not-imperative"),
    ("It is important to check parse_config.", "not-imperative"),
    ("When loading app.py we should validate parse_config.", "not-imperative"),
    ("Checked parse_config in app.py.", "not-imperative"),
    ("Never the parse_config in app.py.", "not-imperative"),
    ("Always parse_config in app.py.", "not-imperative"),
    # no anchor
    ("Check the result before using it.", "no-anchor"),
    ("Validate the config loader's output.", "no-anchor"),  # 'loader' is not 'loader.py'
    ("Check the data.py module first.", "no-anchor"),  # another file
    ("Retry the request.", "no-anchor"),  # 'retry' is a word here, not `retry`
    # line pointers
    ("Check the result at src/app.py:12 before using it.", "line-pointer"),
    ("Check parse_config at app.py:12:3.", "line-pointer"),
    ("Check parse_config, see app.py#L12.", "line-pointer"),
    ("Check parse_config on line 12 of app.py.", "line-pointer"),
    ("Check parse_config; line 40 in src/config/loader.py is wrong.", "line-pointer"),
    ("Check parse_config at src/config/loader:7.", "line-pointer"),
    # secrets, one per kind
    (f"Rotate {GH_TOKEN} used by app.py.", "secret"),
    (f"Remove {AWS_ID} from src/app.py.", "secret"),
    (f"Never log {JWT} in app.py.", "secret"),
    (f"Remove the key in app.py: {PEM}", "secret"),
    ("Remove `password = 'Xk29fjQ8vLz0pR7mWq3T'` from app.py.", "secret"),
    (
        "Rotate the webhook " + "xoxb-" + "2637485910-4859372615-aB3dE5fG7hJ9kL1m in app.py.",
        "secret",
    ),
    ("Revoke " + "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc in app.py.", "secret"),
    ("Revoke " + "glpat-" + "xY7zQ2mN9pL4kR8tV1wB in app.py.", "secret"),
    ("Revoke " + "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY in app.py.", "secret"),
]


@pytest.mark.parametrize(("text", "stage"), CASES)
def test_admission_table(text: str, stage: str | None) -> None:
    verdict = admit(title=TITLE, text=text, context_paths=PATHS, context_identifiers=IDENTIFIERS)
    assert verdict.stage == stage
    assert verdict.admitted is (stage is None)
    assert verdict.message


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize(
    ("title", "stage"),
    [
        ("x" * MAX_TITLE_BYTES, None),
        ("x" * (MAX_TITLE_BYTES + 1), "title-too-long"),
        ("é" * (MAX_TITLE_BYTES // 2 + 1), "title-too-long"),
        ("", "empty"),
        (f"Leaked {GH_TOKEN}", "secret"),
        ("Unchecked result at src/app.py:12", "line-pointer"),
    ],
)
def test_title_rules(title: str, stage: str | None) -> None:
    verdict = admit(
        title=title,
        text="Check the result of `parse_config` in src/app.py.",
        context_paths=PATHS,
        context_identifiers=IDENTIFIERS,
    )
    assert verdict.stage == stage


def test_text_at_exactly_the_byte_limit_is_admitted() -> None:
    head = "Check parse_config in app.py"
    text = head + " " + "x" * (MAX_TEXT_BYTES - len(head) - 2) + "."
    assert len(text.encode()) == MAX_TEXT_BYTES
    verdict = admit(title=TITLE, text=text, context_paths=PATHS, context_identifiers=IDENTIFIERS)
    assert verdict.admitted


def test_anchor_by_basename_and_backticks() -> None:
    for text in ("Close the handle in `loader.py`.", "Close the handle in loader.py."):
        verdict = admit(title=TITLE, text=text, context_paths=PATHS, context_identifiers=())
        assert verdict.admitted, text


def test_short_identifiers_never_anchor() -> None:
    verdict = admit(
        title=TITLE,
        text="Check a value before use.",
        context_paths=(),
        context_identifiers=("a", "id"),
    )
    assert verdict.stage == "no-anchor"


def test_rejection_logs_the_stage_and_never_the_text(caplog: pytest.LogCaptureFixture) -> None:
    text = f"Rotate {GH_TOKEN} used by app.py."
    with caplog.at_level(logging.INFO, logger="continual.admission"):
        verdict = admit(title=TITLE, text=text, context_paths=PATHS, context_identifiers=())
    assert verdict.stage == "secret"
    assert [getattr(r, "stage", None) for r in caplog.records] == ["secret"]
    for record in caplog.records:
        rendered = record.getMessage() + repr(record.__dict__)
        assert GH_TOKEN not in rendered
        assert "Rotate" not in rendered
    assert GH_TOKEN not in verdict.message


def test_admission_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="continual.admission"):
        verdict = admit(
            title=TITLE,
            text="Check parse_config in app.py.",
            context_paths=PATHS,
            context_identifiers=IDENTIFIERS,
        )
    assert verdict.admitted
    assert caplog.records == []


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Check x.", 1),
        ("Check src/a.py and obj.method() first.", 1),
        ("Check `a. b. c` in a.py. Then stop.", 2),
        ("Avoid loops, e.g. in a.py, i.e. hot paths.", 1),
        ("One. Two! Three?", 3),
        ("No full stop at the end", 1),
    ],
)
def test_sentence_split(text: str, count: int) -> None:
    assert len(sentences(text)) == count
