"""docs/api.md runs as written against `hindsight demo --keep`: the demo's own URL and token (the
`export` line it prints), then every line of every shell example in order, the ids read from the
API as the docs read them, each request answered 200 or 204."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.ghapp.test_api_docs import blocks
from tests.support.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
EXPORT = re.compile(r"^export (?P<name>[A-Z_]+)=")


def _lines(script: str) -> list[str]:
    joined = script.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip()]


def _run(line: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        ["bash", "-c", line], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, f"{line}: {result.stderr}"
    return result.stdout


def test_every_example_runs_as_written_against_the_demo(tmp_path: Path) -> None:
    port = free_port()
    demo = subprocess.Popen(
        [
            *(sys.executable, "-m", "ghapp.cli", "demo", "--keep", "--port", str(port)),
            *("--dir", str(tmp_path / "demo")),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    try:
        assert demo.stdout is not None
        printed = []
        for line in demo.stdout:
            printed.append(line)
            if "Press Ctrl-C" in line:
                break
        found = re.search(r"export HINDSIGHT_URL=(\S+) HINDSIGHT_TOKEN=(\S+)", "".join(printed))
        assert found is not None, "".join(printed)
        env = {"PATH": "/usr/bin:/bin", "HINDSIGHT_URL": found[1], "HINDSIGHT_TOKEN": found[2]}
        ran = []
        for language, script in blocks():
            if language != "sh":
                continue
            for line in _lines(script):
                command = line.split("#", 1)[0].strip() if not line.startswith("curl") else line
                exported = EXPORT.match(command)
                if command.startswith(("#", "hindsight ")) or not command:
                    continue  # a comment; the token command the demo already ran
                if exported and exported["name"] in ("HINDSIGHT_URL",):
                    continue  # the demo printed its own
                if exported:
                    name = exported["name"]
                    env[name] = _run(f'{command}; printf %s "${name}"', env)
                    assert env[name], f"{command} gave nothing"
                    continue
                assert command.startswith("curl "), command
                out = _run(f"{command} -o /dev/null -w '%{{http_code}}'", env)
                assert out in ("200", "204"), f"{command} answered {out}"
                ran.append(command)
        assert len(ran) == 13, ran
        assert env["REVIEW_ID"].startswith("r_") and env["LESSON_ID"].startswith("e_")
        demo.send_signal(signal.SIGINT)
        assert demo.wait(timeout=30) == 0
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait(timeout=30)
        if demo.stdout is not None:
            demo.stdout.close()
