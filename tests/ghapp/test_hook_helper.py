"""The agent hooks' warm helper as a coding agent meets it: the first `context --hook` answers
from the store and starts it, the next ones are answered by it without importing the database
layer, and whatever goes wrong with it (a hostile ask, a helper that says nothing, a folder
others can enter, a changed setting, its database gone) never blocks the agent nor hands
anything the store would not hand."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ghapp.cli import warm
from ghapp.jobs import now_ms
from tests.ghapp.test_hooks import LOADED_PROBE, base_env, checkout
from tests.support.hooks import read_app
from tests.support.recall import Tenant, accept, seed

# What the hook would import if it answered from the store itself.
THE_STORE = ("sqlalchemy", "pydantic", "pydantic_settings", "numpy", "continual")
WAIT_S = 60.0


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A private runtime folder of this test's own, short enough for a socket's path."""
    folder = Path(tempfile.mkdtemp(prefix="hh-", dir="/tmp"))
    try:
        yield folder
    finally:
        subprocess.run(
            [sys.executable, "-m", "ghapp.cli", "hook-helper", "--stop"],
            env=base_env(XDG_RUNTIME_DIR=str(folder)),
            capture_output=True,
            timeout=60,
        )
        _until(lambda: not list((folder / "hindsight").glob("*.sock")), "the helper stopped")
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return checkout(tmp_path / "checkout")


@pytest.fixture
def org(engine: Engine) -> Tenant:
    tenant = seed(engine, 1, "octo", "app")
    accept(engine, tenant, "octo/app", at=now_ms())  # a lesson on src/app.py
    return tenant


@pytest.fixture
def env(org: Tenant, database_url: str, tmp_path: Path, runtime: Path) -> dict[str, str]:
    return base_env(
        HINDSIGHT_DATABASE_URL=database_url,
        HINDSIGHT_STORE_DIR=str(tmp_path / "store"),
        HINDSIGHT_HOOK_HELPER_IDLE_S="60",
        XDG_RUNTIME_DIR=str(runtime),
    )


def _until(done: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not done():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_S} s for {what}")
        time.sleep(0.05)


def _hook(repo: Path, env: dict[str, str], session: str) -> subprocess.CompletedProcess[str]:
    """One hook process, as the agent starts it; stderr ends with the store modules it loaded."""
    probe = LOADED_PROBE.format(forbidden=THE_STORE)
    return subprocess.run(
        [sys.executable, "-c", probe, "context", "--hook"],
        input=read_app(repo, session),
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _handed(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    if not result.stdout:
        return ""
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


def _socket_of(repo: Path, env: dict[str, str]) -> Path:
    """Where the hooks run with ``env`` in ``repo`` look for their helper."""
    found = subprocess.run(
        [sys.executable, "-c", "from ghapp.cli.warm import socket_path; print(socket_path())"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found != "None"
    return Path(found)


def _listening(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        try:
            conn.connect(str(path))
        except OSError:
            return False
    return True


def _started(repo: Path, env: dict[str, str]) -> Path:
    """The first hook answers from the store itself and leaves a helper listening."""
    first = _hook(repo, env, f"first-{os.urandom(4).hex()}")
    assert "parse_config" in _handed(first)
    assert "loaded: []" not in first.stderr, "the first hook read the store itself"
    path = _socket_of(repo, env)
    _until(lambda: _listening(path), "the helper to listen")
    return path


def _raw(path: Path, data: bytes) -> dict[str, object]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(str(path))
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := conn.recv(1 << 16):
            answer += chunk
    found = json.loads(answer)
    assert isinstance(found, dict)
    return found


def test_the_first_hook_starts_a_helper_and_the_next_ones_ask_it(
    engine: Engine, org: Tenant, repo: Path, env: dict[str, str]
) -> None:
    path = _started(repo, env)
    assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0, "only this user may connect"
    second = _hook(repo, env, "second")
    assert "parse_config" in _handed(second)
    assert second.stderr.strip() == "loaded: []", "the helper answered: no store imported"
    # The helper records the handing as the store does: the same session is not handed it again.
    assert _handed(_hook(repo, env, "second")) == ""
    # A lesson learned after the helper started is handed by it (its snapshot follows changes).
    accept(engine, org, "octo/app", name="load_plugins", path="src/app.py", at=now_ms())
    third = _hook(repo, env, "third")
    assert "load_plugins" in _handed(third) and "parse_config" in _handed(third)
    assert third.stderr.strip() == "loaded: []"


def test_a_helper_answers_hostile_asks_with_an_error_and_keeps_serving(
    repo: Path, env: dict[str, str]
) -> None:
    path = _started(repo, env)
    good = {"surface": "context", "repo": "octo/app", "session": "raw", "paths": ["src/app.py"]}
    hostile = [
        b"not json\n",
        b"[1, 2, 3]\n",
        b'{"ask": "context"}\n',
        json.dumps({"ask": {**good, "surface": "purge"}}).encode() + b"\n",
        json.dumps({"ask": {**good, "paths": [1, 2]}}).encode() + b"\n",
        json.dumps({"ask": {**good, "person": 7}}).encode() + b"\n",
        b'{"ask": {"surface": "context", "paths": ["' + b"a" * (warm.ASK_LIMIT + 10) + b'"]}}\n',
    ]
    for data in hostile:
        answer = _raw(path, data)
        assert set(answer) == {"error"}, (data[:60], answer)
    unknown = _raw(path, json.dumps({"ask": {**good, "repo": "octo/other"}}).encode() + b"\n")
    assert "no repository octo/other" in str(unknown["error"])
    answered = _raw(path, json.dumps({"ask": good}).encode() + b"\n")
    assert "parse_config" in str(answered["body"])
    after = _hook(repo, env, "after")
    assert "parse_config" in _handed(after) and after.stderr.strip() == "loaded: []"


@pytest.mark.parametrize("reply", [b"", b"half an answer", b'{"body": {"text": 3}}\n'])
def test_a_helper_that_answers_nothing_useful_never_blocks_the_hook(
    repo: Path, env: dict[str, str], reply: bytes
) -> None:
    path = _socket_of(repo, env)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen()

    def answer_once() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(1 << 16)
            conn.sendall(reply)

    thread = threading.Thread(target=answer_once, daemon=True)
    thread.start()
    try:
        result = _hook(repo, env, "lied-to")
    finally:
        thread.join(30)
        listener.close()
        path.unlink(missing_ok=True)
    assert result.returncode == 0
    assert result.stdout == ""
    assert "no lessons for this call (the hook helper at" in result.stderr


def test_a_folder_others_can_enter_is_never_used(
    repo: Path, env: dict[str, str], runtime: Path
) -> None:
    folder = runtime / "hindsight"
    folder.mkdir(mode=0o700)
    folder.chmod(0o777)
    for session in ("open-1", "open-2"):
        result = _hook(repo, env, session)
        assert "parse_config" in _handed(result)
        assert "loaded: []" not in result.stderr, "no helper: the hook read the store itself"
    assert list(folder.iterdir()) == []


def test_a_changed_setting_asks_a_helper_of_its_own(repo: Path, env: dict[str, str]) -> None:
    path = _socket_of(repo, env)
    assert _socket_of(repo, {**env, "HINDSIGHT_HOOK_INJECTION_TOKENS": "900"}) != path
    (repo / ".env").write_text("HINDSIGHT_CALL_INJECTION_TOKENS=900\n")
    assert _socket_of(repo, env) != path
    assert _socket_of(repo / "src", env) != _socket_of(repo, env)


def test_helpers_stop_when_idle_when_asked_and_without_their_database(
    repo: Path, env: dict[str, str], database_url: str, runtime: Path
) -> None:
    idle = {**env, "HINDSIGHT_HOOK_HELPER_IDLE_S": "1"}
    path = _started(repo, idle)
    _until(lambda: not path.exists(), "the idle helper to stop")
    path = _started(repo, env)
    stop = subprocess.run(
        [sys.executable, "-m", "ghapp.cli", "hook-helper", "--stop"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stop.stdout.strip() == "stopped 1 hook helper", stop.stderr
    _until(lambda: not path.exists(), "the stopped helper to leave")
    if not database_url.startswith("sqlite"):
        return
    path = _started(repo, env)
    database = Path(database_url.removeprefix("sqlite:///"))
    database.rename(database.with_suffix(".away"))
    try:
        _until(lambda: not path.exists(), "the helper without its database to stop")
    finally:
        database.with_suffix(".away").rename(database)


def test_two_helpers_for_one_socket_one_serves(repo: Path, env: dict[str, str]) -> None:
    path = _socket_of(repo, env)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    command = [sys.executable, "-m", "ghapp.cli", "hook-helper", "--socket", str(path)]
    helpers = [subprocess.Popen(command, cwd=repo, env=env) for _ in range(2)]
    _until(lambda: _listening(path), "a helper to listen")
    _until(lambda: any(h.poll() is not None for h in helpers), "the second helper to leave")
    left = next(h for h in helpers if h.poll() is not None)
    assert left.returncode == 0
    serving = next(h for h in helpers if h is not left)
    assert serving.poll() is None
    assert "parse_config" in _handed(_hook(repo, env, "both"))
    assert _raw(path, b'{"stop": true}\n') == {"stopped": True}
    assert serving.wait(30) == 0
    assert not path.exists()


def test_without_a_helper_setting_no_hook_starts_one(
    repo: Path, env: dict[str, str], runtime: Path
) -> None:
    off = {**env, "HINDSIGHT_HOOK_HELPER_IDLE_S": "0"}
    for session in ("a", "b"):
        result = _hook(repo, off, session)
        assert "parse_config" in _handed(result)
        assert "loaded: []" not in result.stderr
    assert not list((runtime / "hindsight").glob("*.sock"))
