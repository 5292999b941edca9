"""hindsight.toml: seats, lenses and review budgets, validated with errors that name the field."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from review.config import (
    ConfigError,
    ProofPolicy,
    ReviewSettings,
    SeatKind,
    load_config,
    loads_config,
)
from review.lenses import BUILTIN_LENS_INSTRUCTIONS, DEFAULT_LENSES

FULL = """\
[[seats]]
name = "alpha"
lab = "acme-labs"
kind = "command"
command = ["python3", "seat.py"]
timeout_s = 30
pass_env = ["SEAT_LICENSE_KEY"]

[[seats]]
name = "beta"
lab = "openai"
kind = "openai"
model = "gpt-4o-mini"
api_key_env = "OPENAI_API_KEY"

[[seats]]
name = "gamma"
lab = "anthropic"
kind = "anthropic"
model = "claude-sonnet-4-5"
base_url = "http://127.0.0.1:9999/"
api_key_env = "ANTHROPIC_API_KEY"
max_tokens = 2000

[[lenses]]
name = "security"

[[lenses]]
name = "docs"
instructions = "Check that public functions are documented."

[review]
shard_chars = 1000
parallel_calls = 8
max_calls = 10
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hindsight.toml"
    path.write_text(text)
    return path


def errors_of(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        loads_config(text)
    return str(info.value)


def test_full_file_loads_into_frozen_values(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL))
    alpha, beta, gamma = config.seats
    assert alpha.kind is SeatKind.COMMAND
    assert alpha.command == ("python3", "seat.py")
    assert alpha.timeout_s == 30.0
    assert alpha.pass_env == ("SEAT_LICENSE_KEY",)
    assert beta.kind is SeatKind.OPENAI
    assert beta.base_url == "https://api.openai.com/v1"
    assert beta.timeout_s == 120.0
    assert gamma.base_url == "http://127.0.0.1:9999"
    assert gamma.max_tokens == 2000
    assert [lens.name for lens in config.lenses] == ["security", "docs"]
    assert config.lenses[0].instructions == BUILTIN_LENS_INSTRUCTIONS["security"]
    assert config.review == ReviewSettings(shard_chars=1000, parallel_calls=8, max_calls=10)
    assert config.review.memory_chars == 12_000
    assert config.seat("beta") is beta
    with pytest.raises(AttributeError):
        alpha.name = "other"  # type: ignore[misc]


def test_defaults_when_lenses_and_review_are_absent() -> None:
    config = loads_config('[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n')
    assert config.lenses == DEFAULT_LENSES
    assert [lens.name for lens in config.lenses] == [
        "correctness",
        "security",
        "performance",
        "tests",
    ]
    assert all(len(lens.instructions) > 80 for lens in config.lenses)
    assert config.review == ReviewSettings(
        shard_chars=40_000,
        parallel_calls=4,
        memory_chars=12_000,
        cross_session_chars=24_000,
        lesson_cap=20,
        max_calls=64,
    )


def test_error_names_file_table_index_and_field(tmp_path: Path) -> None:
    text = (
        '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
        '[[seats]]\nname = "b"\nkind = "command"\ncommand = ["y"]\n'
    )
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: seats[1].lab is required"
    assert info.value.problems == ("seats[1].lab is required",)


def test_every_problem_is_reported_at_once() -> None:
    message = errors_of(
        """\
        [[seats]]
        name = "a"
        lab = ""
        kind = "telepathy"
        temperature = 0.2

        [[seats]]
        name = "b"
        lab = "x"
        kind = "openai"
        command = ["nope"]
        timeout_s = -1

        [[seats]]
        name = "c"
        lab = "x"
        kind = "command"

        [review]
        shard_chars = 0
        parallel = 3
        """.replace("        ", "")
    )
    lines = message.splitlines()
    assert all(line.startswith("hindsight.toml: ") for line in lines)
    for expected in (
        "seats[0]: unknown key 'temperature'",
        "seats[0].lab must be a non-empty string",
        "seats[0].kind must be one of command, openai, anthropic, not 'telepathy'",
        "seats[1].model is required",
        "seats[1].timeout_s must be a positive number of seconds",
        'seats[1].command is only for kind = "command"',
        'seats[2].command is required for kind = "command"',
        "review.shard_chars must be a positive integer",
        "review: unknown key 'parallel'",
    ):
        assert f"hindsight.toml: {expected}" in lines, expected


def test_unknown_top_level_key_and_duplicate_names() -> None:
    message = errors_of(
        '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
        '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
        '[[lenses]]\nname = "style"\n'
        "[extras]\nx = 1\n"
    )
    assert "unknown key 'extras'" in message
    assert "seats[1].name 'a' is used by an earlier seat" in message
    assert "lenses[0].instructions is required" in message


def test_no_seats_and_bad_types_are_errors() -> None:
    assert "at least one [[seats]] table is required" in errors_of("[review]\nlesson_cap = 5\n")
    assert "seats must be an array of tables" in errors_of('seats = "alpha"\n')
    assert "review.lesson_cap must be a positive integer" in errors_of(
        '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
        "[review]\nlesson_cap = true\n"
    )
    assert "seats[0].command must be a non-empty list" in errors_of(
        '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = "x"\n'
    )
    assert "seats[0].base_url must start with http" in errors_of(
        '[[seats]]\nname = "a"\nlab = "l"\nkind = "openai"\nmodel = "m"\nbase_url = "ftp://x"\n'
    )


def test_missing_file_and_invalid_toml(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(ConfigError) as info:
        load_config(missing)
    assert str(info.value).startswith(f"{missing}: file not found")
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "[[seats]\n"))
    assert "is not valid TOML" in str(info.value)


def test_review_modules_never_import_ghapp() -> None:
    modules = [
        "config",
        "shards",
        "contract",
        "prompt",
        "seats",
        "proof",
        "sandbox",
        "memory",
        "demo_seat",
    ]
    code = (
        "import sys\n"
        + "".join(f"import review.{name}\n" for name in modules)
        + "print(sorted(m for m in sys.modules if m == 'ghapp' or m.startswith('ghapp.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_writeback_and_decisions_sections() -> None:
    seat = '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
    plain = loads_config(seat)
    assert (plain.writeback.acknowledge, plain.writeback.suppress_days) == ("comment", 180)
    assert plain.decisions.judge is None
    config = loads_config(
        seat
        + '[writeback]\nacknowledge = "reaction"\nsuppress_days = 30\n[decisions]\njudge = "a"\n'
    )
    assert (config.writeback.acknowledge, config.writeback.suppress_days) == ("reaction", 30)
    assert config.decisions.judge == "a"
    with pytest.raises(ConfigError) as caught:
        loads_config(
            seat + '[writeback]\nacknowledge = "loud"\nsuppress_days = 0\nextra = 1\n'
            '[decisions]\njudge = "nobody"\n'
        )
    text = str(caught.value)
    for problem in ("writeback.acknowledge", "writeback.suppress_days", "'extra'", "nobody"):
        assert problem in text


def test_maintenance_section_names_a_configured_seat() -> None:
    seat = '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
    assert loads_config(seat).maintenance.seat is None
    assert loads_config(seat + '[maintenance]\nseat = "a"\n').maintenance.seat == "a"
    with pytest.raises(ConfigError) as caught:
        loads_config(seat + '[maintenance]\nseat = "nobody"\nbatch = 3\n')
    assert "maintenance.seat" in str(caught.value) and "'batch'" in str(caught.value)


def test_proofs_policy() -> None:
    seat = '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
    assert loads_config(seat).review.proofs is ProofPolicy.SANDBOXED
    opted = loads_config(seat + '[review]\nproofs = "unsandboxed"\nmax_calls = 3\n')
    assert (opted.review.proofs, opted.review.max_calls) == (ProofPolicy.UNSANDBOXED, 3)
    for bad in ('"yes"', "true", "1", "[]", "{}"):
        assert 'review.proofs must be "sandboxed" or "unsandboxed"' in errors_of(
            seat + f"[review]\nproofs = {bad}\n"
        )


def test_fixes_are_off_until_enabled() -> None:
    seat = '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
    assert loads_config(seat).fixes.enabled is False
    assert loads_config(seat + "[fixes]\nenabled = true\n").fixes.enabled is True
    with pytest.raises(ConfigError) as caught:
        loads_config(seat + '[fixes]\nenabled = "yes"\nauto = 1\n')
    assert "fixes.enabled must be true or false" in str(caught.value)
    assert "'auto'" in str(caught.value)
