"""Replies that put a suggestion off to later work: recorded as deferred, never a decision."""

from __future__ import annotations

import functools
import re

from continual.replies.phrases import LANGUAGES
from continual.replies.rules import VETO_TODO_RE, has_cjk
from continual.replies.verdict import Deferral, fold

RULE = "natural.deferred"
_QUOTE_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]*`", re.DOTALL)
_WORD = re.compile(r"[\w']+")
# Each language's deferral, and the words it needs (None: written in Chinese, Japanese or Korean).
_READERS: tuple[tuple[re.Pattern[str], frozenset[str] | None], ...] = tuple(
    (re.compile(lang.deferral), None if lang.cjk else frozenset(lang.deferral_words.split()))
    for lang in LANGUAGES
    if lang.deferral
)


@functools.lru_cache(maxsize=256)
def read_deferral(text: str) -> Deferral | None:
    """The deferral a reply states ("let's do that in a follow-up", "später", "別のPRで"), or None.

    Quoted lines and code are not the replier's words: a quoted "TODO" or a `later()` call defers
    nothing. "TODO" counts as written by developers (upper case), so Spanish "todo" is no deferral.

    A write-back asks it about the same reply up to three times (`classify_reply`, `read_reply`
    and the readings' deferrals), and a hostile reply of 65,536 characters takes its patterns
    about 40 ms: the answer, which depends on the text alone, is kept for the last 256 texts.
    """
    prose = _CODE.sub(" ", _QUOTE_LINE.sub(" ", text)) if "`" in text or ">" in text else text
    low = fold(prose)
    words = set(_WORD.findall(low))
    if "#" in low:
        words.add("#")
    cjk = has_cjk(low)
    match = None
    for regex, needs in _READERS:
        if (cjk if needs is None else not needs.isdisjoint(words)) and (match := regex.search(low)):
            break
    match = match or VETO_TODO_RE.search(prose)
    if match is None:
        return None
    source = prose if len(low) == len(prose) else low
    return Deferral(RULE, source[match.start() : match.end()].strip())
