"""Subjects: the normalised names under which memory items are recalled and hits are counted."""

from __future__ import annotations

import posixpath
import re
import shlex

from continual.entry_keys import entry_key

_WHITESPACE = re.compile(r"\s+")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")


def _normal(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip().lower().rstrip(".!?;: ")


def tool_subject(command: str) -> str:
    return f"tool:{_WHITESPACE.sub(' ', command).strip()}"


def finding_subject(lens: str, title: str, path: str) -> str:
    return f"finding:{entry_key(lens, title)}:{path.strip()}"


def hypothesis_subject(text: str) -> str:
    return f"hypothesis:{_normal(text)}"


def fact_subject(kind: str, text: str) -> str:
    return f"fact:{kind.strip().lower()}:{_normal(text)}"


def program_of(command: str) -> str:
    """The program a command runs, ignoring ``VAR=value`` prefixes; ``python -m X`` runs X."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        tokens = command.split()
    while tokens and (_ASSIGNMENT.match(tokens[0]) or tokens[0] == "env"):
        tokens.pop(0)
    if not tokens:
        return ""
    program = posixpath.basename(tokens[0]).lower()
    if _PYTHON.match(program) and len(tokens) > 2 and tokens[1] == "-m":
        return tokens[2].lower()
    return program
