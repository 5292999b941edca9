"""What every language's phrase table is made of, and the pieces no language owns."""

from __future__ import annotations

from dataclasses import dataclass

from continual.values import Reason

FP = Reason.FALSE_POSITIVE
WF = Reason.WONT_FIX
NA = Reason.NOT_APPLICABLE
DU = Reason.DUPLICATE
OS = Reason.OUT_OF_SCOPE
ST = Reason.STYLE

# (rule name, trigger words, pattern). A rule is tried only when one of its trigger words (a
# substring, for Chinese, Japanese and Korean) occurs in the reply. Every pattern is lower-cased
# regular-expression source.
Cue = tuple[str, str, str]
# (rule name, reason, trigger words, pattern)
Refusal = tuple[str, Reason, str, str]

# What may open a sentence in any language: punctuation, a mention, a "+1".
INTRO_MARKS = r"@[\w.-]+(?:\[bot\])?|\+1"
# A sentence that asks, in any language.
QUESTION_MARKS = r"[?？¿]"
# Case-sensitive: "TODO" as written by developers, not Spanish/Portuguese "todo".
VETO_TODO = r"\bTODO\b|\bFIXME\b"


@dataclass(frozen=True)
class Language:
    """One language's phrases: what accepts, what refuses, and what vetoes either.

    Rule names become the `rule` of a verdict: `natural.<name>` for English, `natural.<code>.<name>`
    for the other languages. Every string field is an alternation, empty when the language has none.
    """

    code: str
    # Anchored at the start of a clause, after any "good catch," / "thanks," introduction.
    accept_start: tuple[Cue, ...] = ()
    # Found anywhere in a sentence.
    accept_anywhere: tuple[Cue, ...] = ()
    # A whole reply that only agrees the finding is right ("Good catch!", "Agreed, will do"), and
    # the agreement in it that courtesy alone lacks ("Thanks!" agrees to nothing).
    agreement: str = ""
    agreement_cue: str = ""
    dismiss: tuple[Refusal, ...] = ()
    # Refusals by argument ("No, the cache is cleared on every deploy"): their reason is the best
    # guess of a careful reader, used only when no other refusal in the reply names one.
    dismiss_argued: tuple[Refusal, ...] = ()
    # Names of `dismiss` rules that argue rather than refuse ("the caller already validates it"):
    # like every `dismiss_argued` rule they decide at merge or close, not when read.
    arguments: str = ""
    # A reply that puts the suggestion off to later work ("in a follow-up", "not in this PR"): it
    # decides nothing, in whatever words it also accepts or refuses.
    deferral: str = ""
    # The words one of which every deferral of the language contains (the deferral is looked for
    # only when one occurs; "#" stands for an issue number); Chinese, Japanese and Korean need none.
    deferral_words: str = ""
    # The project moved to another tool ("we switched to ruff"): no edit of the commented code, so
    # never an acceptance; with the old file obsolete it is a not-applicable refusal.
    moved_on: str = ""
    # A reply that closes the thread ("Closing:", "Resolving.") and refuses is a refusal, even when
    # it also reports an edit somewhere else ("we moved CI to Buildkite").
    closes_thread: str = ""
    # What may stand before a contrasting "but" in a refusal: "Thanks, but this is intentional".
    courtesy_but: str = ""
    # Anywhere in a reply, what takes back a refusal: agreement ("good catch"), or an edit the
    # speaker made ("so I removed it").
    veto_refusal: str = ""
    # What may open a sentence before the decision: "Good catch, fixed." -> "fixed."
    intro: str = ""
    # Anywhere in a reply, hedges, deferrals, contrast and partial agreement make it discussion:
    # single words (space-separated, looked up in a set) and expressions.
    veto_words: str = ""
    veto_anywhere: str = ""
    # Written in Chinese, Japanese or Korean: its vetoes are searched only in replies with such text.
    cjk: bool = False
    # Inside the sentence that carries an acceptance in this language: negation, modality, elsewhere.
    veto_accept: str = ""
    # The same, for an acceptance in any language (words developers write whatever their language).
    veto_accept_any_language: str = ""
    # Right before a dismissal cue in its clause ("NOT intentional"), or right after it (Japanese and
    # Korean negate at the end).
    veto_dismiss_before: str = ""
    veto_dismiss_after: str = ""
    # A sentence that asks.
    question: str = ""
    # A question that only asks for another look after a change ("PTAL?", "Does this look better?"):
    # unlike any other question, it leaves an acceptance standing.
    re_review: str = ""
    # A rule's own veto, by rule name: for cues that are about the code only when the sentence says
    # nothing else ("it is now a frozen dataclass" accepts, "CI is now green" does not).
    rule_veto: tuple[tuple[str, str], ...] = ()


def words(*groups: str) -> tuple[str, ...]:
    """The distinct words of some space-separated lists, longest first (for regex alternation)."""
    return tuple(
        sorted({word for group in groups for word in group.split()}, key=len, reverse=True)
    )


def inflect(stems: str, endings: str) -> tuple[str, ...]:
    """Every stem with every ending: `inflect("renomm ajout", "é ée és")`."""
    return words(" ".join(stem + ending for stem in stems.split() for ending in endings.split()))


def alternation(forms: tuple[str, ...]) -> str:
    return "|".join(forms)
