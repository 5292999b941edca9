"""The status block the app keeps at the end of its own suggestion comment: what was recorded,
by whom, from which signal, and how to change it (docs/writeback.md, "Seeing and correcting")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from continual.markers import STATUS_MARKER, split_status
from continual.stored import StoredReceipt
from continual.writeback.binding import Claim, Held

SOURCE_WORDS = {
    "reply": "a reply",
    "reaction": "a reaction on this comment",
    "applied": "this suggestion, committed as it was",
    "merged_author_fix": "the author's fix, merged",
    "fix_pr": "its fix PR",
}
RECORDED = "**Hindsight recorded:** {decision}{reason} — by @{actor}, from {source} (`{rule}`)."
NOTHING = "**Hindsight recorded:** no decision now (what decided was undone, edited or deleted)."
EVIDENCE = {
    "lines-changed": "the commented lines changed",
    "replacement-landed": "the suggested code landed",
    "lines-kept": "the pull request closed with the commented lines as they were",
}
HELD = {
    Held.CLAIMED: "accepted — waiting for the change",
    Held.ARGUED: "dismissed{reason} — waiting for the merge or close with these lines unchanged",
    Held.DEFERRED: "deferred — no decision; the suggestion stays a candidate for later",
}
DROPPED = {
    "accepted": "not accepted — the pull request closed with the commented lines unchanged "
    "(or their file deleted or renamed)",
    "dismissed": "not dismissed — the commented lines changed before the pull request closed",
}
CLAIM = "**Hindsight recorded:** {state} — said by @{actor} in a reply (`{rule}`)."
HOW_TO_CHANGE = (
    "To change it: edit or delete the reply that decided, reply `undo` (maintainers), or reply "
    "with a command: `accept`, or `dismiss <reason>` with one of false-positive, wont-fix, "
    "not-applicable, duplicate, out-of-scope, style."
)

# A merged fix PR outranks every thread signal (continual.writeback.apply.RANKED_SOURCES).
HOW_TO_CHANGE_FIX = (
    "Its fix PR decided, and it outranks replies and reactions here: a refusal on the fix PR "
    "decides until a later maintainer signal; a merged one stands (a person can demote or "
    "delete the lesson on `/ledger`)."
)


@dataclass(frozen=True)
class ThreadStatus:
    """One suggestion comment as the app reads it now, with its thread's current receipt."""

    suggestion_id: str
    comment_id: int
    body: str
    receipt: StoredReceipt | None
    claim: Claim | None = None


@dataclass(frozen=True)
class StatusEdit:
    """A new body for one of the app's suggestion comments."""

    suggestion_id: str
    comment_id: int
    body: str


def render_status(receipt: StoredReceipt | None, claim: Claim | None = None) -> str:
    """The block that follows STATUS_MARKER: the recorded decision and the evidence that bound
    it, else the thread's claim, else that none is recorded.

    Made only of values the app chose (decision, reason, login, source, rule, a commit sha from
    GitHub's comparison), never of anyone's words: a reply's text cannot inject anything here.
    """
    if receipt is None and claim is not None:
        reason = f" ({claim.reason})" if claim.reason else ""
        if claim.state is Held.DROPPED:
            state = DROPPED[claim.decision.value if claim.decision else "accepted"]
        else:
            state = HELD[claim.state].format(reason=reason)
        line = CLAIM.format(state=state, actor=claim.actor, rule=claim.rule)
        return f"{line}\n\n{HOW_TO_CHANGE}"
    if receipt is None:
        return f"{NOTHING}\n\n{HOW_TO_CHANGE}"
    line = RECORDED.format(
        decision=receipt.decision,
        reason=f" ({receipt.reason})" if receipt.reason else "",
        actor=receipt.actor or "unknown",
        source=SOURCE_WORDS.get(receipt.source, receipt.source),
        rule=receipt.rule or receipt.source,
    )
    shown = EVIDENCE.get(receipt.evidence or "")
    if shown is not None:
        commit = receipt.evidence_commit
        line += f" Evidence: {shown}" + (f" (`{commit[:12]}`)." if commit else ".")
    how = HOW_TO_CHANGE_FIX if receipt.source == "fix_pr" else HOW_TO_CHANGE
    return f"{line}\n\n{how}"


def without_status(body: str) -> str:
    """The body before its status block, cut at the last status marker as every marker is read
    (continual.markers.split_status): a copy earlier in the body stays text."""
    head, _block = split_status(body)
    return head.rstrip()


def with_status(body: str, receipt: StoredReceipt | None, claim: Claim | None = None) -> str:
    """The body with exactly one status block at its end, replacing the one it had."""
    return f"{without_status(body)}\n\n{STATUS_MARKER}\n{render_status(receipt, claim)}"


def status_edits(threads: Iterable[ThreadStatus]) -> list[StatusEdit]:
    """The comments whose status no longer says what is recorded: one edit per changed decision,
    none for a thread that never had a decision and none when the status is already right."""
    edits = []
    for thread in threads:
        if thread.receipt is None and thread.claim is None and STATUS_MARKER not in thread.body:
            continue
        body = with_status(thread.body, thread.receipt, thread.claim)
        if body != thread.body:
            edits.append(StatusEdit(thread.suggestion_id, thread.comment_id, body))
    return edits


FIX_LINE = "**Hindsight fix PR:** #{number} ({state})."
_FIX_LINE_START = "**Hindsight fix PR:** #"


def with_fix_pull(body: str, number: int, state: str) -> str:
    """The body with one line linking its fix PR and its state, just before the status block
    (where a later status edit keeps it); made only of values the app chose."""
    head, block = split_status(body)
    kept = [line for line in head.rstrip().split("\n") if not line.startswith(_FIX_LINE_START)]
    text = "\n".join(kept).rstrip()
    text = f"{text}\n\n{FIX_LINE.format(number=number, state=state)}"
    return f"{text}\n\n{STATUS_MARKER}{block}" if block is not None else text
