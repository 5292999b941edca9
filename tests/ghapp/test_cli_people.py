"""`hindsight tokens|recall|brief|context`: tokens, and lessons printed for people and agent hooks."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ghapp.cli import main
from ghapp.cli.common import repo_from_remote
from ghapp.jobs import now_ms
from tests.support.recall import Clock, accept, api, seed, token


@pytest.fixture
def env(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> Engine:
    org = seed(engine, 1, "octo", "app")
    accept(engine, org, "octo/app", at=now_ms())  # the commands read the real clock
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", database_url)
    monkeypatch.setenv("HINDSIGHT_STORE_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("HINDSIGHT_URL", raising=False)
    monkeypatch.delenv("HINDSIGHT_TOKEN", raising=False)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=checkout, check=True)
    subprocess.run(
        ["git", "remote", "add", "origin", "git@github.com:octo/app.git"], cwd=checkout, check=True
    )
    monkeypatch.chdir(checkout)
    return engine


@pytest.mark.parametrize(
    ("url", "repo"),
    [
        ("git@github.com:octo/app.git", "octo/app"),
        ("https://github.com/octo/app", "octo/app"),
        ("https://github.com/octo/app.git\n", "octo/app"),
        ("ssh://git@ghe.example.com/octo/my.app.git", "octo/my.app"),
        ("not a remote", None),
    ],
)
def test_remote_urls(url: str, repo: str | None) -> None:
    assert repo_from_remote(url) == repo


def test_tokens_create_list_revoke(env: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tokens", "create", "--account", "octo", "--person", "mona"]) == 0
    secret = capsys.readouterr().out.strip()
    assert secret.startswith("hs_")
    assert main(["tokens", "list", "--account", "octo"]) == 0
    listed = capsys.readouterr().out
    assert "mona" in listed and secret[:11] in listed and secret not in listed
    assert main(["tokens", "revoke", "--account", "octo", "--person", "mona", secret[:11]]) == 0
    assert "revoked" in capsys.readouterr().out
    assert main(["tokens", "create", "--account", "nobody", "--person", "mona"]) == 1


def test_brief_reads_the_remote_and_prints_the_lessons(
    env: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["brief", "--session", "s1"]) == 0
    out = capsys.readouterr().out
    assert "Hindsight lessons for octo/app" in out and "parse_config" in out
    assert main(["brief", "--session", "s1"]) == 0
    assert capsys.readouterr().out == "", "the session already holds the lesson"
    assert main(["recall"]) == 0
    assert "parse_config" in capsys.readouterr().out


def test_context_as_a_pre_tool_hook(
    env: Engine, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = {
        "session_id": "agent-7",
        "hook_event_name": "PreToolUse",
        "cwd": str(Path.cwd()),
        "tool_input": {"file_path": str(Path.cwd() / "src" / "app.py")},
    }
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(hook)))
    assert main(["context", "--hook"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert "parse_config" in answer["hookSpecificOutput"]["additionalContext"]


def test_brief_from_a_running_server(
    env: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = token(env, "octo", "mona")
    with api(env, tmp_path / "served", Clock(now_ms())) as url:
        code = main(["brief", "--url", url, "--token", secret, "--session", "s9", "--json"])
    assert code == 0
    body = json.loads(capsys.readouterr().out)
    lessons = [e for e in body["entries"] if not e["id"].startswith("summary_")]
    assert body["recorded"] is True and len(lessons) == 1
    assert (tmp_path / "served" / "octo" / "app" / "injections.jsonl").is_file()
