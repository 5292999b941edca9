"""`hindsight setup` as a real process, and the clicks a person makes in its browser flow."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.support.browser import click_and_load

ROOT = Path(__file__).resolve().parents[2]
LINE_TIMEOUT_S = 60


class Setup:
    """`hindsight setup` as a real process; its output lines arrive on a queue."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ghapp.cli", "setup", "--no-browser", *args],
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def page_url(self) -> str:
        line = self.lines.get(timeout=LINE_TIMEOUT_S)
        assert "open http://127.0.0.1:" in line, line
        return line.split("open ", 1)[1].split(" ", 1)[0]

    def finish(self) -> tuple[int, str]:
        code = self.process.wait(timeout=LINE_TIMEOUT_S)
        self._close()
        output = []
        while not self.lines.empty():
            output.append(self.lines.get())
        return code, "".join(output)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=LINE_TIMEOUT_S)
        self._close()

    def _close(self) -> None:
        self._reader.join(LINE_TIMEOUT_S)
        assert self.process.stdout is not None
        self.process.stdout.close()


def register_in_browser(browser: Any, page: str) -> None:
    """From setup's page: post the manifest to GitHub, then press Create GitHub App there."""
    from selenium.webdriver.common.by import By

    browser.get(page)
    click_and_load(browser, browser.find_element(By.ID, "register"))
    click_and_load(browser, browser.find_element(By.ID, "create"))
