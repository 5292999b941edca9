"""A thread's evidence from plain values, and the table that binds a reply's reading to it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from continual.replies import Binding, Deferral, Verdict
from continual.values import Decision, Reason
from continual.writeback.authors import Author
from continual.writeback.binding import Held, bind
from continual.writeback.evidence import ChangesSince, Evidence, Lines, evidence_of, lines_since
from continual.writeback.threads import ThreadComment
from tests.support.store import stored_suggestion

OLD, NEWER, HEAD = "a" * 40, "b" * 40, "c" * 40
FIX_SHA = "3f2a1c9" + "d" * 33
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
# The suggestion sits on line 12 of src/app.py.
AT_LINE = "@@ -11,2 +11,2 @@\n x = 1\n-y = parse_config()\n+y = parse_config() or {}"
FAR_AWAY = "@@ -80,1 +80,2 @@\n z = 3\n+w = 4"
REMOVED = "@@ -1,3 +0,0 @@\n-import os\n-x = 1\n-y = parse_config()"
BLOCK = "@@ -11,2 +11,3 @@\n x = 1\n-y = parse_config()\n+y = parse_config()\n+assert y"


def changes(patches: dict[str, str], *, base: str = OLD, **extra: object) -> ChangesSince:
    return ChangesSince(patches, ("olivia",), commits=("e" * 40, FIX_SHA), base=base, **extra)  # type: ignore[arg-type]


def lines(patches: dict[str, str] | None, *, base: str = OLD, head: str | None = HEAD) -> Lines:
    read = None if patches is None else changes(patches, base=base)
    return lines_since(stored_suggestion("s1"), head_sha=head, base=base, changes=read)


def test_the_lines_changed_since_the_suggestion() -> None:
    assert lines({"src/app.py": AT_LINE}) is Lines.CHANGED


def test_a_change_to_other_lines_or_other_files_only_is_no_change() -> None:
    assert lines({"src/app.py": FAR_AWAY}) is Lines.UNCHANGED
    assert lines({"src/other.py": AT_LINE}) is Lines.UNCHANGED
    assert lines({}) is Lines.UNCHANGED


def test_nothing_since_when_the_head_is_the_suggestions() -> None:
    assert lines(None, head=OLD) is Lines.UNCHANGED


def test_no_comparison_or_no_head_tells_nothing() -> None:
    # A force push that rewrote history: the compare answered Gone, so nothing was read.
    assert lines(None) is Lines.UNKNOWN
    assert lines({"src/app.py": AT_LINE}, head=None) is Lines.UNKNOWN


def test_a_deleted_or_renamed_file_is_neither_a_fix_nor_the_lines_kept() -> None:
    assert lines({"src/app.py": REMOVED}) is Lines.GONE
    renamed = changes({"src/core.py": AT_LINE}, gone=frozenset({"src/app.py"}))
    found = lines_since(stored_suggestion("s1"), head_sha=HEAD, base=OLD, changes=renamed)
    assert found is Lines.GONE


def test_a_comparison_from_an_older_head_cannot_date_a_change() -> None:
    """Posted on NEWER, compared from OLD: a change at its lines may predate it."""
    newer = stored_suggestion("s1", head_sha=NEWER)
    read = changes({"src/app.py": AT_LINE})
    assert lines_since(newer, head_sha=HEAD, base=OLD, changes=read) is Lines.UNKNOWN
    quiet = changes({"src/app.py": FAR_AWAY})
    assert lines_since(newer, head_sha=HEAD, base=OLD, changes=quiet) is Lines.UNCHANGED


def test_the_replacement_landed_by_hand_or_applied() -> None:
    suggestion = stored_suggestion("s1", replacement="y = parse_config()\nassert y\n")
    found = evidence_of(
        suggestion,
        head_sha=HEAD,
        base=OLD,
        changes=changes({"src/app.py": BLOCK}),
        closed=False,
    )
    assert (found.landed, found.shows_change, found.commit) == (True, True, FIX_SHA)
    other = evidence_of(
        suggestion,
        head_sha=HEAD,
        base=OLD,
        changes=changes({"src/app.py": AT_LINE}),
        closed=False,
    )
    assert other.landed is False and other.lines is Lines.CHANGED


def test_a_named_commit_counts_only_when_the_comparison_holds_it() -> None:
    found = evidence_of(
        stored_suggestion("s1"),
        head_sha=HEAD,
        base=OLD,
        changes=changes({"src/app.py": AT_LINE}),
        closed=False,
    )
    assert found.commit_named("Fixed in 3F2A1C9, thanks") == FIX_SHA
    assert found.commit_named("fixed in 1234567") is None  # no such commit: no evidence
    assert found.commit_named("fixed in 3f2a1c") is None  # too short to be a commit
    unchanged = Evidence(Lines.UNCHANGED, commits=(FIX_SHA,))
    assert unchanged.commit_named("fixed in 3f2a1c9") is None  # it did not touch the lines


# --- the binding table ------------------------------------------------------------------------

OWNER = Author("olivia", "User", "OWNER")
FIXED = Verdict(Decision.ACCEPTED, None, "natural.fixed", "fixed", Binding.EVIDENCE)
TYPED = Verdict(Decision.ACCEPTED, None, "grammar.accept", "accept")
REFUSED = Verdict(Decision.DISMISSED, Reason.WONT_FIX, "grammar.dismiss", "wontfix")
ARGUED = Verdict(
    Decision.DISMISSED,
    Reason.NOT_APPLICABLE,
    "natural.intentional",
    "intentional",
    Binding.AT_MERGE,
)
LATER = Deferral("natural.deferred", "in a follow-up")


def reply(body: str = "fixed in 3f2a1c9") -> ThreadComment:
    return ThreadComment(1, body, OWNER, 100, T0)


def outcome(reading: Verdict | Deferral, evidence: Evidence) -> tuple[str, str | None]:
    """("decided", the evidence that bound it) or ("held", the claim's state)."""
    bound = bind("s1", reply(), reading, evidence)
    if bound.decision is not None:
        assert bound.claim is None
        return "decided", bound.decision.evidence
    assert bound.claim is not None
    return "held", bound.claim.state.value


CHANGED = Evidence(Lines.CHANGED, commit=FIX_SHA, commits=(FIX_SHA,))
LANDED = Evidence(Lines.UNKNOWN, landed=True, commit=FIX_SHA)


def closed(evidence: Evidence) -> Evidence:
    return Evidence(evidence.lines, evidence.landed, True, evidence.commit, evidence.commits)


@pytest.mark.parametrize(
    ("reading", "evidence", "expected"),
    [
        (TYPED, Evidence(Lines.UNCHANGED), ("decided", None)),
        (TYPED, Evidence(Lines.UNKNOWN), ("decided", None)),
        (REFUSED, CHANGED, ("decided", None)),
        (FIXED, CHANGED, ("decided", "lines-changed")),
        (FIXED, LANDED, ("decided", "replacement-landed")),
        (FIXED, Evidence(Lines.UNCHANGED), ("held", "claimed")),
        (FIXED, Evidence(Lines.UNKNOWN), ("held", "claimed")),
        (FIXED, Evidence(Lines.GONE), ("held", "claimed")),
        (FIXED, closed(Evidence(Lines.UNCHANGED)), ("held", "dropped")),
        (FIXED, closed(Evidence(Lines.GONE)), ("held", "dropped")),
        (FIXED, closed(Evidence(Lines.UNKNOWN)), ("held", "claimed")),
        (FIXED, closed(CHANGED), ("decided", "lines-changed")),
        (ARGUED, Evidence(Lines.UNCHANGED), ("held", "argued")),
        (ARGUED, closed(Evidence(Lines.UNCHANGED)), ("decided", "lines-kept")),
        (ARGUED, closed(CHANGED), ("held", "dropped")),
        (ARGUED, closed(Evidence(Lines.GONE)), ("held", "dropped")),
        (ARGUED, closed(Evidence(Lines.UNKNOWN)), ("held", "argued")),
        (ARGUED, closed(Evidence(Lines.UNCHANGED, landed=True)), ("held", "dropped")),
        (LATER, closed(CHANGED), ("held", "deferred")),
        (LATER, Evidence(Lines.UNCHANGED), ("held", "deferred")),
    ],
)
def test_the_binding_table(
    reading: Verdict | Deferral, evidence: Evidence, expected: tuple[str, str | None]
) -> None:
    assert outcome(reading, evidence) == expected


def test_a_bound_acceptance_names_the_commit_the_reply_names_or_the_newest() -> None:
    evidence = Evidence(Lines.CHANGED, commit="f" * 40, commits=(FIX_SHA, "f" * 40))
    named = bind("s1", reply("fixed in 3f2a1c9"), FIXED, evidence).decision
    assert named is not None and named.commit == FIX_SHA
    unnamed = bind("s1", reply("fixed in 9999999"), FIXED, evidence).decision
    assert unnamed is not None and unnamed.commit == "f" * 40


def test_a_claim_keeps_who_said_what_and_the_rule() -> None:
    claim = bind("s1", reply(), ARGUED, Evidence(Lines.UNCHANGED)).claim
    assert claim is not None
    assert (claim.state, claim.actor, claim.rule, claim.reason) == (
        Held.ARGUED,
        "olivia",
        "natural.intentional",
        Reason.NOT_APPLICABLE,
    )
    assert '"state": "argued"' in claim.to_json()


@pytest.mark.parametrize(
    ("span", "binding"),
    [
        ("accept", Binding.AT_ONCE),
        ("@hindsight accepted", Binding.AT_ONCE),
        ("Fixed", Binding.EVIDENCE),
        ("/fixed.", Binding.EVIDENCE),
        ("@hindsight applied", Binding.EVIDENCE),
    ],
)
def test_a_typed_fixed_or_applied_reports_a_change_and_waits_for_it(
    span: str, binding: Binding
) -> None:
    from continual.writeback.threads import binding_of

    assert binding_of(Verdict(Decision.ACCEPTED, None, "grammar.accept", span)) is binding
