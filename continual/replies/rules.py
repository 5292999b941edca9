"""The phrase tables of every language compiled once: rules, their trigger index, and the vetoes."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from continual.replies.phrases import LANGUAGES
from continual.replies.phrases.shared import (
    INTRO_MARKS,
    QUESTION_MARKS,
    VETO_TODO,
    Cue,
    Language,
)
from continual.values import Reason

_WORD = re.compile(r"[\w']+")
_CJK_TEXT = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class Rule:
    """One phrase rule, tried only when one of its trigger words occurs in the reply."""

    key: int
    language: str
    name: str
    reason: Reason | None
    triggers: tuple[str, ...]
    regex: re.Pattern[str]
    veto: re.Pattern[str] | None = None
    cjk: bool = False
    # A refusal by argument: its reason counts only when no other refusal names one.
    argued: bool = False
    # A refusal with no refusal word ("the caller already validates it"): it decides at merge or
    # close, when the commented lines stayed as they were; every argued rule is one.
    at_merge: bool = False

    @property
    def rule_id(self) -> str:
        if self.language == "en":
            return f"natural.{self.name}"
        return f"natural.{self.language}.{self.name}"


def _accept_rules(start: int, tables: list[tuple[Language, tuple[Cue, ...]]]) -> tuple[Rule, ...]:
    rules: list[Rule] = []
    for language, cues in tables:
        vetoes = dict(language.rule_veto)
        for name, triggers, pattern in cues:
            veto = vetoes.get(name)
            rules.append(
                Rule(
                    start + len(rules),
                    language.code,
                    name,
                    None,
                    tuple(triggers.split()),
                    re.compile(pattern),
                    None if veto is None else re.compile(veto),
                    language.cjk,
                )
            )
    return tuple(rules)


def _either(*patterns: str) -> str:
    return "|".join(pattern for pattern in patterns if pattern)


ACCEPT_START_RULES = _accept_rules(0, [(lang, lang.accept_start) for lang in LANGUAGES])
ACCEPT_ANY_RULES = _accept_rules(
    len(ACCEPT_START_RULES), [(lang, lang.accept_anywhere) for lang in LANGUAGES]
)
DISMISS_RULES = tuple(
    Rule(
        key,
        language.code,
        name,
        reason,
        tuple(triggers.split()),
        re.compile(pattern),
        cjk=language.cjk,
        argued=argued,
        at_merge=argued or name in language.arguments.split(),
    )
    for key, (language, argued, (name, reason, triggers, pattern)) in enumerate(
        (
            *((language, False, refusal) for language in LANGUAGES for refusal in language.dismiss),
            *(
                (language, True, refusal)
                for language in LANGUAGES
                for refusal in language.dismiss_argued
            ),
        ),
        start=len(ACCEPT_START_RULES) + len(ACCEPT_ANY_RULES),
    )
)
_ALL_RULES = ACCEPT_START_RULES + ACCEPT_ANY_RULES + DISMISS_RULES
_ANY_FROM = len(ACCEPT_START_RULES)
_DISMISS_FROM = _ANY_FROM + len(ACCEPT_ANY_RULES)
_CJK_RULES = tuple(rule for rule in _ALL_RULES if rule.cjk)


def _word_index(rules: tuple[Rule, ...]) -> dict[str, frozenset[int]]:
    index: dict[str, set[int]] = {}
    for rule in rules:
        if not rule.cjk:
            for word in rule.triggers:
                index.setdefault(word, set()).add(rule.key)
    return {word: frozenset(keys) for word, keys in index.items()}


_TRIGGERS = _word_index(_ALL_RULES)
_TRIGGER_WORDS = frozenset(_TRIGGERS)
_CJK_TRIGGER_KEYS: dict[str, frozenset[int]] = {
    trigger: frozenset(rule.key for rule in _CJK_RULES if trigger in rule.triggers)
    for rule in _CJK_RULES
    for trigger in rule.triggers
}
_CJK_TRIGGER = re.compile(
    "|".join(re.escape(trigger) for trigger in sorted(_CJK_TRIGGER_KEYS, key=len, reverse=True))
)

INTRO = re.compile(
    r"(?:(?!\+1\b)[^\w@])+"
    rf"|(?:{_either(INTRO_MARKS, *(lang.intro for lang in LANGUAGES))})"
    r"(?:[\s,.!:;—–-]+|$)"
)
VETO_WORDS = frozenset(" ".join(lang.veto_words for lang in LANGUAGES).split())
VETO_ANYWHERE = re.compile(_either(*(lang.veto_anywhere for lang in LANGUAGES if not lang.cjk)))
VETO_CJK = re.compile(_either(*(lang.veto_anywhere for lang in LANGUAGES if lang.cjk)))
VETO_TODO_RE = re.compile(VETO_TODO)
_VETO_ACCEPT_ANY = _either(*(lang.veto_accept_any_language for lang in LANGUAGES))
VETO_ACCEPT = {
    lang.code: re.compile(f"{_VETO_ACCEPT_ANY}|{lang.veto_accept}") for lang in LANGUAGES
}
VETO_DISMISS_BEFORE = re.compile(_either(*(lang.veto_dismiss_before for lang in LANGUAGES)))
VETO_DISMISS_AFTER = re.compile(
    rf"^.{{0,6}}(?:{_either(*(lang.veto_dismiss_after for lang in LANGUAGES))})"
)
VETO_REFUSAL = re.compile(_either(*(lang.veto_refusal for lang in LANGUAGES)))
CLOSES_THREAD = re.compile(_either(*(lang.closes_thread for lang in LANGUAGES)))
COURTESY_BUT = re.compile(_either(*(lang.courtesy_but for lang in LANGUAGES)))
AGREEMENT = re.compile(_either(*(f"(?:{lang.agreement})" for lang in LANGUAGES if lang.agreement)))
AGREEMENT_CUE = re.compile(_either(*(lang.agreement_cue for lang in LANGUAGES)))
# Agreement is said in a few words; a longer reply says something else too.
MAX_AGREEMENT_CHARS = 120
# The project moved to another tool ("we switched to ruff"): no acceptance in that sentence.
MOVED_ON = re.compile(_either(*(lang.moved_on for lang in LANGUAGES)))
RE_REVIEW = re.compile(_either(*(f"(?:{lang.re_review})" for lang in LANGUAGES if lang.re_review)))
QUESTION = re.compile(_either(QUESTION_MARKS, *(lang.question for lang in LANGUAGES)))


def words_of(low: str) -> list[str]:
    return _WORD.findall(low)


def has_cjk(low: str) -> bool:
    return _CJK_TEXT.search(low) is not None


def candidates(low: str, words: list[str] | None = None, cjk: bool | None = None) -> set[int]:
    """Keys of the rules whose trigger words occur in the reply."""
    found: set[int] = set()
    for word in _TRIGGER_WORDS.intersection(_WORD.findall(low) if words is None else words):
        found.update(_TRIGGERS[word])
    if _CJK_TEXT.search(low) if cjk is None else cjk:
        for trigger in _CJK_TRIGGER.findall(low):
            found.update(_CJK_TRIGGER_KEYS[trigger])
    return found


def names_dismissal(low: str) -> bool:
    """Whether a natural refusal cue occurs anywhere in the (folded) text."""
    keys = candidates(low)
    return any(rule.regex.search(low) for rule in DISMISS_RULES if rule.key in keys)


def split(keys: set[int]) -> tuple[list[Rule], list[Rule], list[Rule]]:
    """The candidate rules, in table order: acceptances at a clause start, anywhere, refusals."""
    ordered = sorted(keys)
    any_at = bisect_left(ordered, _ANY_FROM)
    dismiss_at = bisect_left(ordered, _DISMISS_FROM, any_at)
    return (
        [_ALL_RULES[key] for key in ordered[:any_at]],
        [_ALL_RULES[key] for key in ordered[any_at:dismiss_at]],
        [_ALL_RULES[key] for key in ordered[dismiss_at:]],
    )
