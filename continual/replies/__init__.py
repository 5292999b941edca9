"""What a maintainer's reply to a suggestion decides: the typed grammar first, then plain phrasing."""

from __future__ import annotations

from continual.replies.grammar import TYPED_REASONS, classify_typed, is_undo, typed
from continual.replies.natural import AGREEMENT_RULE, MAX_NATURAL_CHARS, classify_natural
from continual.replies.verdict import Verdict


def classify_reply(text: str, *, app_slug: str) -> Verdict | None:
    """What a reply decides: the typed grammar wins; else a clear natural acceptance or refusal."""
    if not text or not text.strip():
        return None
    verdict, command = typed(text, app_slug=app_slug)
    if verdict is not None or command:
        return verdict
    return classify_natural(text)


__all__ = [
    "AGREEMENT_RULE",
    "MAX_NATURAL_CHARS",
    "TYPED_REASONS",
    "Verdict",
    "classify_reply",
    "classify_typed",
    "is_undo",
]
