"""An example command seat: flags debugging ``print(`` calls added to Python files.

`hindsight init` configures it in hindsight.toml, run by the interpreter Hindsight runs on:

    [[seats]]
    name = "local"
    lab = "local"
    kind = "command"
    command = ["/path/to/python3", "-m", "review.example_seat"]
    timeout_s = 120

It reads one ``hindsight.call/1`` request on stdin and writes one result on stdout. A real seat
would send ``request["prompt"]`` to a model and print the JSON object the model answers.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def findings_for(path: str, patch: str) -> list[dict[str, Any]]:
    """One finding per added line that calls ``print(`` in a Python file."""
    if not path.endswith(".py"):
        return []
    found: list[dict[str, Any]] = []
    line = 0
    for raw in patch.splitlines():
        header = HUNK.match(raw)
        if header:
            line = int(header.group(1))
            continue
        if raw.startswith("-") or raw.startswith("\\"):
            continue
        if raw.startswith("+") and re.search(r"(?<![\w.])print\(", raw):
            found.append(
                {
                    "path": path,
                    "line": line,
                    "title": "Debugging print left in the change",
                    "body": "This `print(` writes to stdout in production; use the logger.",
                    "lesson": f"Log through the module logger instead of calling `print` in {path}.",
                }
            )
        line += 1
    return found


def main() -> int:
    request = json.load(sys.stdin)
    if request.get("schema") != "hindsight.call/1":
        sys.stderr.write(f"unsupported schema {request.get('schema')!r}\n")
        return 2
    findings: list[dict[str, Any]] = []
    for item in request["shard"]["files"]:
        findings.extend(findings_for(item["path"], item.get("patch") or ""))
    json.dump({"findings": findings}, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
