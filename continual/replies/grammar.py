"""The typed reply grammar: `accepted`, `dismiss <reason>`, `wontfix`, `false positive` on line one."""

from __future__ import annotations

import re
from collections.abc import Iterable

from continual.replies.rules import names_dismissal
from continual.replies.verdict import Binding, Verdict, fold
from continual.values import Decision, Reason

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

# What may open a command: optional `/`, optional `@<slug>` or `@<slug>[bot]` (docs/writeback.md).
# Each run of spaces can be matched by one quantifier only, so a run before a word that is no command
# fails in time linear in its length: `[\s,:]+/?\s*` tried every split of the run between its two
# quantifiers ("@a", 16,000 spaces and "x" took 23 s). The quantifiers are possessive: what follows
# a run never starts with a character of the run, so giving one back can never match, and a run of
# 65,536 before no command is read once instead of backed through character by character.
_ADDRESS = r"\s*+(?:/\s*+)?(?:@(?P<mention>[\w.-]++)(?:\[bot\])?(?:[\s,:]++(?:/\s*+)?|/\s*+))?"
# On the first non-blank line: the address, then the command word.
_TYPED = re.compile(
    _ADDRESS + r"(?:(?P<accept>accepted|accept|fixed|applied)"
    r"|(?P<dismiss>dismiss|refuse|reject)"
    r"|(?P<wontfix>wontfix|won't fix)"
    r"|(?P<fp>false positive))"
    r"(?=$|[^\w])",
)
# `undo` alone on the first line (optional `/`, `@<slug>`, trailing punctuation): "undo the
# rename" is a request to the author, not a command to the app.
_UNDO = re.compile(_ADDRESS + r"undo[\s.!]*$")
_TYPED_REASON = re.compile(
    r"[\s:]+(?P<reason>false[- ]positive|wont[- ]?fix|won't[- ]fix|not[- ]applicable|duplicate"
    r"|out[- ]of[- ]scope|style)(?=$|[^\w-])"
)
# A typed accept word that is asked about, negated or qualified on its own line is not a command:
# "fixed? no", "fixed the other one, not this", "fixed, but differently". Nor is one about the
# pull request rather than the suggestion: "fixed the CI failure", "fixed the typo in the PR
# description", "fixed the changelog". Nor one undone or regretted: "applied it, then reverted".
_ACCEPT_GUARD_WORDS = (
    "not no never but except yet partially partly half later maybe perhaps probably unless if "
    "other upstream elsewhere main master still conflict conflicts branch rebase rebased merge "
    "merged ci pipeline changelog unrelated description label labels milestone lockfile "
    "reverted reverting slower worse broke breaks broken failing flaky"
    # a change other than the one suggested, or part of it: "fixed it differently", "the first one"
    " differently different another alternative instead first"
)
_ACCEPT_GUARD_PHRASES = ("commit message", "one of", "some of", "what about")


def _by_first_letter(words: Iterable[str]) -> str:
    """An alternation of ``words`` grouped by their first letter, for a search that only asks
    whether one occurs: at each word the engine tries the few that start with its letter, not
    all of them (a first line of 65,536 characters read 1.7 × quicker)."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(re.escape(word[1:]))
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rest)})" for first, rest in groups.items())


_TYPED_ACCEPT_GUARD = re.compile(
    rf"\?|\b(?:{_by_first_letter([*_ACCEPT_GUARD_WORDS.split(), *_ACCEPT_GUARD_PHRASES])})\b"
    r"|n't\b|#\d+"
)
_TYPED_DISMISS_GUARD = re.compile(r"\?|\b(?:maybe|perhaps|probably|not sure|i think)\b")


def _first_line(text: str) -> str | None:
    """The first non-blank line that is not quoted text (`> …`)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(">"):
            return stripped
    return None


def typed(text: str, *, app_slug: str) -> tuple[Verdict | None, bool]:
    """The typed verdict of the first line, and whether that line was a dismissal command at all."""
    line = _first_line(text)
    if line is None:
        return None, False
    low = fold(line)
    match = _TYPED.match(low)
    if match is None:
        return None, False
    mention = match.group("mention")
    if mention is not None and mention != app_slug.lower():
        return None, False
    end = match.end()
    if match.group("accept"):
        if _TYPED_ACCEPT_GUARD.search(low, end) or names_dismissal(low):
            return None, False
        # `accept` is the maintainer's command; `fixed` and `applied` say the code changed, which
        # the code itself must show before they decide.
        binding = (
            Binding.AT_ONCE if match.group("accept").startswith("accept") else Binding.EVIDENCE
        )
        verdict = Verdict(Decision.ACCEPTED, None, "grammar.accept", line[:end].strip(), binding)
        return verdict, False
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
    """The typed reply grammar alone; None when the first line is not a decision."""
    return typed(text, app_slug=app_slug)[0]


def is_undo(text: str, *, app_slug: str) -> bool:
    """True when the first line is the typed `undo` command, addressed to no one or to the app."""
    line = _first_line(text)
    if line is None:
        return False
    match = _UNDO.match(fold(line))
    if match is None:
        return False
    mention = match.group("mention")
    return mention is None or mention == app_slug.lower()
