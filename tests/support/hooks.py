"""What a coding agent writes on a hook's stdin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def pre_tool(cwd: Path, *, session: str = "agent-1", tool: str = "", **tool_input: str) -> str:
    """A PreToolUse hook's input from ``cwd``: ``tool`` (a Read, an Edit, a Bash…) with
    ``tool_input``; a new ``session`` is handed its lessons afresh."""
    hook: dict[str, Any] = {
        "session_id": session,
        "hook_event_name": "PreToolUse",
        "cwd": str(cwd),
        "tool_input": tool_input,
    }
    if tool:
        hook["tool_name"] = tool
    return json.dumps(hook)


def read_app(repo: Path, session: str) -> str:
    """A Read of ``src/app.py`` of ``repo`` in ``session``."""
    return pre_tool(repo, session=session, tool="Read", file_path=str(repo / "src" / "app.py"))
