"""What a maintainer's reply to a suggestion decides: the typed grammar first, then plain phrasing."""

from __future__ import annotations

from continual.replies.deferral import read_deferral
from continual.replies.grammar import TYPED_REASONS, classify_typed, is_undo, typed
from continual.replies.natural import (
    AGREEMENT_RULE,
    MAX_NATURAL_CHARS,
    classify_natural,
    clean_prose,
    read_agreement,
)
from continual.replies.verdict import Binding, Deferral, Verdict


def forget_readings() -> None:
    """Drop what the rules keep of the last texts they read (their deferrals and prose), so that
    the next reading of a text is a first one (bench/untrusted_text.py)."""
    read_deferral.cache_clear()
    clean_prose.cache_clear()


def classify_reply(text: str, *, app_slug: str) -> Verdict | None:
    """What a reply decides: the typed grammar wins; a deferral ("in a follow-up") decides nothing;
    else a clear natural acceptance (bound to evidence) or refusal (at once, or at merge when it
    only argues)."""
    if not text or not text.strip():
        return None
    verdict, command = typed(text, app_slug=app_slug)
    deferred = read_deferral(text) is not None
    if verdict is not None or command:
        # `fixed` and `applied` claim a change; beside later work ("fixed the easy part, the rest in a
        # follow-up") they claim only part of it. `accept` and `dismiss` are commands: they stand.
        if deferred and verdict is not None and verdict.binding is Binding.EVIDENCE:
            return None
        return verdict
    if deferred:
        return None
    return classify_natural(text)


def read_reply(text: str, *, app_slug: str) -> Verdict | None:
    """What the write-back reads in a reply: `classify_reply`'s verdict, else an agreement that
    states no change ("Good catch!", rule `natural.agreed`), which only the code's evidence binds."""
    verdict = classify_reply(text, app_slug=app_slug)
    if verdict is not None or not text.strip() or read_deferral(text) is not None:
        return verdict
    if typed(text, app_slug=app_slug)[1]:
        return None
    return read_agreement(text)


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
    "read_agreement",
    "read_deferral",
    "read_reply",
]
