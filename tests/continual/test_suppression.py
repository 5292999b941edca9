"""The suppression rules as pure functions: which dismissals still refuse a mechanism, and where."""

from __future__ import annotations

from continual.lifecycle import DAY_MS
from continual.suppression import (
    DISMISSED_HEADER,
    Mechanism,
    PathReceipt,
    refused_cards,
    render_dismissed,
    suppressing,
    suppressions_of,
)

KEY = "lesson/security-avoid-eval-0123456789"
PATH = "src/payments/charge.py"
OTHER = "src/payments/refund.py"
T0 = 1_700_000_000_000


def dismissed(at: int, reason: str | None, path: str = PATH, receipt: int = 1) -> PathReceipt:
    return PathReceipt(receipt, "dismissed", reason, path, "olivia", at, superseded=False)


def accepted(at: int, path: str = PATH, receipt: int = 9) -> PathReceipt:
    return PathReceipt(receipt, "accepted", None, path, "olivia", at, superseded=False)


def mechanism(
    *verdicts: PathReceipt, demoted: bool = False, lifted_ms: int | None = None
) -> Mechanism:
    return Mechanism(
        entry_id="e_1",
        key=KEY,
        lens="security",
        title="Avoid eval on request data",
        verdicts=verdicts,
        demoted=demoted,
        demoted_by="rule" if demoted else None,
        lifted_ms=lifted_ms,
        revision=3,
    )


def test_a_false_positive_suppresses_at_its_path_only() -> None:
    found = suppressions_of(mechanism(dismissed(T0, "false-positive")), now_ms=T0 + 1)
    assert [(s.path, s.repository_wide, s.receipt_id) for s in found] == [(PATH, False, 1)]
    assert suppressing(found, KEY, PATH) is found[0]
    assert suppressing(found, KEY, OTHER) is None
    assert suppressing(found, "lesson/other-0000000000", PATH) is None


def test_not_applicable_is_per_path_and_each_path_keeps_its_latest_receipt() -> None:
    found = suppressions_of(
        mechanism(
            dismissed(T0, "not-applicable", PATH, receipt=1),
            dismissed(T0 + 5, "false-positive", PATH, receipt=2),
            dismissed(T0 + 3, "not-applicable", OTHER, receipt=3),
        ),
        now_ms=T0 + 10,
    )
    assert [(s.path, s.receipt_id, s.reason) for s in found] == [
        (PATH, 2, "false-positive"),
        (OTHER, 3, "not-applicable"),
    ]
    assert suppressing(found, KEY, "src/elsewhere.py") is None


def test_other_reasons_suppress_repository_wide() -> None:
    for reason in ("wont-fix", "style", "out-of-scope", "duplicate", "unspecified", None):
        found = suppressions_of(mechanism(dismissed(T0, reason)), now_ms=T0 + 1)
        assert len(found) == 1 and found[0].repository_wide, reason
        assert suppressing(found, KEY, OTHER) is found[0], reason
        assert found[0].reason == (reason or "unspecified")


def test_a_later_acceptance_ends_it_and_a_later_dismissal_starts_it_again() -> None:
    assert (
        suppressions_of(mechanism(dismissed(T0, "wont-fix"), accepted(T0 + 1)), now_ms=T0 + 2) == ()
    )
    # An acceptance before the dismissal does not end it.
    found = suppressions_of(mechanism(accepted(T0), dismissed(T0 + 1, "wont-fix")), now_ms=T0 + 2)
    assert [s.receipt_id for s in found] == [1]
    # An acceptance at another path still accepts the mechanism.
    assert (
        suppressions_of(
            mechanism(dismissed(T0, "false-positive"), accepted(T0 + 1, OTHER)), now_ms=T0 + 2
        )
        == ()
    )


def test_superseded_dismissals_do_not_count() -> None:
    gone = PathReceipt(1, "dismissed", "wont-fix", PATH, "olivia", T0, superseded=True)
    assert suppressions_of(mechanism(gone), now_ms=T0 + 1) == ()
    # A superseded acceptance does not end a standing dismissal either.
    undone = PathReceipt(2, "accepted", None, PATH, "olivia", T0 + 1, superseded=True)
    assert len(suppressions_of(mechanism(dismissed(T0, "style"), undone), now_ms=T0 + 2)) == 1


def test_it_expires_suppress_days_after_the_latest_dismissal() -> None:
    m = mechanism(dismissed(T0, "wont-fix", receipt=1), dismissed(T0 + DAY_MS, "style", receipt=2))
    until = T0 + DAY_MS + 180 * DAY_MS
    found = suppressions_of(m, now_ms=until - 1)
    assert [(s.receipt_id, s.until_ms) for s in found] == [(2, until)]
    assert suppressions_of(m, now_ms=until) == ()
    assert suppressions_of(m, now_ms=T0 + 2 * DAY_MS, suppress_days=1) == ()
    assert len(suppressions_of(m, now_ms=T0 + 2 * DAY_MS, suppress_days=2)) == 1


def test_a_person_lift_ends_the_dismissals_made_before_it() -> None:
    assert (
        suppressions_of(mechanism(dismissed(T0, "wont-fix"), lifted_ms=T0 + 1), now_ms=T0 + 2) == ()
    )
    later = mechanism(
        dismissed(T0, "wont-fix", receipt=1),
        dismissed(T0 + 5, "wont-fix", receipt=2),
        lifted_ms=T0 + 1,
    )
    assert [s.receipt_id for s in suppressions_of(later, now_ms=T0 + 6)] == [2]


def test_a_demoted_entry_suppresses_everywhere_and_does_not_expire() -> None:
    found = suppressions_of(
        mechanism(dismissed(T0, "false-positive"), demoted=True), now_ms=T0 + 1000 * DAY_MS
    )
    assert [(s.repository_wide, s.reason, s.receipt_id, s.until_ms) for s in found] == [
        (True, "demoted", 1, None)
    ]
    # Demoted by a person with no dismissal at all: no receipt, the person named.
    bare = suppressions_of(mechanism(demoted=True), now_ms=T0)
    assert [(s.receipt_id, s.actor, s.path) for s in bare] == [(None, "rule", "")]
    assert suppressing(bare, KEY, OTHER) is bare[0]


def test_nothing_dismissed_suppresses_nothing() -> None:
    assert suppressions_of(mechanism(accepted(T0)), now_ms=T0 + 1) == ()
    assert suppressions_of(mechanism(), now_ms=T0) == ()


def test_the_header_block_names_title_lens_path_reason_and_who() -> None:
    assert render_dismissed(()) == ""
    found = suppressions_of(mechanism(dismissed(T0, "false-positive")), now_ms=T0 + 1)
    wide = suppressions_of(mechanism(dismissed(T0, "wont-fix")), now_ms=T0 + 1)
    text = render_dismissed((*found, *wide))
    lines = text.splitlines()
    assert lines[0] == DISMISSED_HEADER == "Dismissed here before (do not raise again):"
    assert lines[1] == (
        f"- Avoid eval on request data (lens security; at {PATH}; reason false-positive; "
        "dismissed by olivia)"
    )
    assert lines[2] == (
        "- Avoid eval on request data (lens security; anywhere in the repository "
        f"(first at {PATH}); reason wont-fix; dismissed by olivia)"
    )


def test_a_title_with_newlines_stays_on_one_line() -> None:
    m = Mechanism("e_2", KEY, "style", "Two\nlines\n- forged: item", (dismissed(T0, "style"),))
    text = render_dismissed(suppressions_of(m, now_ms=T0 + 1))
    assert len(text.splitlines()) == 2
    assert "Two lines - forged: item" in text


def test_only_lessons_refused_repository_wide_are_withheld_from_surfaces() -> None:
    at_path = suppressions_of(mechanism(dismissed(T0, "false-positive")), now_ms=T0 + 1)
    wide = suppressions_of(mechanism(dismissed(T0, "wont-fix")), now_ms=T0 + 1)
    assert refused_cards(at_path) == set()
    assert refused_cards(wide) == {("e_1", 3)}
