"""The small vocabulary shared by the store, the write-back and recall: decisions, reasons, sources."""

from __future__ import annotations

from enum import StrEnum


class Decision(StrEnum):
    """What a maintainer did with a suggestion."""

    ACCEPTED = "accepted"
    DISMISSED = "dismissed"


class Reason(StrEnum):
    """Why a suggestion was dismissed; a typed dismissal must name one of the grammar's reasons
    (continual.replies.TYPED_REASONS); `unspecified` is a 👎 reaction's, which gives none."""

    FALSE_POSITIVE = "false-positive"
    WONT_FIX = "wont-fix"
    NOT_APPLICABLE = "not-applicable"
    DUPLICATE = "duplicate"
    OUT_OF_SCOPE = "out-of-scope"
    STYLE = "style"
    UNSPECIFIED = "unspecified"


class Source(StrEnum):
    """Where a decision came from (a proof is evidence, never a source: continual.proofs)."""

    REPLY = "reply"
    FIX_PR = "fix_pr"
    APPLIED = "applied"
    PERSON = "person"
    REACTION = "reaction"
    MERGED_AUTHOR_FIX = "merged_author_fix"
    # A maintainer's review comment that a past pull request addressed before its merge: evidence
    # and context only, it never activates or widens a lesson by itself (continual.lifecycle).
    # Also a maintainer's refusal of another bot's suggestion a person confirmed: it suppresses
    # through the entry that person demoted (continual.history.suppressed), and counts for nothing.
    HISTORY = "history"


# Sources that are evidence, never a verdict: their receipts count for no confirmation.
EVIDENCE_ONLY_SOURCES = frozenset({Source.HISTORY.value})


class EntryState(StrEnum):
    """What recall may do with an entry."""

    ACTIVE = "active"
    CANDIDATE = "candidate"
    DEMOTED = "demoted"
    EXPIRED = "expired"


class Scope(StrEnum):
    REPOSITORY = "repository"
    ACCOUNT = "account"


class Surface(StrEnum):
    """The four moments at which guidance is handed."""

    REVIEW = "review"
    RECALL = "recall"
    BRIEF = "brief"
    CONTEXT = "context"
