"""English: the language most replies are written in, so its tables fill three modules."""

from __future__ import annotations

from continual.replies.phrases.en import accept, refusals, vetoes
from continual.replies.phrases.shared import Language

LANGUAGE = Language(
    code="en",
    accept_start=accept.ACCEPT_START,
    accept_anywhere=accept.ACCEPT_ANYWHERE,
    agreement=accept.AGREEMENT,
    agreement_cue=accept.AGREEMENT_CUE,
    dismiss=refusals.DISMISS,
    dismiss_argued=refusals.DISMISS_ARGUED,
    arguments=refusals.ARGUMENTS,
    deferral=vetoes.DEFERRAL,
    deferral_words=vetoes.DEFERRAL_WORDS,
    moved_on=vetoes.MOVED_ON,
    closes_thread=vetoes.CLOSES_THREAD,
    courtesy_but=vetoes.COURTESY_BUT,
    veto_refusal=vetoes.VETO_REFUSAL,
    intro=vetoes.INTRO,
    veto_words=vetoes.VETO_WORDS,
    veto_anywhere=vetoes.VETO_ANYWHERE,
    veto_accept=vetoes.VETO_ACCEPT,
    veto_accept_any_language=vetoes.VETO_ACCEPT_ANY_LANGUAGE,
    veto_dismiss_before=vetoes.VETO_DISMISS_BEFORE,
    question=vetoes.QUESTION,
    re_review=vetoes.RE_REVIEW,
    rule_veto=accept.RULE_VETO,
)
