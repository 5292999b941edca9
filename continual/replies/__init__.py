"""What a maintainer's reply to a suggestion decides: the typed grammar first, then plain phrasing."""

from __future__ import annotations

from dataclasses import replace

from continual.replies.deferral import read_deferral
from continual.replies.grammar import TYPED_REASONS, classify_typed, is_undo, typed
from continual.replies.natural import AGREEMENT_RULE, MAX_NATURAL_CHARS, classify_natural
from continual.replies.verdict import Binding, Deferral, Verdict
from continual.values import Decision


def classify_reply(text: str, *, app_slug: str) -> Verdict | None:
    """What a reply decides: the typed grammar wins; else a clear natural acceptance or refusal."""
    if not text or not text.strip():
        return None
    verdict, command = typed(text, app_slug=app_slug)
    if verdict is not None or command:
        return verdict
    verdict = classify_natural(text)
    if verdict is not None and verdict.decision is Decision.ACCEPTED:
        return replace(verdict, binding=Binding.EVIDENCE)
    return verdict


__all__ = [
    "AGREEMENT_RULE",
    "MAX_NATURAL_CHARS",
    "TYPED_REASONS",
    "Binding",
    "Deferral",
    "Verdict",
    "classify_reply",
    "classify_typed",
    "is_undo",
    "read_deferral",
]
