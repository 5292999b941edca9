"""When what a reply says decides: a verdict read from text bound to the code's evidence
(docs/writeback.md, "Verdicts bound to evidence"). Pure: a reading and an evidence in, a decision
or a held reading out."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from continual.replies import Binding, Deferral, Verdict
from continual.values import Decision, Reason, Source
from continual.writeback.evidence import Bound, Evidence, Lines
from continual.writeback.threads import ThreadComment, ThreadDecision, binding_of


class Held(StrEnum):
    """A maintainer's reply that decided nothing (yet), as the suggestion records it."""

    CLAIMED = "claimed"  # an acceptance waiting for the change
    ARGUED = "argued"  # an argued dismissal waiting for the merge or close
    DEFERRED = "deferred"  # put off to later work: a candidate for a later suggestion
    DROPPED = "dropped"  # merged or closed without the evidence: the reading decided nothing


@dataclass(frozen=True)
class Claim:
    """What a reply said that has not bound, by whom, and the rule that read it."""

    state: Held
    rule: str
    span: str
    actor: str
    at: datetime
    reply_id: int
    decision: Decision | None = None  # what the reply claimed (None for a deferral)
    reason: Reason | None = None

    def to_json(self) -> str:
        return json.dumps(
            {
                "state": self.state.value,
                "rule": self.rule,
                "span": self.span,
                "actor": self.actor,
                "at": self.at.isoformat(),
                "reply_id": self.reply_id,
                "decision": self.decision.value if self.decision else None,
                "reason": self.reason.value if self.reason else None,
            },
            sort_keys=True,
        )


@dataclass(frozen=True)
class Bind:
    """One reply's reading bound to its thread's evidence: a decision, or a held claim."""

    decision: ThreadDecision | None = None
    claim: Claim | None = None


def _decision(
    suggestion_id: str,
    reply: ThreadComment,
    verdict: Verdict,
    bound: Bound | None = None,
    commit: str | None = None,
) -> ThreadDecision:
    return ThreadDecision(
        suggestion_id=suggestion_id,
        decision=verdict.decision,
        reason=verdict.reason,
        source=Source.REPLY,
        rule=verdict.rule,
        span=verdict.span,
        actor=reply.author.login,
        at=reply.updated_at or reply.created_at,
        reply_id=reply.id,
        evidence=bound,
        commit=commit,
    )


def _held(state: Held, reply: ThreadComment, reading: Verdict | Deferral) -> Bind:
    verdict = reading if isinstance(reading, Verdict) else None
    return Bind(
        claim=Claim(
            state=state,
            rule=reading.rule,
            span=reading.span,
            actor=reply.author.login,
            at=reply.updated_at or reply.created_at,
            reply_id=reply.id,
            decision=verdict.decision if verdict else None,
            reason=verdict.reason if verdict else None,
        )
    )


def bind(
    suggestion_id: str, reply: ThreadComment, reading: Verdict | Deferral, evidence: Evidence
) -> Bind:
    """The binding table: a typed command or an unambiguous refusal decides at once; an
    acceptance decides when the code shows the change, else it is claimed until the merge or
    close, which drops it when the lines were kept; an argued dismissal decides at the merge or
    close when the lines were kept; a deferral decides nothing. Precision first: evidence that
    tells nothing (UNKNOWN) never decides, and a deleted or renamed file is neither a fix nor
    the lines kept."""
    if isinstance(reading, Deferral):
        return _held(Held.DEFERRED, reply, reading)
    if binding_of(reading) is Binding.AT_ONCE:
        return Bind(decision=_decision(suggestion_id, reply, reading))
    if reading.decision is Decision.ACCEPTED:
        if evidence.shows_change:
            bound = Bound.LANDED if evidence.landed else Bound.CHANGED
            commit = evidence.commit_named(reply.body) or evidence.commit
            return Bind(decision=_decision(suggestion_id, reply, reading, bound, commit))
        if evidence.closed and evidence.lines in (Lines.UNCHANGED, Lines.GONE):
            return _held(Held.DROPPED, reply, reading)
        return _held(Held.CLAIMED, reply, reading)
    if evidence.lines is Lines.UNCHANGED and not evidence.landed:
        if evidence.closed:
            return Bind(decision=_decision(suggestion_id, reply, reading, Bound.KEPT))
        return _held(Held.ARGUED, reply, reading)
    if evidence.closed and evidence.lines is not Lines.UNKNOWN:
        return _held(Held.DROPPED, reply, reading)  # the lines changed: the argument is moot
    return _held(Held.ARGUED, reply, reading)
