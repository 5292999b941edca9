"""The command line as an operator meets it: help everywhere, settings errors naming the setting,
no database made by a read-only command, `init`, `--state`, `recall --account|--all`."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Engine

from ghapp.cli import main as cli_main
from ghapp.cli.commands import build_parser
from ghapp.cli.template import HINDSIGHT_TOML, hindsight_toml
from ghapp.jobs import now_ms
from ghapp.settings import Settings, SettingsError
from review.config import SeatKind, load_config
from tests.support.recall import accept, seed

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def quiet_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)


def _parsers(
    parser: argparse.ArgumentParser, path: str = "hindsight"
) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found.extend(_parsers(child, f"{path} {name}"))
    return found


def test_every_command_and_option_has_help() -> None:
    missing = []
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                described = {choice.dest for choice in action._choices_actions if choice.help}
                missing += [f"{path} {name}" for name in action.choices if name not in described]
            elif not action.help:
                missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("nonsense", "not a database URL"),
        ("mysql://user@db.example/hindsight", "mysql databases are not supported"),
        ("postgresql+psycopg2://user@db.example/hindsight", "driver"),
        ("postgresql+psycopg://nobody@127.0.0.1:1/hindsight", "cannot use the database"),
        ("sqlite:///:memory:", "SQLite needs a file"),
        ("sqlite:////proc/hindsight/h.db", "no folder /proc/hindsight for the database h.db"),
        ("sqlite:///missing/folder/h.db", "no folder missing/folder for the database h.db"),
    ],
)
def test_a_bad_database_url_is_one_line_naming_the_setting(
    url: str,
    says: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", url)
    assert cli_main(["migrate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "HINDSIGHT_DATABASE_URL" in err and says in err
    assert list(tmp_path.iterdir()) == [], "no folder and no empty database were made"


def test_an_unreachable_database_stops_serve_without_a_traceback(tmp_path: Path) -> None:
    key_file = tmp_path / "app.pem"
    key_file.write_text(rsa_pem())
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HINDSIGHT_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/hindsight",
        "HINDSIGHT_GITHUB_APP_ID": "1",
        "HINDSIGHT_GITHUB_PRIVATE_KEY_FILE": str(key_file),
        "HINDSIGHT_WEBHOOK_SECRET": "s" * 16,
    }
    result = subprocess.run(
        [sys.executable, "-m", "ghapp.cli", "serve", "--no-review"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("hindsight: HINDSIGHT_DATABASE_URL: cannot use the database")
    assert "Connection refused" in result.stderr or "connection failed" in result.stderr


def rsa_pem() -> str:
    from tests.support.simulator import app_key

    return app_key().private_pem


def test_an_ec_key_is_refused_naming_the_setting(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    key_file = tmp_path / "ec.pem"
    key_file.write_text(pem)
    inline = Settings(github_app_id=1, github_private_key=pem, webhook_secret="s")  # type: ignore[arg-type]
    with pytest.raises(
        SettingsError, match="HINDSIGHT_GITHUB_PRIVATE_KEY is an EC key, not an RSA"
    ):
        inline.require_github()
    from_file = Settings(github_app_id=1, github_private_key_file=key_file, webhook_secret="s")  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="HINDSIGHT_GITHUB_PRIVATE_KEY_FILE is an EC key"):
        from_file.require_github()
    rsa = Settings(github_app_id=1, github_private_key=rsa_pem(), webhook_secret="s" * 16)  # type: ignore[arg-type]
    rsa.require_github()


@pytest.mark.parametrize(
    "command",
    [
        ["ledger"],
        ["recall", "--all"],
        ["jobs", "list"],
        ["tokens", "list", "--account", "octo"],
        ["purge", "--account", "octo", "--yes"],
    ],
)
def test_read_only_commands_never_create_a_database(
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HINDSIGHT_DATABASE_URL", raising=False)
    assert cli_main(command) == 2
    err = capsys.readouterr().err
    assert "no database at hindsight.db" in err and "HINDSIGHT_DATABASE_URL" in err
    assert list(tmp_path.iterdir()) == [], "nothing was created"


def test_migrate_says_how_many_it_applied_and_no_alembic_chatter(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HINDSIGHT_DATABASE_URL": "sqlite:///h.db"}
    said = []
    for _ in range(2):
        result = subprocess.run(
            [sys.executable, "-m", "ghapp.cli", "migrate"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert result.stderr == "", "no INFO lines from alembic"
        said.append(result.stdout.strip())
    versions = len(list((ROOT / "ghapp" / "migrations" / "versions").glob("*.py")))
    assert said == [
        f"hindsight: applied {versions} migrations; the database at sqlite:///h.db is up to date",
        "hindsight: the database at sqlite:///h.db was already up to date (none applied)",
    ]


def test_jobs_state_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli_main(["jobs", "list", "--state", "bogus"])
    assert exited.value.code == 2
    assert "invalid choice: 'bogus'" in capsys.readouterr().err


def test_init_writes_a_configuration_the_parser_reads_and_keeps_an_existing_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "conf" / "hindsight.toml"
    monkeypatch.setenv("HINDSIGHT_CONFIG", str(target))
    assert cli_main(["init"]) == 0
    config = load_config(target)
    assert [(seat.kind, seat.command) for seat in config.seats] == [
        (SeatKind.COMMAND, (sys.executable, "-m", "review.example_seat"))
    ], "one seat, needing no key, run by this interpreter"
    assert 'api_key_env = "OPENAI_API_KEY"' in target.read_text(), "the model seats, commented"
    assert [lens.name for lens in config.lenses] == ["correctness", "security"]
    text = target.read_text()
    for section in ("[review]", "[writeback]", "[decisions]", "# [maintenance]", 'seat = "'):
        assert section in text

    target.write_text("# mine\n")
    capsys.readouterr()
    assert cli_main(["init"]) == 1
    assert "already exists" in capsys.readouterr().err and target.read_text() == "# mine\n"
    assert cli_main(["init", "--force"]) == 0
    assert target.read_text() == hindsight_toml(sys.executable)


def test_the_example_configuration_is_what_init_writes() -> None:
    assert (ROOT / "examples" / "hindsight.toml").read_text() == HINDSIGHT_TOML


@pytest.fixture
def two_accounts(
    engine: Engine, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number, login in ((1, "octo"), (2, "other")):
        tenant = seed(engine, number, login, "app")
        accept(engine, tenant, f"{login}/app", at=now_ms())
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", database_url)
    monkeypatch.setenv("HINDSIGHT_STORE_DIR", str(tmp_path / "store"))
    empty = tmp_path / "not-a-checkout"
    empty.mkdir()
    monkeypatch.chdir(empty)  # no git remote here: nothing may be guessed from it


def test_recall_by_account_and_all_without_a_git_remote(
    two_accounts: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["recall", "--account", "octo", "--json"]) == 0
    assert {x["repository"] for x in json.loads(capsys.readouterr().out)} == {"octo/app"}
    assert cli_main(["recall", "--all", "--json"]) == 0
    assert {x["repository"] for x in json.loads(capsys.readouterr().out)} == {
        "octo/app",
        "other/app",
    }
    assert cli_main(["recall", "--account", "nobody"]) == 1
    assert "no account nobody" in capsys.readouterr().err
    assert cli_main(["recall"]) == 1
    assert "no git remote `origin`: pass --repo" in capsys.readouterr().err


def test_a_settings_problem_is_said_once_without_pydantics_prefix(tmp_path: Path) -> None:
    from ghapp.settings import load_settings

    with pytest.raises(SettingsError) as failure:
        load_settings(github_private_key_file=tmp_path / "absent.pem")
    assert str(failure.value) == (
        f"invalid settings: HINDSIGHT_GITHUB_PRIVATE_KEY_FILE: no file at {tmp_path / 'absent.pem'}"
    )
    with pytest.raises(SettingsError, match=r"^invalid settings: HINDSIGHT_PORT: Input should"):
        load_settings(port=0)


def test_bare_hindsight_prints_help_and_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: hindsight") and "simulator" in out and "context" in out
    with pytest.raises(SystemExit) as exited:
        cli_main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("hindsight 0.")


def test_every_command_has_a_description() -> None:
    missing = [path for path, parser in _parsers(build_parser()) if not parser.description]
    assert missing == []
