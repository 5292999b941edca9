"""`hindsight simulator`: GitHub on loopback for the "Run it on GitHub" path, followed as it prints
it: source simulator.env, `hindsight init` (as written), `hindsight serve`; the simulator installs
the app, opens a pull request and says when the review is posted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.processes import free_port, ready, start, stop
from tests.support.web import wait_for

ROOT = Path(__file__).resolve().parents[2]


def _settings(env_file: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line)
    return dict(pairs)


def _sign_in_with_github(app_url: str, login: str) -> str:
    """Press "Sign in with GitHub" on the ledger and authorize as ``login`` on the simulator's
    page: the ledger as it then reads."""
    with httpx.Client(base_url=app_url) as client:
        assert 'id="github-sign-in"' in client.get("/ledger/sign-in").text
        started = client.get("/ledger/github")
        assert started.status_code == 302, started.text
        target = httpx.URL(started.headers["location"])
        fields = {**dict(target.params), "login": login, "decision": "authorize"}
        back = httpx.post(str(target.copy_with(query=None)), data=fields)
        assert back.status_code == 302, back.text
        assert client.get(back.headers["location"]).status_code == 200
        return client.get("/ledger").text


def test_the_simulator_takes_serve_to_a_reviewed_pull_request(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env["PYTHONPATH"] = str(ROOT)
    sim_port, app_port = free_port(), free_port()
    app_url = f"http://127.0.0.1:{app_port}"
    simulator = subprocess.Popen(
        [
            *(sys.executable, "-m", "ghapp.cli", "simulator", "--port", str(sim_port)),
            *("--app-url", app_url, "--timeout", "180"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    server = None
    code = None
    lines: list[str] = []
    ledger = ""
    try:
        env_file = tmp_path / "simulator.env"
        wait_for(env_file.is_file, timeout=60, what="simulator.env")
        settings = _settings(env_file)
        assert settings["HINDSIGHT_GITHUB_API_URL"] == f"http://127.0.0.1:{sim_port}"
        served = {**env, **settings}
        init = subprocess.run(
            [sys.executable, "-m", "ghapp.cli", "init"],
            cwd=tmp_path,
            env=served,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert init.returncode == 0, init.stderr
        server = start(["serve", "--port", str(app_port)], served, tmp_path)
        wait_for(lambda: ready(app_url) or server.poll() is not None, timeout=120, what="serve")
        assert simulator.stdout is not None
        for line in simulator.stdout:  # it flushes each line; stops at the review or an error
            lines.append(line)
            if "is reviewed:" in line:
                break
        ledger = _sign_in_with_github(app_url, "olivia")
        simulator.send_signal(signal.SIGINT)  # as Ctrl-C
        code = simulator.wait(timeout=60)
    finally:
        out = "".join(lines) + (simulator.stdout.read() if simulator.stdout else "")
        if simulator.poll() is None:
            simulator.kill()
            simulator.wait(timeout=30)
        if simulator.stdout is not None:
            simulator.stdout.close()
        served_log = stop(server) if server is not None else ""
    assert code == 0, out + served_log
    assert "HINDSIGHT_WEBHOOK_SECRET=" in out and "hindsight serve" in out
    assert "opened PR #1" in out and "PR #1 is reviewed:" in out, out + served_log
    assert f"{app_url}/ledger" in out and "stopped" in out
    assert settings["HINDSIGHT_GITHUB_CLIENT_ID"] and settings["HINDSIGHT_GITHUB_CLIENT_SECRET"]
    assert "signed in as olivia" in ledger, ledger  # the ledger's "Sign in with GitHub" works
    assert "Traceback" not in served_log


def test_a_busy_port_is_refused(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "ghapp.cli", "simulator", "--port", str(port)],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2
    assert (
        f"cannot listen on 127.0.0.1:{port}" in result.stderr and "Traceback" not in result.stderr
    )
