"""`hindsight serve` and friends as real processes, configured only by the environment."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from ghsim import GitHubSimulator
from tests.support.simulator import APP_ID, WEBHOOK_SECRET, app_key


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(sim: GitHubSimulator, database_url: str, tmp_path: Path) -> dict[str, str]:
    key_file = tmp_path / "app.pem"
    key_file.write_text(app_key().private_pem)
    return {
        **os.environ,
        "HINDSIGHT_DATABASE_URL": database_url,
        "HINDSIGHT_GITHUB_APP_ID": str(APP_ID),
        "HINDSIGHT_GITHUB_PRIVATE_KEY_FILE": str(key_file),
        "HINDSIGHT_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "HINDSIGHT_GITHUB_API_URL": sim.base_url,
        "HINDSIGHT_STORE_DIR": str(tmp_path / "store"),
        "HINDSIGHT_CONFIG": str(tmp_path / "hindsight.toml"),
    }


def start(command: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ghapp.cli", *command],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def stop(process: subprocess.Popen[str]) -> str:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    assert process.stdout is not None
    output = process.stdout.read()
    process.stdout.close()
    return output


def ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def running_with(marker: str) -> list[int]:
    """Host pids whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
