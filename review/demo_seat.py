"""A deterministic command seat for demos: flags recognisable patterns in a shard's added lines.

Run as ``python -m review.demo_seat``: it reads one ``hindsight.call/1`` request on stdin and
prints one result on stdout.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

# A seat runs sandboxed with its own package only (review.sandbox.seat_view), so it reads the
# patch itself, as any seat would, rather than through continual.patches.
HUNK_HEADER = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")
DEF_LINE = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)")
CONTEXT_DEF = re.compile(r"(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)")
FAILING_TEST = "pytest -q"
PASSING_TEST = "PYTHONPATH=src pytest -q"


@dataclass(frozen=True)
class AddedLine:
    """A line the patch adds, where it lands in the new file and the function around it."""

    path: str
    line: int
    text: str
    function: str | None


@dataclass(frozen=True)
class Pattern:
    """A recognisable mistake: which lenses report it and how to word the finding."""

    lenses: frozenset[str]
    title: str
    matches: Callable[[str], bool]
    body: str
    lesson: str
    replace: Callable[[str], str] | None = None


def _bare_except(text: str) -> bool:
    return re.match(r"^\s*except\s*:", text) is not None


def _eval_call(text: str) -> bool:
    return re.search(r"(?<![\w.])eval\(", text) is not None


def _open_without_with(text: str) -> bool:
    return re.search(r"(?<![\w.])open\(", text) is not None and not text.lstrip().startswith(
        "with "
    )


def _todo(text: str) -> bool:
    return re.search(r"#.*\bTODO\b", text) is not None


PATTERNS = (
    Pattern(
        lenses=frozenset({"correctness"}),
        title="Bare except swallows every error",
        matches=_bare_except,
        body="A bare `except:` also catches KeyboardInterrupt and SystemExit and hides the "
        "real failure.",
        lesson="Catch the specific exception instead of using a bare `except:` in {where}.",
        replace=lambda text: text.replace("except:", "except Exception:", 1),
    ),
    Pattern(
        lenses=frozenset({"security"}),
        title="eval of dynamic input",
        matches=_eval_call,
        body="`eval` runs arbitrary code if any part of its argument comes from outside.",
        lesson="Parse literals with `ast.literal_eval` instead of calling `eval` in {where}.",
        replace=lambda text: re.sub(r"(?<![\w.])eval\(", "ast.literal_eval(", text, count=1),
    ),
    Pattern(
        lenses=frozenset({"correctness", "performance"}),
        title="File opened without a context manager",
        matches=_open_without_with,
        body="The file handle is never closed if an exception is raised before `close()`.",
        lesson="Open files with a `with` block in {where} so the handle is always closed.",
    ),
    Pattern(
        lenses=frozenset({"tests"}),
        title="TODO left in the change",
        matches=_todo,
        body="The change ships an unfinished TODO; nothing tracks it.",
        lesson="Resolve or ticket the TODO in {where} before merging.",
    ),
)


def added_lines(path: str, patch: str) -> Iterator[AddedLine]:
    """Added lines of a unified-diff patch with their new-file line numbers."""
    new_line = 0
    function: str | None = None
    for raw in patch.splitlines():
        header = HUNK_HEADER.match(raw)
        if header:
            new_line = int(header.group(1))
            context = CONTEXT_DEF.search(header.group(2))
            function = context.group(1) if context else None
            continue
        if raw.startswith("-") or raw.startswith("\\"):
            continue
        text = raw[1:] if raw[:1] in ("+", " ") else raw
        definition = DEF_LINE.match(text)
        if definition:
            function = definition.group(1)
        if raw.startswith("+"):
            yield AddedLine(path=path, line=new_line, text=text, function=function)
        new_line += 1


def _where(added: AddedLine) -> str:
    if added.function:
        return f"`{added.function}` ({added.path})"
    return f"`{added.path}`"


def review(request: dict[str, Any]) -> dict[str, Any]:
    """The result for one request: findings for known patterns plus the tool receipts run."""
    lens = str(request.get("lens", {}).get("name", ""))
    known_lens = any(lens in pattern.lenses for pattern in PATTERNS)
    files = request.get("shard", {}).get("files", [])
    findings: list[dict[str, Any]] = []
    for item in files:
        path, patch = str(item.get("path", "")), str(item.get("patch") or "")
        for added in added_lines(path, patch):
            for pattern in PATTERNS:
                if known_lens and lens not in pattern.lenses:
                    continue
                if not pattern.matches(added.text):
                    continue
                finding: dict[str, Any] = {
                    "path": path,
                    "line": added.line,
                    "title": pattern.title,
                    "body": pattern.body,
                    "lesson": pattern.lesson.format(where=_where(added)),
                }
                if pattern.replace is not None:
                    finding["suggestion"] = pattern.replace(added.text)
                findings.append(finding)
    return {"findings": findings, "tool_receipts": _receipts(request, files)}


def _receipts(request: dict[str, Any], files: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Running the tests: straight to the known path if memory has it, else fail then correct."""
    if not any(str(item.get("path", "")).endswith(".py") for item in files):
        return []
    handed = f"{request.get('memory', '')}\n{request.get('cross_session', '')}"
    if PASSING_TEST in handed:
        return [{"id": "t1", "command": PASSING_TEST, "status": "passed"}]
    return [
        {"id": "t1", "command": FAILING_TEST, "status": "failed"},
        {"id": "t2", "command": PASSING_TEST, "status": "passed", "corrects": "t1"},
    ]


def main() -> int:
    """Read a request on stdin, write the result on stdout."""
    try:
        request = json.load(sys.stdin)
    except json.JSONDecodeError as exc:
        sys.stderr.write(f"demo seat: the request is not JSON: {exc}\n")
        return 2
    if not isinstance(request, dict):
        sys.stderr.write("demo seat: the request must be a JSON object\n")
        return 2
    json.dump(review(request), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
