"""When two lessons of one repository are paraphrases of the same advice: the rule, in plain values.

Two lessons are the same advice when all of these hold (docs/lessons.md, "Consolidation"):

1. the same repository and the same lens;
2. they share an anchor: a file or an identifier they name (from their associations);
3. their titles name the same identifiers (``parse_config`` is not ``load_config``);
4. their titles do not contradict each other (one says ``with``/``checked`` where the other says
   ``without``/``unchecked``/``not checked``);
5. their titles' terms (stemmed, stop words left out, identifiers kept whole, a negation folded
   into the word it negates) overlap with a Dice coefficient of at least ``MIN_TITLE_DICE``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]

from continual.associations import STOP_WORDS, find_identifiers, is_code_like

MIN_TITLE_DICE = 0.6
NEGATIONS = frozenset({"not", "no", "never", "without", "missing", "lacks", "lacking", "nor"})
NEGATED = "!"
IDENTIFIER = "`"
# "unchecked", "unclosed", "unvalidated": a negated participle.
_UN_PARTICIPLE = re.compile(r"un([a-z]{3,}ed)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")

_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


@dataclass(frozen=True, slots=True)
class ParaphraseCandidate:
    """A lesson as consolidation needs it: where it lives, what it names, how much backs it."""

    id: str
    repository_id: int
    key: str
    lens: str
    title: str
    revision: int
    files: tuple[str, ...]
    identifiers: tuple[str, ...]
    admitted: bool = True
    accepted: int = 0  # current accepted receipts
    created_ms: int = 0
    text: str = ""  # the lesson's text: the same text is the same advice, whatever the lens

    @property
    def anchors(self) -> frozenset[str]:
        return frozenset(self.files) | frozenset(self.identifiers)


def title_identifiers(title: str) -> frozenset[str]:
    """The identifiers a title names (backticked, snake, camel or dotted names)."""
    return frozenset(name.lower() for name in find_identifiers(title))


def title_terms(title: str) -> frozenset[str]:
    """The title's terms: identifiers whole, other words stemmed without stop words; a negation
    (``not``, ``without``, an ``un…ed`` word) marks the next word it applies to with ``!``."""
    names = title_identifiers(title)
    terms: set[str] = set()
    negate = False
    for raw in _WORD.findall(title.replace("`", " ")):
        word = raw.lower().strip(".")
        if word in names or is_code_like(raw):
            terms.add(IDENTIFIER + word)
            negate = False
            continue
        if word in NEGATIONS:
            negate = True
            continue
        if word in STOP_WORDS:
            continue
        participle = _UN_PARTICIPLE.fullmatch(word)
        if participle is not None:
            word, negate = participle.group(1), not negate
        terms.add((NEGATED if negate else "") + _stem(word))
        negate = False
    return frozenset(terms)


def _contradict(first: Iterable[str], second: frozenset[str]) -> bool:
    """One title says a word the other negates."""
    for term in first:
        flipped = term[1:] if term.startswith(NEGATED) else NEGATED + term
        if flipped in second:
            return True
    return False


def dice(first: frozenset[str], second: frozenset[str]) -> float:
    if not first and not second:
        return 1.0
    return 2 * len(first & second) / (len(first) + len(second))


def same_advice(first: ParaphraseCandidate, second: ParaphraseCandidate) -> bool:
    """True when the two lessons are paraphrases of one piece of advice (the module's rule)."""
    if first.repository_id != second.repository_id or first.lens != second.lens:
        return False
    if not first.anchors & second.anchors:
        return False
    if title_identifiers(first.title) != title_identifiers(second.title):
        return False
    terms, others = title_terms(first.title), title_terms(second.title)
    if _contradict(terms, others):
        return False
    return dice(terms, others) >= MIN_TITLE_DICE
