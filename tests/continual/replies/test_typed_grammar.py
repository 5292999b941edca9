"""The typed reply grammar (docs/writeback.md), case by case."""

from __future__ import annotations

import pytest

from continual.replies import classify_reply, classify_typed, grammar
from continual.values import Decision, Reason

SLUG = "hindsight"
A = Decision.ACCEPTED
D = Decision.DISMISSED

# (reply, decision or None, reason or None)
CASES: list[tuple[str, Decision | None, Reason | None]] = [
    # accept words, then end, space or punctuation
    ("accept", A, None),
    ("accepted", A, None),
    ("fixed", A, None),
    ("applied", A, None),
    ("Accept.", A, None),
    ("accepted!", A, None),
    ("fixed, thanks", A, None),
    ("applied: see the last commit", A, None),
    ("fixed in 3f2a1c9", A, None),
    ("FIXED", A, None),
    ("/accept", A, None),
    ("/fixed", A, None),
    ("@hindsight accept", A, None),
    ("@hindsight[bot] accepted", A, None),
    ("@Hindsight /accept", A, None),
    ("@hindsight, applied", A, None),
    # every way the address may be written before the word: one run of spaces, commas and
    # colons, a slash after or instead of it
    ("@hindsight/accept", A, None),
    ("@hindsight[bot]/ fixed", A, None),
    ("@hindsight: /accept", A, None),
    ("@hindsight ,: / dismiss false-positive", D, Reason.FALSE_POSITIVE),
    ("/ @hindsight accept", A, None),
    ("/@hindsight\taccepted", A, None),
    ("@hindsight" + " " * 500 + "accept", A, None),
    ("@hindsight" + " " * 500 + "x", None, None),
    ("@hindsight / / accept", None, None),
    ("@hindsight[bot]accept", None, None),
    ("\n\n   accept\n", A, None),
    ("accept\ndismiss false-positive", A, None),
    ("> the bot said this\n\naccept", A, None),
    # accept words inside other words, or asked about, or qualified, are not commands
    ("acceptable", None, None),
    ("acceptance tests pass", None, None),
    ("fixedness", None, None),
    ("appliedness", None, None),
    ("fixed?", None, None),
    ("fixed? no", None, None),
    ("fixed, but not as suggested", None, None),
    ("fixed the other one, not this", None, None),
    ("@someone-else accept", None, None),
    ("@hindsightaccept", None, None),
    ("@hindsight-dev accept", None, None),
    ("please accept", None, None),
    # dismissals need one of the six reasons
    ("dismiss false-positive", D, Reason.FALSE_POSITIVE),
    ("dismiss wont-fix", D, Reason.WONT_FIX),
    ("dismiss not-applicable", D, Reason.NOT_APPLICABLE),
    ("dismiss duplicate", D, Reason.DUPLICATE),
    ("dismiss out-of-scope", D, Reason.OUT_OF_SCOPE),
    ("dismiss style", D, Reason.STYLE),
    ("refuse wont-fix", D, Reason.WONT_FIX),
    ("reject false-positive", D, Reason.FALSE_POSITIVE),
    ("/dismiss out-of-scope", D, Reason.OUT_OF_SCOPE),
    ("@hindsight reject style", D, Reason.STYLE),
    ("DISMISS DUPLICATE", D, Reason.DUPLICATE),
    ("dismiss false-positive: the list is never empty", D, Reason.FALSE_POSITIVE),
    ("dismiss false positive", D, Reason.FALSE_POSITIVE),
    ("dismiss", None, None),
    ("/dismiss", None, None),
    ("reject", None, None),
    ("dismiss because I said so", None, None),
    ("dismiss falsepositive", None, None),
    ("dismiss styles", None, None),
    ("dismiss style?", None, None),
    # the three shorthands
    ("wontfix", D, Reason.WONT_FIX),
    ("won't fix", D, Reason.WONT_FIX),
    ("Won’t fix — this code goes away next release", D, Reason.WONT_FIX),
    ("WONTFIX.", D, Reason.WONT_FIX),
    ("false positive", D, Reason.FALSE_POSITIVE),
    ("False positive: the handle is closed by the caller", D, Reason.FALSE_POSITIVE),
    ("/wontfix", D, Reason.WONT_FIX),
    ("@hindsight false positive", D, Reason.FALSE_POSITIVE),
    # only the first non-blank line counts
    ("thanks!\naccept", None, None),
    ("looks right to me\n\ndismiss false-positive", None, None),
    ("", None, None),
    ("   \n  ", None, None),
]


@pytest.mark.parametrize(("text", "decision", "reason"), CASES)
def test_typed_grammar(text: str, decision: Decision | None, reason: Reason | None) -> None:
    verdict = classify_typed(text, app_slug=SLUG)
    if decision is None:
        assert verdict is None
        return
    assert verdict is not None
    assert (verdict.decision, verdict.reason) == (decision, reason)
    assert verdict.rule.startswith("grammar.")
    assert verdict.span


def test_there_are_at_least_forty_cases() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize(("text", "decision", "reason"), [c for c in CASES if c[1] is not None])
def test_the_typed_grammar_wins_in_classify_reply(
    text: str, decision: Decision, reason: Reason | None
) -> None:
    verdict = classify_reply(text, app_slug=SLUG)
    assert verdict is not None
    assert (verdict.decision, verdict.reason) == (decision, reason)
    assert verdict.rule.startswith("grammar.")


@pytest.mark.parametrize(
    "text", ["dismiss", "dismiss because I said so", "reject this, it is intentional", "/refuse"]
)
def test_a_dismissal_without_a_valid_reason_decides_nothing(text: str) -> None:
    assert classify_reply(text, app_slug=SLUG) is None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("accept", "grammar.accept"),
        ("reject style", "grammar.dismiss"),
        ("wontfix", "grammar.wontfix"),
        ("false positive", "grammar.false-positive"),
    ],
)
def test_rule_ids_name_the_form(text: str, rule: str) -> None:
    verdict = classify_typed(text, app_slug=SLUG)
    assert verdict is not None
    assert verdict.rule == rule


def test_span_is_the_command_as_written() -> None:
    verdict = classify_typed("  /Dismiss Out-Of-Scope — later, in its own PR", app_slug=SLUG)
    assert verdict is not None
    assert verdict.span == "/Dismiss Out-Of-Scope"


GUARDS = [*grammar._ACCEPT_GUARD_WORDS.split(), *grammar._ACCEPT_GUARD_PHRASES]


@pytest.mark.parametrize("guard", GUARDS)
def test_every_word_that_qualifies_an_accept_word_refuses_it_whole(guard: str) -> None:
    """The qualifying words are searched grouped by their first letter: each still refuses an
    accept word as a whole word, and none does as the start of a longer word."""
    assert classify_typed(f"fixed it, {guard} here", app_slug=SLUG) is None
    longer = classify_typed(f"fixed it, {guard}zq here", app_slug=SLUG)
    assert longer is not None and longer.decision is A
