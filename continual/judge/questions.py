"""Which maintainer replies the decision rules leave undecided: the questions the judge may be asked."""

from __future__ import annotations

from dataclasses import dataclass

from continual.replies.grammar import typed
from continual.stored import StoredSuggestion
from continual.writeback.authors import is_maintainer
from continual.writeback.pull import Analysis, PullState, analyse
from continual.writeback.threads import ThreadComment


@dataclass(frozen=True)
class Question:
    """One undecided maintainer reply, with the suggestion and the whole thread it answers.

    `thread` is the suggestion comment and every reply, oldest first (contributors' words
    included, as context); `reply` is the one the judge is asked about.
    """

    suggestion: StoredSuggestion
    thread: tuple[ThreadComment, ...]
    reply: ThreadComment


def _rules_speak(reply: ThreadComment, *, app_slug: str, analysis: Analysis) -> tuple[bool, bool]:
    """Whether the rules read the reply (a verdict, or a deferral, which outranks anything the
    judge could say of it), and whether it is a typed command that decides nothing (a `dismiss`
    without a reason): neither is the judge's to read."""
    readings = analysis.verdicts
    if readings.get(reply.id) is not None or readings.deferrals.get(reply.id) is not None:
        return True, False
    return False, typed(reply.body, app_slug=app_slug)[1]


def undecided_replies(state: PullState, analysis: Analysis | None = None) -> list[Question]:
    """Maintainers' replies that no rule reads and that could still be a thread's latest
    reading (none older than a reply the rules read: a verdict or a deferral), newest first. `analysis` is the
    state's threads as the write-back read them (`analyse`), built once."""
    analysis = analysis or analyse(state)
    known = {suggestion.id: suggestion for suggestion in state.known}
    by_id = {comment.id: comment for comment in state.comments}
    questions: list[Question] = []
    for thread in analysis.threads:
        undecided: list[ThreadComment] = []
        for reply in thread.replies:  # oldest first
            if not is_maintainer(reply.author) or not reply.body.strip():
                continue
            decided, command = _rules_speak(reply, app_slug=state.app_slug, analysis=analysis)
            if decided:
                undecided = []  # a later decision outranks every earlier reply
            elif not command:
                undecided.append(reply)
        whole = (by_id[thread.comment_id], *thread.replies)
        questions += [Question(known[thread.suggestion_id], whole, reply) for reply in undecided]
    questions.sort(
        key=lambda question: (question.reply.created_at, question.reply.id), reverse=True
    )
    return questions
