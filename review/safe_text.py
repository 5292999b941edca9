"""A seat's words as GitHub markdown that shows what the seat wrote and does nothing else.

No mention notifies anyone, no HTML, image or link renders, no fence stays open past the seat's
text, and a text over its bound is cut with a note. Inline code spans and fenced code blocks the
seat wrote are kept as code; everything else is prose with markdown's active characters escaped.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from continual.markers import neutralise

CUT_NOTE = "… cut: {count} characters more"
# Written after `@` before a login character: GitHub (and its e-mail replies) see no mention.
MENTION_BREAK = "\u200b"
# Languages a seat may name on a fence it writes; anything else (`suggestion` above all: only the
# app's own suggestion block may offer a change to apply) is dropped.
FENCE_INFO = re.compile(r"[A-Za-z0-9_+#.-]{1,32}")
DROPPED_INFO = frozenset({"suggestion"})

# A text over this many times its bound is cut without first rendering it whole.
RENDER_WHOLE_FACTOR = 4

_LINE_END = re.compile(r"\r\n|\r|\n")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_RUN = re.compile(r"`+")
# In prose: a backslash escape or a backtick run (a code span opens there, or the run is literal).
_INLINE = re.compile(r"\\[!-/:-@\[-`{-~]|`+")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
# Prose characters that would make markdown, HTML, an entity, a link, a table or a mention.
_PROSE = re.compile(r"[\\`&<>\[\]|~]|@(?=[A-Za-z0-9])")
_PROSE_ESCAPES = {
    "\\": "\\\\",
    "`": "\\`",
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "[": "\\[",
    "]": "\\]",
    "|": "\\|",
    "~": "\\~",
    "@": "@" + MENTION_BREAK,
}


def break_mentions(text: str) -> str:
    """``text`` with a zero-width space after every `@` that starts a login or a team."""
    return _MENTION.sub("@" + MENTION_BREAK, text)


def _escape(text: str) -> str:
    return _PROSE.sub(lambda match: _PROSE_ESCAPES[match.group(0)[0]], text)


def _literal(char: str) -> str:
    """A character the seat escaped with a backslash, still shown as itself."""
    return _PROSE_ESCAPES.get(char) or "\\" + char


def _longest_run(text: str) -> int:
    return max((len(match.group(0)) for match in _RUN.finditer(text)), default=0)


def code_span(text: str) -> str:
    """``text`` (one line) as an inline code span no backtick inside can close."""
    content = break_mentions(neutralise(" ".join(text.split("\n"))))
    fence = "`" * (_longest_run(content) + 1)
    padded = content.startswith("`") or content.endswith("`")
    padded = padded or (content.startswith(" ") and content.endswith(" ") and bool(content.strip()))
    return f"{fence} {content} {fence}" if padded else f"{fence}{content}{fence}"


def render_inline(line: str) -> str:
    """One line of a seat's prose: its code spans kept, every other active character escaped.

    A code span opens on a backtick run closed by the next run of the same length on the line
    (as markdown reads it); a run with no closer is written as literal backticks.
    """
    runs: dict[int, list[int]] = {}
    for run in _RUN.finditer(line):
        runs.setdefault(len(run.group(0)), []).append(run.start())
    out: list[str] = []
    pos = 0
    while pos < len(line):
        match = _INLINE.search(line, pos)
        if match is None:
            out.append(_escape(line[pos:]))
            break
        out.append(_escape(line[pos : match.start()]))
        token = match.group(0)
        pos = match.end()
        if token[0] == "\\":
            out.append(_literal(token[1]))
            continue
        starts = runs.get(len(token), [])
        index = bisect_right(starts, pos - 1)
        if index == len(starts):
            out.append("\\`" * len(token))
            continue
        closer = starts[index]
        out.append(code_span(line[pos:closer]))
        pos = closer + len(token)
    return "".join(out)


def _code_block(lines: list[str], info: str) -> str:
    content = break_mentions(neutralise("\n".join(lines)))
    fence = "`" * max(3, _longest_run(content) + 1)
    language = info.split(" ", 1)[0] if info else ""
    if not FENCE_INFO.fullmatch(language) or language.lower() in DROPPED_INFO:
        language = ""
    return f"{fence}{language}\n{content}\n{fence}" if lines else f"{fence}{language}\n{fence}"


def _closes(line: str, char: str, length: int) -> bool:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return False
    bare = stripped.rstrip(" \t")
    return len(bare) >= length and bare == char * len(bare)


def render_text(text: str) -> str:
    """A seat's explanation as markdown blocks: its fenced code blocks kept (closed at its end if
    the seat left one open), its prose escaped line by line. Each block stands apart (a blank line
    and no indent), so nothing the seat opened reaches what the app writes after it."""
    lines = _LINE_END.split(text)
    blocks: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        kept = "\n".join(render_inline(line) for line in prose).strip("\n")
        if kept.strip():
            blocks.append(kept)
        prose.clear()

    index = 0
    while index < len(lines):
        opening = _FENCE_OPEN.fullmatch(lines[index])
        if opening is None or (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            prose.append(lines[index])
            index += 1
            continue
        flush()
        char, length = opening.group(1)[0], len(opening.group(1))
        indent = len(lines[index]) - len(lines[index].lstrip(" "))
        body: list[str] = []
        index += 1
        while index < len(lines) and not _closes(lines[index], char, length):
            line = lines[index]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))) :])
            index += 1
        index += 1
        blocks.append(_code_block(body, opening.group(2).strip()))
    flush()
    return "\n\n".join(blocks)


def bounded_text(text: str, limit: int) -> str:
    """``render_text(text)`` in at most ``limit`` characters: the longest start of the text
    whose rendering fits with the note saying how many characters were cut."""
    if len(text) <= limit * RENDER_WHOLE_FACTOR:
        whole = render_text(text)
        if len(whole) <= limit:
            return whole
    low, high = 0, min(len(text), limit)
    best = _cut(text, 0)
    while low <= high:
        middle = (low + high) // 2
        candidate = _cut(text, middle)
        if len(candidate) <= limit:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


def _cut(text: str, keep: int) -> str:
    note = CUT_NOTE.format(count=f"{len(text) - keep:,}")
    rendered = render_text(text[:keep])
    return f"{rendered}\n\n{note}" if rendered else note


def bounded_inline(text: str, limit: int) -> str:
    """A seat's one-line text (a title, an excerpt): whitespace folded, at most ``limit``
    characters of it kept (an ellipsis marks a cut), then rendered as inline markdown."""
    line = " ".join(text.split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return render_inline(line)
