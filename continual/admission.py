"""Lesson admission: short, imperative, anchored to named code, no line pointers, no secrets."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass

from continual.secrets import find_secret


def _word_set(words: str) -> frozenset[str]:
    """A constant table written as white-space separated words."""
    return frozenset(words.split())


MAX_TEXT_BYTES = 640
MAX_TITLE_BYTES = 96
MAX_SENTENCES = 2
MIN_IDENTIFIER_CHARS = 3

STAGE_EMPTY = "empty"
STAGE_TITLE_TOO_LONG = "title-too-long"
STAGE_TOO_LONG = "too-long"
STAGE_SECRET = "secret"
STAGE_LINE_POINTER = "line-pointer"
STAGE_SENTENCES = "sentences"
STAGE_NOT_IMPERATIVE = "not-imperative"
STAGE_NO_ANCHOR = "no-anchor"

MESSAGES: dict[str, str] = {
    STAGE_EMPTY: "The lesson title and text must both be non-blank.",
    STAGE_TITLE_TOO_LONG: f"The title must be at most {MAX_TITLE_BYTES} UTF-8 bytes.",
    STAGE_TOO_LONG: f"The lesson must be at most {MAX_TEXT_BYTES} UTF-8 bytes.",
    STAGE_SECRET: "The lesson or title holds what looks like a secret; remove it.",
    STAGE_LINE_POINTER: "Name the file and function instead of pointing at a line number.",
    STAGE_SENTENCES: f"The lesson must be one to {MAX_SENTENCES} sentences.",
    STAGE_NOT_IMPERATIVE: "The lesson must be an instruction that starts with a verb (no questions).",
    STAGE_NO_ANCHOR: "The lesson must name a file or function from the suggestion's context.",
}
ADMITTED_MESSAGE = "admitted"
REJECTED_LOG = "lesson rejected"

# Base-form verbs a review lesson commonly starts with.
IMPERATIVE_VERBS: frozenset[str] = _word_set(
    """
    accept add adjust allow annotate apply assert avoid await batch bound break bump cache call
    cancel cap catch chain check clamp clean clear close coerce collect compare compute configure
    confirm consider convert copy count create debounce declare decode dedupe deduplicate default
    defer define delete deprecate derive describe destroy detect disable dispose document drain
    drop emit enable encode enforce ensure escape evict exclude expect explain export extract fail
    fetch filter flush fold follow forbid format free freeze gate generate guard handle hash hold
    ignore import include increment index initialise initialize inject inline insert inspect
    isolate keep label limit list load lock log lower make map mark mask match measure memoize
    merge migrate mock move name narrow normalise normalize note omit open order paginate parse
    pass patch pin poll preallocate prefer prefix prepare preserve prevent print propagate protect
    pull quote raise read reconnect record recover redact reduce refactor refresh register reject
    release reload remove rename render reorder replace report require reraise rescue reset
    resolve restore restrict retry return reuse revert rewrite rollback round run sanitise sanitize
    save scope seed select send serialise serialize set skip sort split start stop store stream
    strip stub subscribe supply swap sync take test throttle throw time track translate trim
    truncate try type unlock unpack unsubscribe update upgrade use validate verify wait warn wrap
    write yield swallow mutate leak hardcode block share assume rely depend re-raise re-check
    re-use expose shadow overwrite hide commit push squash memoise bypass silence suppress
    """
)
ADVERB_PREFIXES: tuple[tuple[str, ...], ...] = (("always",), ("only",))
NEGATION_PREFIXES: tuple[tuple[str, ...], ...] = (("never",), ("do", "not"), ("don't",), ("dont",))
# After a negation any word may follow ("Don't swallow …") except these, which start no verb.
NOT_VERBS = _word_set(
    """
    a an the this that these those it its we you they he she i my our your their there here
    all any some every each no not
    """
)
CONDITIONAL_OPENERS: frozenset[str] = frozenset(
    {"when", "whenever", "if", "unless", "before", "after", "while", "in", "for", "on"}
)
ABBREVIATIONS: tuple[str, ...] = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "resp.")

_LOG = logging.getLogger(__name__)

_ABBREVIATION = re.compile("|".join(map(re.escape, ABBREVIATIONS)), re.IGNORECASE)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")
_WORD = re.compile(r"[\w'’]+(?:[.\-][\w'’]+)*")
_LEADING_NOISE = re.compile(r"^[\s\"'“”‘’*_>\-•(\[]+")
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_]")
_PATH_CHAR = re.compile(r"[A-Za-z0-9_\-]")
_LINE_POINTERS: tuple[re.Pattern[str], ...] = (
    # src/a.py:12, a.py:12:3, ./pkg/mod.rs:7
    re.compile(r"(?<![\w/.\-])(?:[\w.\-]+/)*[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,7}:\d+(?::\d+)?\b"),
    # src/a:12 (a path with a folder but no extension)
    re.compile(r"(?<![\w/.\-])(?:[\w.\-]+/)+[\w.\-]+:\d+\b"),
    # a.py#L12, a.py#L12-L14; tried only where a name starts (the leftmost match starts there
    # anyway): from every character of a long name, the scan to its end was quadratic
    re.compile(r"(?<![\w\-])[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,7}#L\d+", re.IGNORECASE),
    # line 12 of a.py, lines 3-4 in a.py, on line 12, at line 12
    re.compile(r"\blines?\s+\d+(?:\s*[-–]\s*\d+)?\s+(?:of|in)\b", re.IGNORECASE),
    re.compile(r"\b(?:on|at)\s+lines?\s+\d+\b", re.IGNORECASE),
    # File "a.py", line 12 (a traceback frame)
    re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}[\"']?,\s*line\s+\d+\b", re.IGNORECASE),
)


@dataclass(frozen=True, slots=True)
class Admission:
    """The verdict on one lesson: admitted, or the stage that rejected it and what to do."""

    admitted: bool
    stage: str | None
    message: str


def _byte_len(value: str) -> int:
    return len(value.encode("utf-8"))


def _mask_code(text: str) -> str:
    """Replace backticked spans by same-length filler so their dots and words do not count."""
    return _CODE_SPAN.sub(lambda m: "`" + "x" * (len(m.group(0)) - 2) + "`", text)


def sentences(text: str) -> list[str]:
    """Split prose into sentences; code spans, file names and common abbreviations do not split."""
    masked = _ABBREVIATION.sub(lambda m: "x" * len(m.group(0)), _mask_code(text))
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(masked):
        piece = text[start : match.end()].strip()
        if piece:
            pieces.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return pieces


def _words(sentence: str) -> list[str]:
    body = _LEADING_NOISE.sub("", _mask_code(sentence))
    return [w.lower().replace("’", "'") for w in _WORD.findall(body)]


def _is_imperative_words(words: list[str]) -> bool:
    if not words:
        return False
    if words[0] in IMPERATIVE_VERBS:
        return True
    for prefix in ADVERB_PREFIXES:
        if tuple(words[: len(prefix)]) == prefix and len(words) > len(prefix):
            return words[len(prefix)] in IMPERATIVE_VERBS
    for prefix in NEGATION_PREFIXES:
        if tuple(words[: len(prefix)]) == prefix and len(words) > len(prefix):
            following = words[len(prefix)]
            return following.isalpha() and following not in NOT_VERBS
    return False


def is_imperative(sentence: str) -> bool:
    """True when the sentence is an instruction: a base-form verb first, optionally negated
    (``never``, ``always``, ``only``, ``do not``, ``don't``) or after a leading condition
    ("When parsing `x`, check …"). A question is never an instruction."""
    if sentence.rstrip().endswith("?"):
        return False
    words = _words(sentence)
    if _is_imperative_words(words):
        return True
    if words and words[0] in CONDITIONAL_OPENERS:
        masked = _mask_code(sentence)
        comma = masked.find(",")
        if comma != -1:
            return _is_imperative_words(_words(sentence[comma + 1 :]))
    return False


def find_line_pointer(text: str) -> tuple[int, int] | None:
    """The span of the first ``path:line`` style pointer in ``text``, or None."""
    for pattern in _LINE_POINTERS:
        match = pattern.search(text)
        if match is not None:
            return match.span()
    return None


def _occurs(text: str, needle: str, boundary: re.Pattern[str]) -> bool:
    """``needle`` occurs in ``text`` with no ``boundary`` character touching either end."""
    start = text.find(needle)
    while start != -1:
        end = start + len(needle)
        before_ok = start == 0 or not boundary.match(text[start - 1])
        after_ok = end == len(text) or not boundary.match(text[end])
        if before_ok and after_ok:
            return True
        start = text.find(needle, start + 1)
    return False


def _normalise_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/")


def names_anchor(
    text: str, context_paths: Iterable[str], context_identifiers: Iterable[str]
) -> bool:
    """True when a context path, its basename or a context identifier occurs in ``text``.

    Paths and basenames match between non-name characters (a trailing full stop is fine);
    identifiers match as whole names (at least 3 characters, so ``a`` or ``id`` never anchor).
    """
    for raw in context_paths:
        path = _normalise_path(raw)
        if not path:
            continue
        basename = path.rsplit("/", 1)[-1]
        for needle in {path, basename}:
            if needle and _occurs(text, needle, _PATH_CHAR):
                return True
    for raw in context_identifiers:
        name = raw.strip().strip("`").removesuffix("()")
        if len(name) >= MIN_IDENTIFIER_CHARS and _occurs(text, name, _IDENT_CHAR):
            return True
    return False


def _rejected(stage: str) -> Admission:
    _LOG.info(REJECTED_LOG, extra={"stage": stage})
    return Admission(admitted=False, stage=stage, message=MESSAGES[stage])


def admit(
    *,
    title: str,
    text: str,
    context_paths: Iterable[str],
    context_identifiers: Iterable[str],
) -> Admission:
    """Decide whether a lesson may be stored as injectable text (docs/writeback.md).

    Stages run in this order and the first failure is reported: empty, title-too-long, too-long,
    secret (title or text), line-pointer (title or text), sentences, not-imperative, no-anchor.
    A rejection is logged with its stage only, never with the title or text.
    """
    if not title.strip() or not text.strip():
        return _rejected(STAGE_EMPTY)
    if _byte_len(title) > MAX_TITLE_BYTES:
        return _rejected(STAGE_TITLE_TOO_LONG)
    if _byte_len(text) > MAX_TEXT_BYTES:
        return _rejected(STAGE_TOO_LONG)
    if find_secret(text) is not None or find_secret(title) is not None:
        return _rejected(STAGE_SECRET)
    if find_line_pointer(text) is not None or find_line_pointer(title) is not None:
        return _rejected(STAGE_LINE_POINTER)
    parts = sentences(text)
    if not 1 <= len(parts) <= MAX_SENTENCES:
        return _rejected(STAGE_SENTENCES)
    if not is_imperative(parts[0]) or any(p.rstrip().endswith("?") for p in parts):
        return _rejected(STAGE_NOT_IMPERATIVE)
    if not names_anchor(text, context_paths, context_identifiers):
        return _rejected(STAGE_NO_ANCHOR)
    return Admission(admitted=True, stage=None, message=ADMITTED_MESSAGE)
