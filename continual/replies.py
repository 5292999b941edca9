"""What a maintainer's reply to a suggestion decides: the typed grammar first, then plain phrasing."""

from __future__ import annotations

import re
from dataclasses import dataclass

from continual import replies_lang as lang
from continual import replies_refusals as refusals
from continual.values import Decision, Reason

# Replies longer than this (after quotes and code are removed) are discussion, not a verdict.
MAX_NATURAL_CHARS = 600

# The reason words a typed dismissal accepts, spaces written as hyphens.
TYPED_REASONS: dict[str, Reason] = {
    "false-positive": Reason.FALSE_POSITIVE,
    "wont-fix": Reason.WONT_FIX,
    "wontfix": Reason.WONT_FIX,
    "won't-fix": Reason.WONT_FIX,
    "not-applicable": Reason.NOT_APPLICABLE,
    "duplicate": Reason.DUPLICATE,
    "out-of-scope": Reason.OUT_OF_SCOPE,
    "style": Reason.STYLE,
}

_APOSTROPHE = re.compile("[\u2019\u2018\u02bc\uff07]")

# SPEC §5.3, on the first non-blank line: optional `/`, optional `@<slug>` or `@<slug>[bot]`.
_TYPED = re.compile(
    r"\s*/?\s*(?:@(?P<mention>[\w.-]+)(?:\[bot\])?(?:[\s,:]+/?|/)\s*)?"
    r"(?:(?P<accept>accepted|accept|fixed|applied)"
    r"|(?P<dismiss>dismiss|refuse|reject)"
    r"|(?P<wontfix>wontfix|won't fix)"
    r"|(?P<fp>false positive))"
    r"(?=$|[^\w])",
)
_TYPED_REASON = re.compile(
    r"[\s:]+(?P<reason>false[- ]positive|wont[- ]?fix|won't[- ]fix|not[- ]applicable|duplicate"
    r"|out[- ]of[- ]scope|style)(?=$|[^\w-])"
)
# A typed accept word that is asked about, negated or qualified on its own line is not a command:
# "fixed? no", "fixed the other one, not this", "fixed, but differently". Nor is one about the
# pull request rather than the suggestion: "fixed the CI failure", "fixed the typo in the PR
# description", "fixed the changelog".
_TYPED_ACCEPT_GUARD = re.compile(
    r"\?|\b(?:not|no|never|but|except|yet|partially|partly|half|later|maybe|perhaps|probably"
    r"|unless|if|other|upstream|elsewhere|main|master|still|conflicts?|branch|rebased?|merged?"
    r"|ci|pipeline|changelog|unrelated|description|commit message|labels?|milestone|lockfile)\b"
    r"|n't\b|#\d+"
)
_TYPED_DISMISS_GUARD = re.compile(r"\?|\b(?:maybe|perhaps|probably|not sure|i think)\b")

_FENCED_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"https?://\S+")
_QUOTE_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_NOT_NEWLINE = re.compile(r"[^\n]")
_SENTENCE = re.compile(r"[^\n.!?;。！？；]*(?:[.!?;。！？；]+|\n|$)")
_CLAUSE_BREAK = re.compile(r"[,;:—–(，、；]|\s-\s")


_WORD = re.compile(r"[\w']+")
_CJK_TEXT = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})


@dataclass(frozen=True)
class _Rule:
    key: int
    language: str
    name: str
    reason: Reason | None
    triggers: tuple[str, ...]
    regex: re.Pattern[str]
    veto: re.Pattern[str] | None = None

    @property
    def rule_id(self) -> str:
        if self.language == "en":
            return f"natural.{self.name}"
        return f"natural.{self.language}.{self.name}"


def _rule_veto(language: str, name: str) -> re.Pattern[str] | None:
    pattern = lang.RULE_VETO.get((language, name))
    return None if pattern is None else re.compile(pattern)


_ACCEPT_START_RULES = tuple(
    _Rule(
        key,
        language,
        name,
        None,
        tuple(triggers.split()),
        re.compile(pattern),
        _rule_veto(language, name),
    )
    for key, (language, name, triggers, pattern) in enumerate(lang.ACCEPT_START)
)
_ACCEPT_ANY_RULES = tuple(
    _Rule(
        key,
        language,
        name,
        None,
        tuple(triggers.split()),
        re.compile(pattern),
        _rule_veto(language, name),
    )
    for key, (language, name, triggers, pattern) in enumerate(
        lang.ACCEPT_ANYWHERE, start=len(_ACCEPT_START_RULES)
    )
)
_DISMISS_RULES = tuple(
    _Rule(key, language, name, reason, tuple(triggers.split()), re.compile(pattern))
    for key, (language, name, reason, triggers, pattern) in enumerate(
        refusals.DISMISS, start=len(_ACCEPT_START_RULES) + len(_ACCEPT_ANY_RULES)
    )
)
_ALL_RULES = _ACCEPT_START_RULES + _ACCEPT_ANY_RULES + _DISMISS_RULES
_CJK_RULES = tuple(rule for rule in _ALL_RULES if rule.language in _CJK_LANGUAGES)


def _word_index(rules: tuple[_Rule, ...]) -> dict[str, frozenset[int]]:
    index: dict[str, set[int]] = {}
    for rule in rules:
        if rule.language not in _CJK_LANGUAGES:
            for word in rule.triggers:
                index.setdefault(word, set()).add(rule.key)
    return {word: frozenset(keys) for word, keys in index.items()}


_TRIGGERS = _word_index(_ALL_RULES)
_CJK_TRIGGER_KEYS: dict[str, frozenset[int]] = {
    trigger: frozenset(rule.key for rule in _CJK_RULES if trigger in rule.triggers)
    for rule in _CJK_RULES
    for trigger in rule.triggers
}
_CJK_TRIGGER = re.compile(
    "|".join(re.escape(trigger) for trigger in sorted(_CJK_TRIGGER_KEYS, key=len, reverse=True))
)
_INTRO = re.compile(lang.INTRO)
_VETO_WORDS = frozenset(lang.VETO_WORDS.split())
_VETO_ANYWHERE = re.compile(lang.VETO_ANYWHERE)
_VETO_CJK = re.compile(lang.VETO_CJK)
_VETO_TODO = re.compile(lang.VETO_TODO)
_VETO_ACCEPT = {
    language: re.compile(f"{lang.VETO_ACCEPT_SHARED}|{own}")
    for language, own in lang.VETO_ACCEPT.items()
}
_VETO_DISMISS_BEFORE = re.compile(lang.VETO_DISMISS_BEFORE)
_VETO_DISMISS_AFTER = re.compile(lang.VETO_DISMISS_AFTER)
_QUESTION = re.compile(lang.QUESTION)


@dataclass(frozen=True)
class Verdict:
    """A decision read from one reply, with the rule that read it and the text it matched."""

    decision: Decision
    reason: Reason | None
    rule: str
    span: str


def _first_line(text: str) -> str | None:
    """The first non-blank line that is not quoted text (`> …`)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(">"):
            return stripped
    return None


def _fold(text: str) -> str:
    """Lower case with typographic apostrophes made plain; the length is kept where it can be."""
    return _APOSTROPHE.sub("'", text.lower())


def _typed(text: str, *, app_slug: str) -> tuple[Verdict | None, bool]:
    """The typed verdict of the first line, and whether that line was a dismissal command at all."""
    line = _first_line(text)
    if line is None:
        return None, False
    low = _fold(line)
    match = _TYPED.match(low)
    if match is None:
        return None, False
    mention = match.group("mention")
    if mention is not None and mention != app_slug.lower():
        return None, False
    end = match.end()
    if match.group("accept"):
        if _TYPED_ACCEPT_GUARD.search(low, end) or _names_dismissal(low):
            return None, False
        return Verdict(Decision.ACCEPTED, None, "grammar.accept", line[:end].strip()), False
    if match.group("dismiss"):
        found = _TYPED_REASON.match(low, end)
        if found is None or _TYPED_DISMISS_GUARD.search(low, found.end()):
            return None, True
        reason = TYPED_REASONS[found.group("reason").replace(" ", "-")]
        verdict = Verdict(
            Decision.DISMISSED, reason, "grammar.dismiss", line[: found.end()].strip()
        )
        return verdict, True
    if _TYPED_DISMISS_GUARD.search(low, end):
        return None, False
    if match.group("wontfix"):
        verdict = Verdict(
            Decision.DISMISSED, Reason.WONT_FIX, "grammar.wontfix", line[:end].strip()
        )
        return verdict, False
    span = line[:end].strip()
    return Verdict(Decision.DISMISSED, Reason.FALSE_POSITIVE, "grammar.false-positive", span), False


def classify_typed(text: str, *, app_slug: str) -> Verdict | None:
    """The typed reply grammar of SPEC §5.3 alone; None when the first line is not a decision."""
    return _typed(text, app_slug=app_slug)[0]


def _names_dismissal(low: str) -> bool:
    candidates = _candidates(low)
    return any(rule.regex.search(low) for rule in _DISMISS_RULES if rule.key in candidates)


def _blank(match: re.Match[str]) -> str:
    return _NOT_NEWLINE.sub(" ", match.group(0))


def _clean(text: str) -> str:
    """Remove what the maintainer did not write as prose, keeping every offset in place."""
    if "`" in text or "~~~" in text:
        text = _FENCED_CODE.sub(_blank, text)
        text = _INLINE_CODE.sub(lambda m: "x" * len(m.group(0)), text)
    if ">" in text:
        text = _QUOTE_LINE.sub(_blank, text)
    if "://" in text:
        text = _URL.sub(lambda m: "u" * len(m.group(0)), text)
    return text


def _candidates(low: str, words: list[str] | None = None, cjk: bool | None = None) -> set[int]:
    """Keys of the rules whose trigger words occur in the reply."""
    found: set[int] = set()
    for word in _WORD.findall(low) if words is None else words:
        keys = _TRIGGERS.get(word)
        if keys is not None:
            found.update(keys)
    if _CJK_TEXT.search(low) if cjk is None else cjk:
        for trigger in _CJK_TRIGGER.findall(low):
            found.update(_CJK_TRIGGER_KEYS[trigger])
    return found


def _vetoed(low: str, cleaned: str, words: list[str], cjk: bool) -> bool:
    """Whether the reply hedges, defers, contrasts or mocks anywhere: then it decides nothing."""
    if not _VETO_WORDS.isdisjoint(words):
        return True
    if _VETO_ANYWHERE.search(low) or _VETO_TODO.search(cleaned):
        return True
    return cjk and _VETO_CJK.search(low) is not None


def _natural(text: str) -> Verdict | None:
    cleaned = _clean(text)
    if len(cleaned.strip()) > MAX_NATURAL_CHARS:
        return None
    low = _fold(cleaned)
    if len(low) != len(text):
        text = low  # lower() changed the length (rare); report spans from the folded text
    words = _WORD.findall(low)
    cjk = _CJK_TEXT.search(low) is not None
    candidates = _candidates(low, words, cjk)
    if not candidates:
        return None
    start_rules = [rule for rule in _ACCEPT_START_RULES if rule.key in candidates]
    any_rules = [rule for rule in _ACCEPT_ANY_RULES if rule.key in candidates]
    dismiss_rules = [rule for rule in _DISMISS_RULES if rule.key in candidates]
    accepted: tuple[str, str] | None = None
    # An acceptance cue the sentence vetoes ("handled in the middleware already") accepts nothing,
    # and leaves the reply to a duplicate refusal only.
    blocked = False
    dismissals: list[tuple[Reason, str, str]] = []
    for sentence in _SENTENCE.finditer(low):
        start, stop = sentence.span()
        if start == stop:
            continue
        position = _after_intro(low, start, stop)
        body = low[position:stop]
        if not body.strip():
            continue
        asks = _QUESTION.search(body.strip()) is not None
        hit = _accept_in(body, start_rules, any_rules)
        if hit is not None:
            rule, found = hit
            rest = f"{body[: found.start()]} {body[found.end() :]}"
            if asks:
                return None
            if _VETO_ACCEPT[rule.language].search(rest):
                blocked = True
            elif accepted is None:
                span = text[position + found.start() : position + found.end()]
                accepted = (rule.rule_id, span.strip())
        for rule in dismiss_rules:
            for cue in rule.regex.finditer(body):
                if asks or not _dismissal_stands(body, cue):
                    return None
                span = text[position + cue.start() : position + cue.end()]
                dismissals.append((rule.reason or Reason.WONT_FIX, rule.rule_id, span.strip()))
    if blocked and (
        accepted is not None or any(reason is not Reason.DUPLICATE for reason, _, _ in dismissals)
    ):
        return None
    if (accepted is None and not dismissals) or _vetoed(low, cleaned, words, cjk):
        return None  # the reply-wide vetoes run last: most replies never get this far
    if accepted is not None:
        if dismissals:
            return None
        rule_id, span = accepted
        return Verdict(Decision.ACCEPTED, None, rule_id, span)
    for reason in refusals.REASON_PRIORITY:
        for found_reason, rule_id, span in dismissals:
            if found_reason is reason:
                return Verdict(Decision.DISMISSED, reason, rule_id, span)
    return None


def _after_intro(text: str, position: int, stop: int) -> int:
    """Where a clause's content starts, past any "good catch," / "thanks," introduction."""
    while position < stop:
        intro = _INTRO.match(text, position, stop)
        if intro is None or intro.end() == position:
            break
        position = intro.end()
    return position


def _accept_in(
    body: str, start_rules: list[_Rule], any_rules: list[_Rule]
) -> tuple[_Rule, re.Match[str]] | None:
    """The first acceptance cue of a sentence: at the start of one of its clauses ("Sure, I've
    changed it"), or anywhere for a participle rule; a rule's own veto sets its cue aside."""
    if start_rules:
        starts = [0]
        for brk in _CLAUSE_BREAK.finditer(body):
            starts.append(_after_intro(body, brk.end(), len(body)))
        for position in starts:
            for rule in start_rules:
                found = rule.regex.match(body, position)
                if found is not None and (rule.veto is None or not rule.veto.search(body)):
                    return rule, found
    for rule in any_rules:
        found = rule.regex.search(body)
        if found is not None and (rule.veto is None or not rule.veto.search(body)):
            return rule, found
    return None


def _dismissal_stands(body: str, cue: re.Match[str]) -> bool:
    """False when the clause negates or conditions the cue: "not intentional", "if by design"."""
    clause_start = 0
    for brk in _CLAUSE_BREAK.finditer(body, 0, cue.start()):
        clause_start = brk.end()
    if _VETO_DISMISS_BEFORE.search(body, clause_start, cue.start()):
        return False
    return _VETO_DISMISS_AFTER.match(body[cue.end() : cue.end() + 12]) is None


def classify_reply(text: str, *, app_slug: str) -> Verdict | None:
    """What a reply decides: the typed grammar wins; else a clear natural acceptance or refusal."""
    if not text or not text.strip():
        return None
    typed, command = _typed(text, app_slug=app_slug)
    if typed is not None or command:
        return typed
    return _natural(text)
