"""Prompt layout: a shared header byte-identical across a review's calls, then the call's own parts."""

from __future__ import annotations

import re
from collections.abc import Sequence

from review.contract import SCHEMA, LessonRef, PullRequestInfo
from review.lenses import Lens
from review.shards import Shard

HEADER_END = "=== end of shared header ===\n"
NO_LESSONS = "(none yet)"

OUTPUT_CONTRACT = f"""\
Answer with exactly one JSON object and nothing else (schema {SCHEMA} result):
{{"findings": [{{"path": "<file path from the diff>", "line": <line number in the new file>,
  "title": "<short name of the mechanism, at most 96 bytes>", "body": "<what is wrong and why>",
  "suggestion": "<replacement lines for that line, optional>",
  "lesson": "<one or two imperative sentences naming the file or function, optional>",
  "proof": {{"test": "<shell command that fails now>", "fix": "<unified diff that makes it pass>"}}}}],
 "tool_receipts": [{{"id": "t1", "command": "<command you ran>",
  "status": "passed|failed|error|timeout", "corrects": "<id of the receipt it corrects, optional>"}}],
 "hypotheses": [{{"id": "h1", "text": "<claim>", "status": "confirmed|refuted|open",
  "evidence": ["<receipt ids>"]}}],
 "facts": [{{"kind": "<decision|contradiction|mistake|...>", "text": "<what you learned>"}}]}}
Report only real problems in the changed lines; an empty "findings" list is a good answer.
"""

_WHITESPACE = re.compile(r"\s+")


def _one_line(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def render_header(
    *,
    repository: str,
    pull: PullRequestInfo,
    lessons: Sequence[LessonRef],
    dismissed_text: str = "",
    summary_text: str = "",
) -> str:
    """The header shared, byte for byte, by every call of one review; ``dismissed_text`` is the
    block of mechanisms maintainers dismissed in the repository, ``summary_text`` the
    repository's memory summary with its heuristic framing (none: no such part)."""
    lesson_lines = [f"- {_one_line(lesson.text)}" for lesson in lessons] or [NO_LESSONS]
    body = pull.body.strip() or "(no description)"
    parts = [
        "You are one reviewer of a GitHub pull request.",
        "",
        f"Repository: {repository}",
        f"Pull request #{pull.number}: {_one_line(pull.title)}",
        f"Head commit: {pull.head_sha}",
        f"Base commit: {pull.base_sha}",
        "Description:",
        body,
        "",
        "Output contract:",
        OUTPUT_CONTRACT.rstrip("\n"),
        "",
        "Lessons this repository has learned (follow them):",
        *lesson_lines,
        "",
        *([dismissed_text.rstrip("\n"), ""] if dismissed_text.strip() else []),
        *([summary_text.rstrip("\n"), ""] if summary_text.strip() else []),
        HEADER_END,
    ]
    return "\n".join(parts)


def render_shard(shard: Shard) -> str:
    """The shard's files and patches as prompt text."""
    lines = [f"Shard {shard.index + 1} of {shard.count}:"]
    for item in shard.files:
        lines.append(f"--- {item.label} ({item.status})")
        lines.append(item.patch.rstrip("\n") if item.patch else "(no textual patch)")
    return "\n".join(lines) + "\n"


def render_call_prompt(
    header: str,
    lens: Lens,
    shard: Shard,
    memory_block: str,
    cross_session_block: str,
) -> str:
    """Header, then lens and shard, then session memory, then the cross-session block."""
    parts = [
        header,
        f"Lens: {lens.name}\n{lens.instructions.strip()}\n",
        render_shard(shard),
    ]
    if memory_block:
        parts.append(memory_block.rstrip("\n") + "\n")
    if cross_session_block:
        parts.append(cross_session_block.rstrip("\n") + "\n")
    return "\n".join(parts)
