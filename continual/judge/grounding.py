"""What a judge's answer may decide: only a verdict grounded in a verbatim quote of the reply."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from continual.replies import TYPED_REASONS, Verdict
from continual.values import Decision, Reason
from continual.writeback.threads import ThreadComment

RULE_PREFIX = "judge:"
_WORDY = re.compile(r"\w")


class Outcome(StrEnum):
    """What came of asking the judge about one reply revision."""

    ACCEPTED = "accepted"
    DISMISSED = "dismissed"
    NONE = "none"  # the judge found no decision
    OTHER_REPLY = "other-reply"  # the answer named a different reply
    UNGROUNDED = "ungrounded"  # the quote is not a verbatim part of the reply
    UNKNOWN_REASON = "unknown-reason"  # a dismissal without one of the known reasons
    FAILED = "failed"  # no usable answer: timeout, exit status, HTTP error, invalid JSON


@dataclass(frozen=True)
class JudgeAnswer:
    """A judge's answer as it was given (`hindsight.judge/1`); `reply_id` when it named one."""

    decision: str  # "accepted", "dismissed" or "none"
    reason: str
    quote: str
    reply_id: int | None = None


def judge_rule(seat: str) -> str:
    """The rule id a judged verdict is recorded under."""
    return f"{RULE_PREFIX}{seat}"


TYPED = frozenset(TYPED_REASONS.values())


def _reason(text: str) -> Reason | None:
    """A known dismissal reason, spelled as in the typed grammar (`wont-fix`, `false positive`…)."""
    word = re.sub(r"[\s_]+", "-", text.strip().lower()).replace("'", "")
    word = {"wontfix": "wont-fix"}.get(word, word)
    try:
        reason = Reason(word)
    except ValueError:
        return None
    # `unspecified` is a 👎's alone: a reply that dismisses names a reason.
    return reason if reason in TYPED else None


def ground(
    answer: JudgeAnswer, reply: ThreadComment, *, seat: str
) -> tuple[Outcome, Verdict | None]:
    """What the answer decides about `reply`, precision first.

    It counts only when it is about this reply, its quote (trimmed) holds a word and occurs
    verbatim in this reply's body as it reads now, and a dismissal names a known reason.
    """
    if answer.reply_id is not None and answer.reply_id != reply.id:
        return Outcome.OTHER_REPLY, None
    if answer.decision == Outcome.NONE:
        return Outcome.NONE, None
    quote = answer.quote.strip()
    if not _WORDY.search(quote) or quote not in reply.body:
        return Outcome.UNGROUNDED, None
    if answer.decision == Decision.ACCEPTED:
        return Outcome.ACCEPTED, Verdict(Decision.ACCEPTED, None, judge_rule(seat), quote)
    if answer.decision != Decision.DISMISSED:
        return Outcome.NONE, None
    reason = _reason(answer.reason)
    if reason is None:
        return Outcome.UNKNOWN_REASON, None
    return Outcome.DISMISSED, Verdict(Decision.DISMISSED, reason, judge_rule(seat), quote)
