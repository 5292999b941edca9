"""Which maintainer replies the decision rules leave undecided: the questions the judge may be asked."""

from __future__ import annotations

from dataclasses import dataclass

from continual.replies import classify_reply
from continual.replies.grammar import typed
from continual.stored import StoredSuggestion
from continual.writeback.authors import is_maintainer
from continual.writeback.pull import PullState
from continual.writeback.threads import ThreadComment, build_threads


@dataclass(frozen=True)
class Question:
    """One undecided maintainer reply, with the suggestion and the whole thread it answers.

    `thread` is the suggestion comment and every reply, oldest first (contributors' words
    included, as context); `reply` is the one the judge is asked about.
    """

    suggestion: StoredSuggestion
    thread: tuple[ThreadComment, ...]
    reply: ThreadComment


def _rules_speak(reply: ThreadComment, *, app_slug: str) -> tuple[bool, bool]:
    """Whether the rules decide the reply, and whether it is a typed command that decides nothing
    (a `dismiss` without a reason): neither is the judge's to read."""
    if classify_reply(reply.body, app_slug=app_slug) is not None:
        return True, False
    return False, typed(reply.body, app_slug=app_slug)[1]


def undecided_replies(state: PullState) -> list[Question]:
    """Maintainers' replies that no rule decides and that could still be a thread's latest
    decision (none older than a reply the rules decided), newest first."""
    known = {suggestion.id: suggestion for suggestion in state.known}
    by_id = {comment.id: comment for comment in state.comments}
    threads = build_threads(state.comments, bot_login=state.bot_login, known_suggestion_ids=known)
    questions: list[Question] = []
    for thread in threads:
        undecided: list[ThreadComment] = []
        for reply in thread.replies:  # oldest first
            if not is_maintainer(reply.author) or not reply.body.strip():
                continue
            decided, command = _rules_speak(reply, app_slug=state.app_slug)
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
