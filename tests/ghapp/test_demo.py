"""The README's demo command runs the whole loop and checks every step in the store."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def readme_demo_command() -> str:
    """The first command of the README's set-up block: install, then run the demo."""
    text = (ROOT / "README.md").read_text()
    block = text.split("```sh", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    return commands[0]


def test_readme_demo_command_runs_the_whole_loop(tmp_path: Path) -> None:
    command = readme_demo_command()
    assert command.endswith("hindsight demo")
    # The install half ran for this test session already; run the demo exactly as written.
    demo = command.split("&&")[-1].strip().split()
    result = subprocess.run(
        [*demo, "--dir", str(tmp_path / "demo")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for expected in (
        "[1/11]",
        "one review posted with 4 comments for 5 suggestions",
        "'File opened without a context manager' is one comment for 2 lenses "
        "(correctness, performance)",
        "receipt: accepted by olivia",
        "receipt: dismissed by olivia (rule grammar.dismiss, reason false-positive)",
        "[active] Catch the specific exception",
        "[dismissed] eval of dynamic input — not raised again at src/payments/charge.py "
        "(false-positive, olivia)",
        "the review was handed 1 lesson(s)",
        "memories), framed as a heuristic to check against the code",
        "not posted: 'eval of dynamic input' at line 5 (suppressed by receipt #",
        ": false-positive by olivia)",
        "findings not posted (dismissed here before): 1",
        "decided by grammar.accept (reply): 1 accepted",
        "decided by grammar.dismiss (reply): 1 dismissed",
        "receipt: accepted by olivia (rule fix_pr.merged, #",
        "[account] Catch the specific exception",
        "(merged fix PRs in 2 repositories of demo-org)",
        "decided by fix_pr.merged (fix_pr): 1 accepted",
        "[11/11] Done",
    ):
        assert expected in out, out
    assert (tmp_path / "demo" / "hindsight.db").is_file()
    assert list((tmp_path / "demo" / "store").rglob("injections.jsonl"))


def test_demo_refuses_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "something").write_text("x")
    result = subprocess.run(
        ["hindsight", "demo", "--dir", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and "not empty" in result.stdout


def test_keep_leaves_the_app_up_with_a_working_token(tmp_path: Path) -> None:
    from tests.support.processes import free_port

    port = free_port()
    process = subprocess.Popen(
        ["hindsight", "demo", "--keep", "--port", str(port), "--dir", str(tmp_path / "demo")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines: list[str] = []
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if "Press Ctrl-C" in line:
                break
        text = "".join(lines)
        url = re.search(r"export HINDSIGHT_URL=(\S+) HINDSIGHT_TOKEN=(\S+)", text)
        assert url is not None, text
        base, token = url.groups()
        assert base == f"http://127.0.0.1:{port}"
        assert f"open {base}/ledger and sign in with that token" in text
        page = httpx.get(f"{base}/ledger", timeout=10, follow_redirects=True)
        assert page.status_code == 200, "the ledger (its sign-in page) answers"
        headers = {"authorization": f"Bearer {token}"}
        recall = httpx.get(f"{base}/v1/recall", headers=headers, timeout=10)
        assert recall.status_code == 200
        states = sorted(lesson["state"] for lesson in recall.json()["lessons"])
        # payments: the accepted lesson and a candidate; billing: the same lesson, widened.
        assert states == ["active", "active", "candidate"]
        assert httpx.get(f"{base}/v1/recall", timeout=10).status_code == 401
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        assert "stopped" in process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()
