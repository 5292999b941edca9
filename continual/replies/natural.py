"""Plain-language replies: a clear acceptance or refusal in one of eight languages, or nothing."""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from continual.replies import rules
from continual.replies.rules import Rule
from continual.replies.verdict import Binding, Verdict, fold
from continual.values import Decision, Reason

# The rule of a reply that only agrees ("Good catch!"): it states no change, so the rules decide
# nothing on it; read_agreement gives it to the evidence binding, and it agrees with whoever spoke
# last, so it answers the suggestion only where nobody else spoke (continual/writeback/threads.py).
AGREEMENT_RULE = "natural.agreed"

# Replies longer than this (after quotes and code are removed) are discussion, not a verdict.
MAX_NATURAL_CHARS = 600

# Reason to report when a reply names several: the more specific first, `wont-fix` last.
REASON_PRIORITY: tuple[Reason, ...] = (
    Reason.DUPLICATE,
    Reason.OUT_OF_SCOPE,
    Reason.NOT_APPLICABLE,
    Reason.FALSE_POSITIVE,
    Reason.STYLE,
    Reason.WONT_FIX,
)

_FENCED_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"https?://\S+")
# A dot inside a word ends no sentence: "requirements.txt", "v1.2", "os.path".
_SENTENCE = re.compile(r"(?:[^\n.!?;。！？；]|\.(?=\w))*(?:[.!?;。！？；]+|\n|$)")
_CLAUSE_BREAK = re.compile(r"[,;:—–(，、；]|\s-\s")
# A refusal's negation stays in its own clause: in "the check isn't needed since the schema already
# enforces it", "isn't" does not negate what follows "since".
_REASON_BREAK = re.compile(r"[,;:—–(，、；]|\s-\s|\b(?:because|since)\b")
_BUT = "but"


def _blank(match: re.Match[str]) -> str:
    """Spaces for what ``match`` found, its line breaks kept."""
    found = match.group(0)
    if "\n" not in found:
        return " " * len(found)
    return "\n".join(" " * len(line) for line in found.split("\n"))


def _without_quotes(text: str) -> str:
    """``text`` with each quoted line (``> …``, after blanks) as spaces of its length: a pass over
    its lines, where a substitution called back once a line (16,384 quoted lines took 2 × as long)."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if line.lstrip(" \t")[:1] == ">":
            lines[n] = " " * len(line)
    return "\n".join(lines)


@functools.lru_cache(maxsize=8)
def clean_prose(text: str) -> str:
    """Remove what the maintainer did not write as prose, keeping every offset in place.

    A write-back reads the same reply twice (`classify_reply`, then `read_reply`), and a reply of
    65,536 characters of code fences costs its substitution about 4 ms: the answer for the last
    few texts is kept."""
    if "`" in text or "~~~" in text:
        text = _FENCED_CODE.sub(_blank, text)
        text = _INLINE_CODE.sub(lambda m: "x" * len(m.group(0)), text)
    if ">" in text:
        text = _without_quotes(text)
    if "://" in text:
        text = _URL.sub(lambda m: "u" * len(m.group(0)), text)
    return text


def _vetoed(low: str, cleaned: str, words: list[str], cjk: bool, *, refusal: bool) -> bool:
    """Whether the reply hedges, defers, contrasts or mocks anywhere: then it decides nothing.

    A refusal may open with a courtesy before its "but": "Thanks, but this is intentional".
    """
    vetoes = rules.VETO_WORDS.intersection(words)
    if vetoes and (
        vetoes != {_BUT} or not refusal or words.count(_BUT) != len(rules.COURTESY_BUT.findall(low))
    ):
        return True
    if rules.VETO_ANYWHERE.search(low) or rules.VETO_TODO_RE.search(cleaned):
        return True
    return cjk and rules.VETO_CJK.search(low) is not None


def classify_natural(text: str) -> Verdict | None:
    """A clear natural acceptance or refusal; None for anything unclear, long or mixed."""
    cleaned = clean_prose(text)
    # Only the prose is read: code, quotes and the blanks around them are cut away first, so a
    # reply of 65,536 characters costs what its few hundred characters of prose cost.
    start = len(cleaned) - len(cleaned.lstrip())
    stop = len(cleaned.rstrip())
    if stop - start > MAX_NATURAL_CHARS:
        return None
    cleaned, text = cleaned[start:stop], text[start:stop]
    low = fold(cleaned)
    if len(low) != len(text):
        text = low  # lower() changed the length (rare); report spans from the folded text
    if _agreement(low, text) is not None:
        return None  # agreement, thanks or praise alone states no change: it decides nothing
    words = rules.words_of(low)
    cjk = rules.has_cjk(low)
    candidates = rules.candidates(low, words, cjk)
    if not candidates:
        return None
    start_rules, any_rules, dismiss_rules = rules.split(candidates)
    accepted: tuple[str, str] | None = None
    # An acceptance cue the sentence vetoes ("handled in the middleware already") accepts nothing,
    # and leaves the reply to a duplicate refusal only.
    blocked = False
    # A question beside an acceptance ("Fixed the first one, what about the second?") leaves the
    # change unfinished; asking for another look after it ("PTAL?") does not.
    asked = False
    any_moved_on = rules.MOVED_ON.search(low) is not None
    dismissals: list[tuple[Reason, str, str, bool, bool]] = []
    for sentence in _SENTENCE.finditer(low):
        start, stop = sentence.span()
        if start == stop:
            continue
        position = _after_intro(low, start, stop)
        body = low[position:stop]
        if not body.strip():
            continue
        claim = _without_re_review(body)
        question = claim.strip()
        asks = rules.QUESTION.search(question) is not None and not rules.RE_REVIEW.match(question)
        asked = asked or asks
        # The project moving to another tool ("we switched to ruff") is no edit of the code.
        moved_on = any_moved_on and rules.MOVED_ON.search(body) is not None
        hit = None if moved_on else _accept_in(claim, start_rules, any_rules)
        if hit is not None:
            rule, found = hit
            rest = f"{claim[: found.start()]} {claim[found.end() :]}"
            if asks:
                return None
            if rules.VETO_ACCEPT[rule.language].search(rest):
                blocked = True
            elif accepted is None:
                span = text[position + found.start() : position + found.end()]
                accepted = (rule.rule_id, span.strip())
        for rule in dismiss_rules:
            for cue in rule.regex.finditer(body):
                if asks or not _dismissal_stands(body, cue):
                    return None
                span = text[position + cue.start() : position + cue.end()]
                reason = rule.reason or Reason.WONT_FIX
                dismissals.append((reason, rule.rule_id, span.strip(), rule.argued, rule.at_merge))
    if blocked and (
        accepted is not None
        or (
            any(reason is not Reason.DUPLICATE for reason, *_ in dismissals)
            and rules.CLOSES_THREAD.search(low) is None
        )
    ):
        return None
    if accepted is None and not dismissals:
        return None
    if _vetoed(low, cleaned, words, cjk, refusal=accepted is None):
        return None  # the reply-wide vetoes run last: most replies never get this far
    if accepted is not None:
        if dismissals or asked:
            return None
        rule_id, span = accepted
        return Verdict(Decision.ACCEPTED, None, rule_id, span, Binding.EVIDENCE)
    if rules.VETO_REFUSAL.search(low):
        return None
    # A refusal that names its reason decides it; a refusal by argument gives its own only alone.
    # It decides at once when a refusal word says it ("intentional", "won't fix"); a reply that only
    # argues ("the caller already validates it") decides at merge or close.
    binding = Binding.AT_MERGE if all(at_merge for *_, at_merge in dismissals) else Binding.AT_ONCE
    for argued in (False, True):
        for reason in REASON_PRIORITY:
            for found_reason, rule_id, span, by_argument, _ in dismissals:
                if found_reason is reason and by_argument is argued:
                    return Verdict(Decision.DISMISSED, reason, rule_id, span, binding)
    return None


def read_agreement(text: str) -> Verdict | None:
    """A reply that only agrees ("Good catch!", "You're right, will fix."), as an acceptance bound
    to evidence: it states no change, so the rules decide nothing on it (classify_natural returns
    None), and only the code's evidence (the commented lines changed) may make it one."""
    cleaned = clean_prose(text).strip()
    low = fold(cleaned)
    if len(low) != len(cleaned):
        cleaned = low
    verdict = _agreement(low, cleaned)
    return None if verdict is None else replace(verdict, binding=Binding.EVIDENCE)


def _agreement(low: str, text: str) -> Verdict | None:
    """A reply that only agrees the finding is right, or promises the change at once."""
    stripped = low.strip()
    if len(stripped) > rules.MAX_AGREEMENT_CHARS or rules.AGREEMENT.fullmatch(stripped) is None:
        return None
    cue = rules.AGREEMENT_CUE.search(low)
    if cue is None:
        return None
    return Verdict(Decision.ACCEPTED, None, AGREEMENT_RULE, text[cue.start() : cue.end()])


def _without_re_review(body: str) -> str:
    """A sentence without a closing request for another look: "fixed, can you take another look?"
    asks nothing about the change itself."""
    breaks = [found.span() for found in _CLAUSE_BREAK.finditer(body)]
    if breaks and rules.RE_REVIEW.match(body[breaks[-1][1] :].strip()):
        return body[: breaks[-1][0]]
    return body


def _after_intro(text: str, position: int, stop: int) -> int:
    """Where a clause's content starts, past any "good catch," / "thanks," introduction."""
    while position < stop:
        intro = rules.INTRO.match(text, position, stop)
        if intro is None or intro.end() == position:
            break
        position = intro.end()
    return position


def _accept_in(
    body: str, start_rules: list[Rule], any_rules: list[Rule]
) -> tuple[Rule, re.Match[str]] | None:
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
    for brk in _REASON_BREAK.finditer(body, 0, cue.start()):
        clause_start = brk.end()
    if rules.VETO_DISMISS_BEFORE.search(body, clause_start, cue.start()):
        return False
    return rules.VETO_DISMISS_AFTER.match(body[cue.end() : cue.end() + 12]) is None
