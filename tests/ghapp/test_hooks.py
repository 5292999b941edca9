"""`hindsight context|brief --hook` as a coding agent runs it: a real process per call that never
blocks the agent, imports only what it uses, and reads the paths of the tool call from the
working directory, the workspace root and shell commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from ghapp.cli.hookpaths import hook_paths, shell_paths
from ghapp.jobs import now_ms
from tests.support.hooks import pre_tool
from tests.support.processes import free_port
from tests.support.recall import Clock, accept, api, seed, token

ROOT = Path(__file__).resolve().parents[2]
SERVER_SIDE = ("sqlalchemy", "starlette", "githubkit", "uvicorn", "pydantic", "httpx", "alembic")
# Answering from the store needs the store (SQLAlchemy, the settings, recall), never the web app,
# the GitHub client, migrations, the review pipeline, an HTTP client or tables it does not read.
NOT_FOR_THE_STORE = (
    "starlette",
    "uvicorn",
    "githubkit",
    "httpx",
    "anyio",
    "alembic",
    "cryptography",
    "ghapp.api",
    "ghapp.web",
    "ghapp.app",
    "ghapp.github",
    "ghapp.worker",
    "review.orchestrate",
    "review.seats",
    "http.client",
    "urllib.request",
    # Tables the hook never reads are not even mapped (it reads the history's lessons, and
    # nothing of the back-fill: continual.history.active).
    "continual.tables.fixes",
    "continual.tables.judge",
    "continual.history.lessons",
    "continual.history.store",
    "continual.replies",
)
# Prints the modules of ``forbidden`` the command line loaded, on stderr, after running it.
LOADED_PROBE = (
    "import sys\n"
    "from ghapp.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "forbidden = {forbidden!r}\n"
    "loaded = [m for m in sys.modules if m in forbidden or m.split('.')[0] in forbidden]\n"
    "print('loaded:', sorted(loaded), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run_cli(
    args: list[str], cwd: Path, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ghapp.cli", *args],
        input=stdin,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def checkout(folder: Path) -> Path:
    """A git checkout of octo/app with src/app.py and docs/guide.md."""
    (folder / "src").mkdir(parents=True)
    (folder / "docs").mkdir()
    (folder / "src" / "app.py").write_text("print('hi')\n")
    (folder / "docs" / "guide.md").write_text("# guide\n")
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    subprocess.run(
        ["git", "remote", "add", "origin", "git@github.com:octo/app.git"], cwd=folder, check=True
    )
    return folder.resolve()


def base_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("HINDSIGHT_") and k != "CLAUDE_PROJECT_DIR"
    }
    # The warm helper is started only where a test asks for it (tests/ghapp/test_hook_helper.py).
    return {**env, "PYTHONPATH": str(ROOT), "HINDSIGHT_HOOK_HELPER_IDLE_S": "0", **extra}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return checkout(tmp_path / "checkout")


class Garbage(BaseHTTPRequestHandler):
    """A server that is not Hindsight: a 500 in HTML."""

    def do_GET(self) -> None:
        self.send_response(500)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(b"<h1>oops</h1>")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def garbage_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Garbage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("case", "args", "env", "stdin"),
    [
        ("a bad setting", [], {"HINDSIGHT_DATABASE_URL": "nonsense"}, None),
        ("a bad log level", [], {"HINDSIGHT_LOG_LEVEL": "LOUD"}, None),
        (
            "an unreachable database",
            [],
            {"HINDSIGHT_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none"},
            None,
        ),
        ("no database here", [], {}, None),
        ("an unreachable server", ["--url", "http://127.0.0.1:{port}", "--token", "t"], {}, None),
        ("a server that is not Hindsight", ["--url", "{garbage}", "--token", "t"], {}, None),
        ("no token for the server", [], {"HINDSIGHT_URL": "http://127.0.0.1:{port}"}, None),
        ("input that is not JSON", [], {}, "{not json"),
        ("an unknown option", ["--frobnicate"], {}, None),
    ],
)
def test_the_hook_never_blocks_the_agent(
    case: str,
    args: list[str],
    env: dict[str, str],
    stdin: str | None,
    repo: Path,
    garbage_url: str,
) -> None:
    port = str(free_port())
    fill = {"port": port, "garbage": garbage_url}
    args = [a.format(**fill) for a in args]
    env = {k: v.format(**fill) for k, v in env.items()}
    given = pre_tool(repo, file_path=str(repo / "src" / "app.py")) if stdin is None else stdin
    result = run_cli(["context", "--hook", *args], repo, base_env(**env), given)
    assert result.returncode == 0, (case, result.stderr)
    assert result.stdout == "", case
    assert "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2, result.stderr
    if case != "an unknown option":
        assert "no lessons for this call" in result.stderr, result.stderr
    # The same call from a prompt says what is wrong with a failing status.
    plain = run_cli(["context", "--path", "src/app.py", *args], repo, base_env(**env))
    assert plain.returncode != 0, case


def test_the_brief_hook_never_blocks_either(repo: Path) -> None:
    result = run_cli(
        ["brief", "--hook"],
        repo,
        base_env(HINDSIGHT_DATABASE_URL="sqlite:///nowhere/at/all.db"),
        json.dumps({"session_id": "s", "cwd": str(repo)}),
    )
    assert (result.returncode, result.stdout) == (0, "")
    assert "brief --hook: no lessons" in result.stderr


def test_importing_the_command_line_loads_no_server_side() -> None:
    probe = (
        "import sys, ghapp.cli, ghapp.cli.agents; "
        f"print([m for m in sys.modules if m.split('.')[0] in {SERVER_SIDE!r}])"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=base_env(), check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.fixture
def store(
    engine: Engine, tmp_path: Path, database_url: str, repo: Path
) -> tuple[Engine, dict[str, str]]:
    org = seed(engine, 1, "octo", "app")
    accept(engine, org, "octo/app", at=now_ms())  # a lesson on src/app.py
    env = base_env(
        HINDSIGHT_DATABASE_URL=database_url,
        HINDSIGHT_STORE_DIR=str(tmp_path / "store"),
        HINDSIGHT_LOG_LEVEL="DEBUG",
    )
    return engine, env


def _context(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    if not result.stdout:
        return ""
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


def test_asking_a_server_loads_no_server_side_and_logs_no_request(
    store: tuple[Engine, dict[str, str]], repo: Path, tmp_path: Path
) -> None:
    engine, env = store
    secret = token(engine, "octo", "mona")
    probe = LOADED_PROBE.format(forbidden=SERVER_SIDE)
    with api(engine, tmp_path / "served", Clock(now_ms())) as url:
        result = subprocess.run(
            [sys.executable, "-c", probe, "context", "--hook", "--url", url, "--token", secret],
            input=pre_tool(repo / "src", file_path="app.py"),
            cwd=repo / "src",
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert "parse_config" in _context(result)
    assert "loaded: []" in result.stderr
    assert "HTTP Request" not in result.stderr


def test_hook_paths_from_a_subfolder_the_root_and_a_shell(
    store: tuple[Engine, dict[str, str]], repo: Path
) -> None:
    _, env = store
    src = repo / "src"
    calls = [
        (src, {"file_path": "app.py"}),  # relative to the working directory
        (src, {"file_path": "src/app.py"}),  # relative to the workspace root
        (repo / "docs", {"file_path": str(src / "app.py")}),  # outside the cwd, in the workspace
        (repo, {"command": "cd src && cat app.py"}),
        (repo, {"command": "grep -n charge src"}),  # a folder
    ]
    for session, (cwd, tool_input) in enumerate(calls):
        hook = json.loads(pre_tool(cwd, **tool_input))
        hook["session_id"] = f"agent-{session}"
        result = run_cli(["context", "--hook"], cwd, env, json.dumps(hook))
        assert "parse_config" in _context(result), (tool_input, result.stderr)
        assert "HTTP Request" not in result.stderr
    elsewhere = run_cli(["context", "--hook"], repo, env, pre_tool(repo, file_path="/etc/hosts"))
    assert _context(elsewhere) == "", "a path outside the workspace hands nothing"


def test_shell_commands_are_read_as_the_shell_would(repo: Path) -> None:
    def paths(command: str, cwd: Path = repo) -> list[str]:
        return shell_paths(command, cwd, repo)

    assert paths("cd src && cat app.py") == ["src/app.py"]
    assert paths("cd src;cat app.py|wc -l") == ["src/app.py"]
    assert paths("cat 'src/app.py' docs/guide.md missing.txt") == ["src/app.py", "docs/guide.md"]
    assert paths("python3 --config=docs/guide.md -q app.py", repo / "src") == [
        "docs/guide.md",
        "src/app.py",
    ]
    assert paths("cd docs && cd ../src && head -5 app.py > out.txt") == ["src/app.py"]
    assert paths("FOO=1 pytest src") == ["src"]
    assert paths("cat /etc/hosts") == [], "outside the workspace"
    assert paths("echo 'unclosed src/app.py") == ["src/app.py"]
    assert paths("cd nowhere && cat app.py") == [], "a cd that fails stays where it was"


def test_the_workspace_root_is_the_project_dir_or_the_git_top(repo: Path, tmp_path: Path) -> None:
    hook = json.loads(pre_tool(repo / "src", file_path="../docs/guide.md"))
    assert hook_paths(hook, {}) == ["docs/guide.md"]
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "mod.py").write_text("")
    outside = json.loads(pre_tool(project / "pkg", file_path="mod.py"))
    assert hook_paths(outside, {"CLAUDE_PROJECT_DIR": str(project)}) == ["pkg/mod.py"]
    assert hook_paths(outside, {}) == ["mod.py"], "no git, no project dir: the cwd is the root"
    assert hook_paths({"cwd": str(repo), "tool_input": "not a dict"}, {}) == []


def test_answering_from_the_store_loads_no_server_side_and_no_migrations(
    store: tuple[Engine, dict[str, str]], repo: Path
) -> None:
    _, env = store
    probe = LOADED_PROBE.format(forbidden=NOT_FOR_THE_STORE)
    result = subprocess.run(
        [sys.executable, "-c", probe, "context", "--hook"],
        input=pre_tool(repo / "src", file_path="app.py"),
        cwd=repo / "src",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "parse_config" in _context(result)
    assert "loaded: []" in result.stderr, result.stderr
    assert result.stderr.strip() == "loaded: []", "the hook says nothing on stderr when it works"
