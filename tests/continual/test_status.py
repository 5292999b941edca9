"""The status block: one at the end of the app's own comment, rewritten, made of the app's words."""

from __future__ import annotations

from dataclasses import replace

from continual.markers import parse_suggestion_marker, with_suggestion_marker
from continual.stored import StoredReceipt
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
