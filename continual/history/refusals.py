"""Other review bots' past suggestions a maintainer refused: a thread opened by a bot (not this
app), answered by a maintainer who is not the pull request's author, in words the reply rules
read as a dismissal: a typed refusal or an unambiguous one at once; an argued one only with the
evidence that the commented lines stayed as they were until the merge. Each seeds a suppression
candidate a person may confirm, never a suppression by itself (docs/history.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from continual.history.evidence import PastComment, PastPull, gist
from continual.replies import Binding, read_reply
from continual.values import Decision
from continual.writeback.authors import bot_login, is_bot, is_maintainer
from continual.writeback.signals import touches

QUOTE_CHARS = 280


@dataclass(frozen=True, slots=True)
class BotRefusal:
    """A maintainer's refusal of another bot's suggestion, with the words and rule that read it."""

    suggestion: PastComment
    reply: PastComment
    reason: str
    rule: str
    quote: str
    evidence: str  # "at-once" (the words decide) or "lines-kept" (argued; the code agrees)


def _other_bot(comment: PastComment, app_slug: str | None) -> bool:
    if not is_bot(comment.author):
        return False
    return app_slug is None or comment.author.login.lower() != bot_login(app_slug).lower()


def bot_threads(
    pull: PastPull, comments: Sequence[PastComment], *, app_slug: str | None
) -> list[tuple[PastComment, PastComment]]:
    """Each other bot's thread opener with its maintainers' replies (never the author's, never a
    bot's), oldest first."""
    found = []
    for opener in comments:
        if opener.in_reply_to is not None or not _other_bot(opener, app_slug):
            continue
        for reply in comments:
            if (
                reply.in_reply_to == opener.id
                and is_maintainer(reply.author)
                and reply.author.login.lower() != pull.author.lower()
            ):
                found.append((opener, reply))
    return sorted(found, key=lambda pair: (pair[1].created_at, pair[1].id))


def refusals(
    pull: PastPull,
    comments: Sequence[PastComment],
    *,
    app_slug: str | None,
    patches: Mapping[str, str | None] | None,
) -> list[BotRefusal]:
    """The maintainers' refusals of other bots' suggestions in a merged pull request; one per
    suggestion (its latest refusal). ``patches`` is the comparison from the earliest commented
    commit to the head (None when it could not be made): an argued refusal needs it to show the
    commented lines unchanged."""
    chosen: dict[int, BotRefusal] = {}
    for opener, reply in bot_threads(pull, comments, app_slug=app_slug):
        verdict = read_reply(reply.body, app_slug=app_slug or "")
        if verdict is None or verdict.decision is not Decision.DISMISSED:
            continue
        if verdict.binding is Binding.AT_ONCE:
            evidence = "at-once"
        elif patches is not None and not touches(patches.get(opener.path), opener.line):
            evidence = "lines-kept"
        else:
            continue  # argued, and the code does not show it stood: nothing to seed
        reason = verdict.reason.value if verdict.reason is not None else "unspecified"
        chosen[opener.id] = BotRefusal(
            opener,
            reply,
            reason,
            verdict.rule,
            gist(verdict.span or reply.body, QUOTE_CHARS),
            evidence,
        )
    return sorted(chosen.values(), key=lambda refusal: refusal.suggestion.id)
