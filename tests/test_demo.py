"""The README's demo command runs the whole loop and checks every step in the store."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
        "[1/9]",
        "one review posted with",
        "receipt: accepted by olivia",
        "receipt: dismissed by olivia (rule grammar.dismiss, reason false-positive)",
        "[active] Catch the specific exception",
        "the review was handed 1 lesson(s)",
        "decided by grammar.accept (reply): 1 accepted",
        "decided by grammar.dismiss (reply): 1 dismissed",
        "[9/9] Done",
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
