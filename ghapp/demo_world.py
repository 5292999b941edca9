"""The demo's world: its names, the two pull requests' patches, the seats' configuration, and
the handle every step of `hindsight demo` works through, with its checks."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from ghapp.db import reading
from ghapp.jobs import due_count

if TYPE_CHECKING:
    from ghapp.settings import Settings
    from ghsim import GitHubSimulator

APP_ID = 90210
ORG = "demo-org"
REPO = f"{ORG}/payments"
PATH = "src/payments/charge.py"
MAINTAINER = "olivia"
STEPS = 11
SETTLE_TIMEOUT_S = 45.0

FIRST_PATCH = """@@ -1,3 +1,11 @@
 import json

 def charge(request):
+    try:
+        amount = eval(request["amount"])
+    except:
+        amount = 0
+    log = open("charges.log", "a")
+    log.write(json.dumps({"amount": amount}))
+    # TODO: retry on timeout
+    return amount"""

SECOND_PATCH = """@@ -1,3 +1,7 @@
 import json

 def charge(request):
+    try:
+        return refund(eval(request["amount"]))
+    except:
+        return None"""

CONFIG = """# Two reviewers from two labs, both the bundled demo seat.
[[seats]]
name = "sentinel"
lab = "demo-labs"
kind = "command"
command = {command}
timeout_s = 60

[[seats]]
name = "auditor"
lab = "second-labs"
kind = "command"
command = {command}
timeout_s = 60

[review]
parallel_calls = 4

[fixes]
enabled = true
"""
DEMO_PERMISSIONS = {"issues": "write", "metadata": "read", "pull_requests": "write"}


class DemoFailed(Exception):
    """A step did not really happen; the message says which and what the store holds."""


@dataclass
class Demo:
    sim: GitHubSimulator
    engine: Engine
    settings: Settings
    url: str
    echo: Callable[[str], None]
    installation_id: int = 0

    def settle(self) -> None:
        """Wait until the worker has run every job that is due."""
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while True:
            due = due_count(self.engine)
            if not due:
                return
            if time.monotonic() > deadline:
                raise DemoFailed(f"{due} job(s) still pending after {SETTLE_TIMEOUT_S:.0f} s")
            time.sleep(0.05)

    def scalar(self, statement: Any) -> Any:
        with reading(self.engine) as conn:
            return conn.execute(statement).scalar_one()


def check(condition: bool, message: str) -> None:
    if not condition:
        raise DemoFailed(message)


def step(demo_echo: Callable[[str], None], number: int, text: str) -> None:
    demo_echo(f"[{number}/{STEPS}] {text}")


def first_line(comment: dict[str, Any]) -> str:
    """The finding's title: the bold part of the comment's first line."""
    line = str(comment["body"]).splitlines()[0]
    return line.split("**")[1] if line.count("**") >= 2 else line


def find(comments: list[dict[str, Any]], words: str) -> dict[str, Any]:
    for comment in comments:
        if words.lower() in comment["body"].lower():
            return comment
    raise DemoFailed(f"no suggestion mentions {words!r}")
