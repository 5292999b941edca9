"""What a judge's answer may decide: only a verdict grounded in a verbatim quote of the reply,
bound like a natural reply's (docs/writeback.md, "The judge")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from continual.replies import TYPED_REASONS, Binding, Deferral, Verdict
from continual.values import Decision, Reason
from continual.writeback.threads import ThreadComment

CONTRACT = "hindsight.judge/2"
RULE_PREFIX = "judge:"
_WORDY = re.compile(r"\w")


class Category(StrEnum):
    """What the judge may say a reply is; only the first three carry a verdict."""

    ACCEPTED = "accepted"
    DISMISSED = "dismissed"
    DEFERRED = "deferred"
    AGREED = "agreed-without-change"
    QUESTION = "question"
    OTHER = "other"


ABSTAINING = frozenset({Category.AGREED, Category.QUESTION, Category.OTHER})


class Outcome(StrEnum):
    """What came of asking the judge about one reply revision."""

    ACCEPTED = "accepted"
    DISMISSED = "dismissed"
    DEFERRED = "deferred"
    AGREED = "agreed-without-change"  # the judge abstains: agreement, thanks, praise
    QUESTION = "question"  # the judge abstains: the reply asks something
    OTHER = "other"  # the judge abstains: anything else, or it cannot tell
    OTHER_REPLY = "other-reply"  # the answer named a different reply
    UNGROUNDED = "ungrounded"  # the quote is not a verbatim part of the reply
    FAILED = "failed"  # no usable answer: timeout, exit status, HTTP error, invalid JSON, shape


@dataclass(frozen=True)
class JudgeAnswer:
    """A judge's answer as it was given (`hindsight.judge/2`); `reply_id` when it named one."""

    category: Category
    reason: str
    quote: str
    reply_id: int | None = None


Reading = Verdict | Deferral


def judge_rule(seat: str) -> str:
    """The rule id a judged verdict is recorded under."""
    return f"{RULE_PREFIX}{seat}"


TYPED = frozenset(TYPED_REASONS.values())


def dismissal_reason(text: str) -> Reason:
    """A known dismissal reason, spelled as in the typed grammar (`wont-fix`, `false positive`…);
    `unspecified` when none is given or the one given is not known."""
    word = re.sub(r"[\s_]+", "-", text.strip().lower()).replace("'", "")
    word = {"wontfix": "wont-fix"}.get(word, word)
    try:
        reason = Reason(word)
    except ValueError:
        return Reason.UNSPECIFIED
    return reason if reason in TYPED else Reason.UNSPECIFIED


def reading(category: Category | Outcome, reason: str, quote: str, *, seat: str) -> Reading | None:
    """The verdict or deferral a grounded category carries, bound as a natural reply's is: an
    acceptance waits for the code's evidence, a dismissal for the merge or close."""
    rule = judge_rule(seat)
    if category == Category.ACCEPTED:
        return Verdict(Decision.ACCEPTED, None, rule, quote, binding=Binding.EVIDENCE)
    if category == Category.DISMISSED:
        reasoned = dismissal_reason(reason)
        return Verdict(Decision.DISMISSED, reasoned, rule, quote, binding=Binding.AT_MERGE)
    if category == Category.DEFERRED:
        return Deferral(rule, quote)
    return None


def ground(
    answer: JudgeAnswer, reply: ThreadComment, *, seat: str
) -> tuple[Outcome, Reading | None]:
    """What the answer decides about `reply`, precision first.

    `agreed-without-change`, `question` and `other` decide nothing. `accepted`, `dismissed` and
    `deferred` count only when the answer is about this reply and its quote (trimmed) holds a
    word and occurs verbatim in this reply's body as it reads now.
    """
    if answer.reply_id is not None and answer.reply_id != reply.id:
        return Outcome.OTHER_REPLY, None
    if answer.category in ABSTAINING:
        return Outcome(answer.category.value), None
    quote = answer.quote.strip()
    if not _WORDY.search(quote) or quote not in reply.body:
        return Outcome.UNGROUNDED, None
    return Outcome(answer.category.value), reading(answer.category, answer.reason, quote, seat=seat)
