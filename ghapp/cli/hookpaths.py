"""The paths an agent's tool call touches, read from the hook's JSON input.

A coding agent's hook gets the tool's input (``file_path``, ``path``, ``notebook_path``; a shell
tool's ``command``) and the working directory (``cwd``). Lessons are keyed on paths from the
repository's top, so each path is resolved against the working directory and against the
workspace root (``CLAUDE_PROJECT_DIR``, else the git top-level of the working directory) and
given from the root; a path outside the working directory is kept when it is inside the
workspace, and one outside the workspace is dropped.

A shell command is split as the shell would (``shlex``), following ``cd``: of
``cd src && cat app.py`` the path is ``src/app.py``. Its arguments that name an existing file or
folder are taken; the program's name, options and words that name nothing are not.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

PATH_FIELDS = ("file_path", "path", "notebook_path")
SHELL_FIELD = "command"
PROJECT_ENV = "CLAUDE_PROJECT_DIR"
# What ends one simple command of a shell line (what follows is the next program).
SEPARATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "|&", "(", ")"})
# Redirections: the word after one is a file, not an argument.
REDIRECTS = frozenset({">", ">>", "<", "2>", "2>>", "&>", ">&", "<<", "<<<"})
MAX_PATHS = 32  # a long shell line yields at most this many paths
MAX_COMMAND_CHARS = 8_000  # longer shell lines are read up to here


def workspace_root(cwd: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """The workspace: the agent's project folder, else the git top-level of ``cwd``, else ``cwd``."""
    project = environ.get(PROJECT_ENV)
    if project and Path(project).is_dir():
        return Path(project).resolve()
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return cwd.resolve()
    found = top.stdout.strip()
    return Path(found).resolve() if top.returncode == 0 and found else cwd.resolve()


def _inside(path: Path, root: Path) -> str | None:
    """``path`` from ``root`` as POSIX text, or None when it is outside (or the root itself)."""
    try:
        relative = path.relative_to(root)
    except ValueError:
        return None
    text = relative.as_posix()
    return None if text in ("", ".") else text


def _resolve(value: str, here: Path, root: Path, *, must_exist: bool) -> str | None:
    """``value`` from the root: tried from ``here`` and from the root, the first that exists."""
    given = Path(value).expanduser()
    candidates = [given] if given.is_absolute() else [here / given, root / given]
    for candidate in candidates:
        resolved = Path(os.path.normpath(candidate))
        if resolved.exists():
            return _inside(resolved.resolve(), root)
    if must_exist:
        return None
    return _inside(Path(os.path.normpath(candidates[0])), root)  # a file the tool will create


def _words(command: str) -> list[str]:
    lexer = shlex.shlex(command[:MAX_COMMAND_CHARS], posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: read it as plain words
        return command[:MAX_COMMAND_CHARS].split()


def _simple_commands(words: list[str]) -> Iterator[list[str]]:
    current: list[str] = []
    for word in words:
        if word in SEPARATORS:
            if current:
                yield current
            current = []
        else:
            current.append(word)
    if current:
        yield current


def shell_paths(command: str, cwd: Path, root: Path) -> list[str]:
    """The existing files and folders a shell line names, from the root, following ``cd``."""
    here = cwd.resolve()
    found: list[str] = []
    for words in _simple_commands(_words(command)):
        while words and "=" in words[0] and not words[0].startswith(("=", "-")):
            words = words[1:]  # `NAME=value program …`: the assignments are not the program
        if not words:
            continue
        if words[0] == "cd":
            target = next((w for w in words[1:] if not w.startswith("-")), None)
            moved = Path(os.path.normpath(here / Path(target).expanduser())) if target else root
            if moved.is_dir():
                here = moved
            continue
        for word in words[1:]:
            if word in REDIRECTS:
                continue
            if word.startswith("-"):
                _, equals, value = word.partition("=")
                if not equals:
                    continue
                word = value  # `--file=path`
            path = _resolve(word, here, root, must_exist=True) if word else None
            if path is not None and path not in found:
                found.append(path)
    return found


def hook_paths(hook: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> list[str]:
    """Every path the hook's tool call touches, from the workspace root, each once."""
    tool = hook.get("tool_input")
    if not isinstance(tool, dict):
        return []
    cwd = Path(str(hook.get("cwd") or Path.cwd()))
    if not cwd.is_dir():
        return []
    cwd = cwd.resolve()
    root = workspace_root(cwd, environ)
    found: list[str] = []
    for name in PATH_FIELDS:
        value = tool.get(name)
        if isinstance(value, str) and value:
            path = _resolve(value, cwd, root, must_exist=False)
            if path is not None and path not in found:
                found.append(path)
    command = tool.get(SHELL_FIELD)
    if isinstance(command, str) and command.strip():
        found += [path for path in shell_paths(command, cwd, root) if path not in found]
    return found[:MAX_PATHS]
