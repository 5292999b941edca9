"""The status block: one at the end of the app's own comment, rewritten, made of the app's words."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from continual.markers import parse_suggestion_marker, with_suggestion_marker
from continual.stored import StoredReceipt
from continual.values import Decision, Reason
from continual.writeback.binding import Claim, Held
from continual.writeback.status import (
    STATUS_MARKER,
    StatusEdit,
    ThreadStatus,
    render_status,
    status_edits,
    with_status,
)

BODY = with_suggestion_marker("**Unchecked value**", "s1", "lesson/unchecked-value-0123456789")
RECEIPT = StoredReceipt(
    id=1, entry_id="e1", account_id=1, suggestion_id="s1", decision="dismissed",
    reason="style", source="reply", rule="grammar.dismiss",
    span="<!-- hindsight:suggestion id=forged entry=lesson/x-0123456789 -->", seat="a",
    lab="l", set_sha256=None, pr=1, head_sha="h", actor="octocat", at_ms=0, superseded=False,
)  # fmt: skip


def test_one_block_at_the_end_rewritten_not_appended() -> None:
    once = with_status(BODY, RECEIPT)
    twice = with_status(once, replace(RECEIPT, decision="accepted", reason=None))
    assert twice.count(STATUS_MARKER) == 1 and "accepted —" in twice and "dismissed" not in twice
    assert twice.startswith(BODY)
    marker = parse_suggestion_marker(twice)
    assert marker is not None and marker.suggestion_id == "s1"


def test_the_block_never_carries_a_replys_words() -> None:
    shown = render_status(RECEIPT)
    assert "forged" not in shown and "hindsight:suggestion" not in shown
    assert "dismissed (style)" in shown and "@octocat" in shown and "`undo`" in shown


def test_an_edit_only_when_the_status_is_wrong() -> None:
    never = ThreadStatus("s1", 10, BODY, None)
    decided = ThreadStatus("s1", 10, BODY, RECEIPT)
    shown = ThreadStatus("s1", 10, with_status(BODY, RECEIPT), RECEIPT)
    cleared = ThreadStatus("s1", 10, with_status(BODY, RECEIPT), None)
    assert status_edits([never, shown]) == []
    assert status_edits([decided]) == [StatusEdit("s1", 10, with_status(BODY, RECEIPT))]
    (edit,) = status_edits([cleared])
    assert "no decision now" in edit.body and edit.body.count(STATUS_MARKER) == 1
    assert status_edits([ThreadStatus("s1", 10, edit.body, None)]) == []


def claim(state: Held, **fields: object) -> Claim:
    values: dict[str, object] = {
        "state": state,
        "rule": "natural.fixed",
        "span": "<!-- hindsight:status --> fixed",  # a reply's words: never shown
        "actor": "octocat",
        "at": datetime(2026, 1, 5, tzinfo=UTC),
        "reply_id": 7,
        "decision": Decision.ACCEPTED,
        **fields,
    }
    return Claim(**values)  # type: ignore[arg-type]


def test_a_claim_is_shown_until_it_binds_and_never_its_words() -> None:
    claimed = render_status(None, claim(Held.CLAIMED))
    assert "accepted — waiting for the change" in claimed and "@octocat" in claimed
    assert STATUS_MARKER not in claimed
    argued = render_status(
        None, claim(Held.ARGUED, decision=Decision.DISMISSED, reason=Reason.STYLE)
    )
    assert "dismissed (style) — waiting for the merge or close" in argued
    assert "deferred — no decision" in render_status(None, claim(Held.DEFERRED, decision=None))
    dropped = render_status(None, claim(Held.DROPPED))
    assert "not accepted — the pull request closed with the commented lines unchanged" in dropped
    # A thread that never had a decision gets a block once it has a claim, and not again.
    waiting = ThreadStatus("s1", 10, BODY, None, claim(Held.CLAIMED))
    (edit,) = status_edits([waiting])
    assert status_edits([ThreadStatus("s1", 10, edit.body, None, claim(Held.CLAIMED))]) == []


def test_the_evidence_that_bound_a_decision_is_shown_with_its_commit() -> None:
    bound = replace(RECEIPT, evidence="lines-changed", evidence_commit="3f2a1c9" + "d" * 33)
    assert "Evidence: the commented lines changed (`3f2a1c9ddddd`)." in render_status(bound)
    kept = replace(RECEIPT, evidence="lines-kept", evidence_commit=None)
    assert "Evidence: the pull request closed with the commented lines as they were." in (
        render_status(kept)
    )
    assert "Evidence" not in render_status(RECEIPT)
