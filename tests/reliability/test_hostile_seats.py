"""A hostile command seat against the real sandbox: every way out it tries is refused or bounded.

The app is a real process (its environment holds the secrets, its folder the key, the database
and a `.env`) that runs one seat call and prints what came back; the seat is a script that tries
to read, reach and outlive what it should not.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from review.sandbox import Isolation, detect_sandbox
from review.sandbox.cgroup import Bound, bounded_group
from tests.support.processes import running_with

pytestmark = pytest.mark.skipif(
    detect_sandbox().isolation is not Isolation.BWRAP, reason="bubblewrap does not run here"
)

SECRETS = {
    "HINDSIGHT_WEBHOOK_SECRET": "webhook-secret-3f9a1c",
    "HINDSIGHT_DATABASE_URL": "postgresql+psycopg://app:db-password-77b2@127.0.0.1:5432/app",
    "REDIS_URL": "redis://:redis-password-51e0@127.0.0.1:6379/0",
    "MYSQL_PWD": "mysql-password-c4d8",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/slack-token-9e2f",
}
KEY_TEXT = "-----BEGIN RSA PRIVATE KEY-----\nkey-material-a61d\n-----END RSA PRIVATE KEY-----\n"
DB_TEXT = "SQLite format 3\x00database-rows-0b7e"
DOTENV_TEXT = "HINDSIGHT_WEBHOOK_SECRET=dotenv-secret-28c4\n"
LEAKS = [*SECRETS.values(), "key-material-a61d", "database-rows-0b7e", "dotenv-secret-28c4"]
FLOOD_BYTES = 100 << 20

APP = """
import asyncio, json, os, sys
from review.config import SeatConfig, SeatKind, SeatSandbox
from review.contract import CallFailed
from review.seats import CommandSeat

spec = json.loads(sys.argv[1])
config = SeatConfig(
    name="hostile", lab="nowhere", kind=SeatKind.COMMAND, command=tuple(spec["command"]),
    timeout_s=spec.get("timeout_s", 30), pass_env=tuple(spec.get("pass_env", ())),
    network=spec.get("network", False), write=tuple(spec.get("write", ())),
    sandbox=SeatSandbox(spec.get("sandbox", "auto")),
)
request = {"schema": "hindsight.call/1", "app_pid": os.getpid(), "app_dir": os.getcwd(), **spec}
try:
    result = asyncio.run(CommandSeat(config).call(request, timeout_s=config.timeout_s))
    answer = {"facts": {fact.kind: fact.text for fact in result.facts}}
except CallFailed as failed:
    answer = {"failed": failed.reason.value, "message": failed.message}
# VmHWM is this process's own peak (ru_maxrss keeps the peak of the process it was forked from).
with open("/proc/self/status") as status:
    peak = next(line for line in status if line.startswith("VmHWM:"))
answer["max_rss_kib"] = int(peak.split()[1])
print(json.dumps(answer))
"""

SEAT = r"""
import json, os, socket, subprocess, sys, time

request = json.load(sys.stdin)
mode = request["mode"]


def attempt(read):
    try:
        return read()
    except Exception as error:  # every refusal is an answer here
        return f"refused: {type(error).__name__}"


def text_of(path):
    return attempt(lambda: open(path, "rb").read().decode(errors="replace"))


def connect():
    with socket.create_connection(("127.0.0.1", request["port"]), timeout=5):
        return "connected"


if mode == "probe":
    app = request["app_dir"]
    facts = {
        "env": json.dumps(dict(os.environ)),
        "proc-1": text_of("/proc/1/environ"),
        "proc-parent": text_of(f"/proc/{os.getppid()}/environ"),
        "proc-app": text_of(f"/proc/{request['app_pid']}/environ"),
        "proc-app-cmdline": text_of(f"/proc/{request['app_pid']}/cmdline"),
        "pids": json.dumps(sorted(int(p) for p in os.listdir("/proc") if p.isdigit())),
        "key": text_of(os.path.join(app, "app-key.pem")),
        "database": text_of(os.path.join(app, "hindsight.db")),
        "dotenv": text_of(os.path.join(app, ".env")),
        "listing": attempt(lambda: json.dumps(sorted(os.listdir(app)))),
        "port": attempt(connect),
    }
    print(json.dumps({"facts": [{"kind": k, "text": v or "empty"} for k, v in facts.items()]}))
elif mode == "flood":
    chunk = b"x" * (1 << 20)
    for _ in range(request["megabytes"]):
        sys.stdout.buffer.write(chunk)
elif mode == "survive":
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            loop = f"while :; do echo alive >> {request['beat']}; sleep 0.05; done"
            os.execvp("sh", ["sh", "-c", loop, request["marker"]])
        os._exit(0)
    while not os.path.exists(request["beat"]):
        time.sleep(0.01)
    time.sleep(300)
"""


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    """The app's folder: its key, its SQLite file and a `.env`, as a careless operator keeps them."""
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "app-key.pem").write_text(KEY_TEXT)
    (folder / "hindsight.db").write_text(DB_TEXT)
    (folder / ".env").write_text(DOTENV_TEXT)
    (folder / "app.py").write_text(APP)
    return folder


@pytest.fixture
def seat_script(tmp_path: Path) -> Path:
    folder = tmp_path / "seat"
    folder.mkdir()
    path = folder / "hostile.py"
    path.write_text(SEAT)
    return path


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP port on loopback, as the app, GitHub or PostgreSQL listen."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        sock.setblocking(False)
        yield sock


def run_app(app_dir: Path, **spec: Any) -> dict[str, Any]:
    """One seat call made by an app process with the secrets in its environment."""
    environ = {**os.environ, **SECRETS, "SEAT_DECLARED": "declared-value"}
    done = subprocess.run(
        [sys.executable, str(app_dir / "app.py"), json.dumps(spec)],
        cwd=app_dir,
        env=environ,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return dict(json.loads(done.stdout))


def accepted(sock: socket.socket) -> bool:
    try:
        connection, _ = sock.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


def test_the_seat_reads_nothing_of_the_app_and_reaches_no_port(
    app_dir: Path, seat_script: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    answer = run_app(
        app_dir,
        mode="probe",
        port=port,
        command=[sys.executable, str(seat_script)],
        pass_env=["SEAT_DECLARED"],
    )
    facts = answer["facts"]
    shown = json.dumps(facts)
    assert [leak for leak in LEAKS if leak in shown] == []
    environment = json.loads(facts["env"])
    assert environment["SEAT_DECLARED"] == "declared-value"
    assert set(environment) <= {"SEAT_DECLARED", "PATH", "HOME", "LANG", "PWD"}
    for name in ("proc-app", "proc-app-cmdline", "key", "database", "dotenv"):
        assert facts[name] == "refused: FileNotFoundError", name
    assert json.loads(facts["listing"]) == []  # the app's folder is not there at all
    assert max(json.loads(facts["pids"])) < 10  # only its own processes
    assert facts["port"] == "refused: ConnectionRefusedError"
    assert not accepted(listener)


def test_a_seat_with_network_reaches_the_port_and_still_nothing_else(
    app_dir: Path, seat_script: Path, listener: socket.socket
) -> None:
    answer = run_app(
        app_dir,
        mode="probe",
        port=listener.getsockname()[1],
        network=True,
        command=[sys.executable, str(seat_script)],
    )
    facts = answer["facts"]
    assert facts["port"] == "connected"
    assert accepted(listener)
    assert [leak for leak in LEAKS if leak in json.dumps(facts)] == []
    assert facts["key"] == "refused: FileNotFoundError"


def test_a_python_module_seat_gets_its_package_and_not_the_folder_around_it(
    app_dir: Path,
) -> None:
    package = app_dir / "seatpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(
        textwrap.dedent(
            """\
            import json, os, sys
            sys.stdin.read()
            seen = {}
            for name in ("app-key.pem", "hindsight.db", ".env"):
                try:
                    seen[name] = open(name).read()
                except OSError as error:
                    seen[name] = type(error).__name__
            seen["listing"] = sorted(os.listdir("."))
            print(json.dumps({"facts": [{"kind": "seen", "text": json.dumps(seen)}]}))
            """
        )
    )
    answer = run_app(app_dir, mode="module", command=[sys.executable, "-m", "seatpkg"])
    seen = json.loads(answer["facts"]["seen"])
    assert seen == {
        "app-key.pem": "FileNotFoundError",
        "hindsight.db": "FileNotFoundError",
        ".env": "FileNotFoundError",
        "listing": ["seatpkg"],
    }


def test_a_seat_that_floods_stdout_fails_named_and_the_app_stays_small(
    app_dir: Path, seat_script: Path
) -> None:
    answer = run_app(
        app_dir,
        mode="flood",
        megabytes=FLOOD_BYTES >> 20,
        command=[sys.executable, str(seat_script)],
    )
    assert answer["failed"] == "output-too-large"
    assert "more than 4194304 bytes" in answer["message"]
    # The app holds at most the cap of it (Python and its imports are ~60 MiB here).
    assert answer["max_rss_kib"] < 160 * 1024


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_setsid_double_forked_child_ends_with_the_seat(
    app_dir: Path, tmp_path: Path, sandbox: str
) -> None:
    """In the sandbox the PID namespace ends it; with the sandbox off, the call's cgroup does."""
    with bounded_group(Bound(1 << 30, 64)) as group:
        if sandbox == "off" and group.kind == "none":
            pytest.skip("no cgroup can be made here: an unsandboxed seat's setsid child survives")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    seat_script = scratch / "hostile.py"
    seat_script.write_text(SEAT)
    marker = f"survivor-{uuid.uuid4().hex}"
    beat = scratch / "beat"
    answer = run_app(
        app_dir,
        mode="survive",
        marker=marker,
        beat=str(beat),
        write=[str(scratch)],
        timeout_s=3,
        sandbox=sandbox,
        command=[sys.executable, str(seat_script)],
    )
    assert answer["failed"] == "timeout"
    assert beat.read_text().startswith("alive")  # the survivor did run
    deadline = time.monotonic() + 10
    while running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert running_with(marker) == []
